"""``tablecert explore`` refuses what it cannot do: a bench whose operator performs the acts, a game the
model does not play, a budget that is not a duration (exit 2, one line, no traceback)."""

from __future__ import annotations

import pytest

from harness.cli import main


@pytest.mark.parametrize(("args", "words"), [
    (["--profile", "device_profiles/hardware-example.yaml"], "cannot explore this bench: "),
    (["--profile", "device_profiles/emulated-hit-and-run.yaml"], "the explorer's model cannot play game"),
    (["--profile", "device_profiles/emulated-midi-5.yaml", "--budget", "0s"], "expected a duration"),
    (["--profile", "device_profiles/emulated-midi-5.yaml", "--defect", "no-such-defect"], "no-such-defect"),
])
def test_refused_with_exit_2(args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_operator_bench_names_the_act() -> None:
    from harness.bench.twin import bench_twin
    from harness.explore.device import why_not_explorable
    from harness.profiles.load import load_profile

    twin = bench_twin(load_profile("device_profiles/emulated-midi-5.yaml"))
    assert "performed by operator" in (why_not_explorable(twin) or "")
