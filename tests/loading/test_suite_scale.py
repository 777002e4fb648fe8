"""A large suite validates in time linear in its size (redteam row 11: 1,500 cases, 876 KB, took
30 s of CPU because every step split the whole file into lines again).  Tests never assert a wall
clock (the machines are shared): this counts how often the file's text is split into lines, which
must not grow with the number of steps.  ``benchmarks/bench_validate.py`` prints the times."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import yamlload
from harness.suites.load.schema import load_suite

CASE = """  - id: case-{n}
    title: A plain Royal 9 on the Player hand
    clauses: [pa-midi-r9-f1-royal9]
    when: {{denomination: 5}}
    steps:
      - open_round
      - wager: {{seat: 1, type: player, amount: "$10"}}
      - wager: {{seat: 1}}
      - deal: {{cards: "QH 4S 9D 3C"}}
      - expect_outcome: {{winner: player}}
      - expect_payout: oracle
"""


def suite_text(cases: int) -> str:
    return ("spec: tablecert/suite/1\nsuite: big\ntitle: Big\nrequires: [royal9]\ncases:\n"
            + "".join(CASE.format(n=n) for n in range(cases)))


class CountingText(str):
    """The file's text, counting every ``splitlines`` a reader calls on it."""

    calls = 0

    def splitlines(self, keepends: bool = False) -> list[str]:
        CountingText.calls += 1
        return super().splitlines(keepends)


@pytest.mark.parametrize("cases", [10, 200])
def test_the_text_is_split_into_lines_once_whatever_the_size(cases: int, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    split = []
    original = yamlload.split_lines
    monkeypatch.setattr(yamlload, "split_lines", lambda text: split.append(1) or original(text))
    CountingText.calls = 0
    path = tmp_path / "big.suite.yaml"
    node = yamlload.load_yaml_text(CountingText(suite_text(cases)), str(path))
    suite = load_suite(path, node=node)
    assert len(suite.cases) == cases
    assert CountingText.calls == 0
    assert len(split) <= 1
