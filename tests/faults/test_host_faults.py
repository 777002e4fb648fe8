"""The host fault matrix (harness.selfcheck.faultmatrix, issue 32): each fault one test, on a real run of the
Mini-Baccarat profile; each checks that an incomplete run never says PASS, that the record verifies or
is refused with a message, and that every finished case is kept and the run resumes to the end."""

from pathlib import Path

import pytest

from harness.selfcheck import faultmatrix


@pytest.mark.parametrize("fault", sorted(faultmatrix.FAULTS))
def test_host_fault(fault: str, tmp_path: Path) -> None:
    out = faultmatrix.FAULTS[fault](tmp_path)
    print(out.line())
    assert out.ok, out.line()  # the three checks (faultmatrix.judge) and the fault's own expectations


def test_the_matrix_refuses_an_unknown_fault(capsys: pytest.CaptureFixture[str]) -> None:
    assert faultmatrix.main(["no-such-fault"]) == 2
    assert "no fault no-such-fault" in capsys.readouterr().err
