"""The emulated link controller's state machine, in-process: exact contributions at each table's rate,
each numbered message processed once (also after a power cycle), hit instants and the simultaneous-hit
interpretation, one reset per instant, and the link defects each bending one step."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from harness.emulators.base import Refusal
from harness.emulators.link_config import LinkConfig
from harness.emulators.link_controller import EmulatedLinkController

CONFIG: dict[str, Any] = {
    "name": "L",
    "meters": {"mega-5": {"initial": 5_000_000, "reset": 5_000_000}},
    "tables": [{"name": "t1", "denomination": 500, "decks": 8, "rates": {"mega-5": "1.25"}},
               {"name": "t2", "denomination": 500, "decks": 8, "rates": {"mega-5": "1.25"}}],
}


def controller(tmp_path: Path, **changes: Any) -> tuple[EmulatedLinkController, list[tuple[str, dict[str, Any]]],
                                                                 list[dict[str, Any]]]:
    pushed: list[tuple[str, dict[str, Any]]] = []
    host: list[dict[str, Any]] = []
    cfg = LinkConfig.from_mapping({**CONFIG, "nv_dir": str(tmp_path), **changes})
    return EmulatedLinkController(cfg, lambda t, p: pushed.append((t, p)), host.append), pushed, host


def send(ctrl: EmulatedLinkController, table: str, cmd: str, **args: Any) -> Any:
    answer, _ = ctrl.from_table({"cmd": cmd, "table": table, **args}, table)
    return answer


def contribute(ctrl: EmulatedLinkController, table: str, n: int, *amounts: int) -> Any:
    return send(ctrl, table, "link.contribute", n=n, round=n, wagers=[{"seat": 1, "amount": a} for a in amounts])


def test_contributions_are_exact_and_counted_once(tmp_path: Path) -> None:
    ctrl, _, _ = controller(tmp_path)
    assert contribute(ctrl, "t1", 1, 500, 500)["duplicate"] is False  # 12.5 cents
    again = contribute(ctrl, "t1", 1, 500, 500)
    assert again["duplicate"] is True
    assert contribute(ctrl, "t2", 1, 500)["meters"] == {"mega-5": 5_000_018}  # 18.75 cents
    got = ctrl.meters_get()
    assert got["meters"]["mega-5"] == 5_000_018 and got["residual"]["mega-5"] == "0.75"
    assert got["counted"] == {"t1": {"wagers": 2, "amount": 1000}, "t2": {"wagers": 1, "amount": 500}}


def test_numbers_survive_a_power_cycle(tmp_path: Path) -> None:
    ctrl, _, _ = controller(tmp_path)
    contribute(ctrl, "t1", 1, 500)
    ctrl.boot()  # power off and on: everything from non-volatile storage
    assert contribute(ctrl, "t1", 1, 500)["duplicate"] is True
    assert ctrl.meters_get()["residual"]["mega-5"] == "0.25"


def test_unknown_table_and_no_join_are_refused(tmp_path: Path) -> None:
    ctrl, _, _ = controller(tmp_path)
    answer, peer = ctrl.from_table({"cmd": "link.join", "table": "t9"}, None)
    assert isinstance(answer, Refusal) and peer is None
    answer, _ = ctrl.from_table({"cmd": "link.contribute", "n": 1, "wagers": []}, None)
    assert isinstance(answer, Refusal) and answer.code == "REFUSED"


def _two_claims(ctrl: EmulatedLinkController) -> tuple[Any, Any]:
    a = send(ctrl, "t1", "link.hit", n=1, round=1, seat=1, meter="mega-5", category="mega")
    contribute(ctrl, "t2", 1, 800)  # held while the hit waits for the key: 10 cents
    b = send(ctrl, "t2", "link.hit", n=2, round=1, seat=3, meter="mega-5", category="mega")
    return a, b


def test_simultaneous_hits_each_paid_the_meter_reset_once(tmp_path: Path) -> None:
    ctrl, pushed, host = controller(tmp_path)
    a, b = _two_claims(ctrl)
    assert (a["instant"], b["instant"]) == (1, 1) and a["order"] < b["order"]
    assert a["award"] == b["award"] == 5_000_000 and a["final"] and b["pending"]
    assert ctrl.reset_key({"meter": "mega-5"}) == {"meter": "mega-5", "amount": 5_000_010}
    assert isinstance(ctrl.reset_key({"meter": "mega-5"}), Refusal)
    assert [e for e in host if e["event"] == "reset"] == [{"event": "reset", "meter": "mega-5", "amount": 5_000_010}]
    assert ctrl.accounts["cumulative_paid"] == 10_000_000
    assert {t for t, p in pushed if p.get("reset")} == {"t1", "t2"}


def test_simultaneous_hits_shared(tmp_path: Path) -> None:
    ctrl, pushed, _ = controller(tmp_path, interpretations={"link-simultaneous-hits": "shared"},
                                 meters={"mega-5": {"initial": 5_000_001, "reset": 5_000_000}})
    a, _b = _two_claims(ctrl)
    assert a["final"] is False and a["award"] is None
    ctrl.reset_key({"meter": "mega-5"})
    awards = {p["awards"][0]["seat"]: p["awards"][0]["award"] for _t, p in pushed if p.get("awards")}
    assert awards == {1: 2_500_001, 3: 2_500_000}  # the odd cent to the first in order
    assert ctrl.accounts["cumulative_paid"] == 5_000_001


def test_a_retried_claim_is_the_same_acknowledgement(tmp_path: Path) -> None:
    ctrl, _, _ = controller(tmp_path)
    first = send(ctrl, "t1", "link.hit", n=1, round=1, seat=1, meter="mega-5", category="mega")
    again = send(ctrl, "t1", "link.hit", n=1, round=1, seat=1, meter="mega-5", category="mega")
    assert again["duplicate"] is True and again["order"] == first["order"] and len(ctrl.hits) == 1


@pytest.mark.parametrize(("defect", "check"), [
    ("link-contribution-recounted", lambda c: c.meters_get()["counted"]["t1"]["wagers"] == 2),
    ("link-table-rate-off", lambda c: c.meters_get()["residual"]["mega-5"] == "0.75"),  # clean: 6.25 + 6.25
])
def test_contribution_defects(tmp_path: Path, defect: str, check: Any) -> None:
    ctrl, _, _ = controller(tmp_path, defects=[defect])
    contribute(ctrl, "t1", 1, 500)
    contribute(ctrl, "t1", 1, 500)  # a resend
    contribute(ctrl, "t2", 1, 500)  # the last table: 1.5% with the rate defect (7.5 c)
    assert check(ctrl)


def test_rate_off_is_the_last_tables(tmp_path: Path) -> None:
    ctrl, _, _ = controller(tmp_path, defects=["link-table-rate-off"])
    contribute(ctrl, "t2", 1, 1000)
    assert ctrl.meters_get()["meters"]["mega-5"] == 5_000_000 + 15  # 1000 x 1.5%
    assert ctrl.config_get()["tables"][1]["rates"] == {"mega-5": str(Decimal("1.25"))}  # it still says 1.25%


def test_hit_defects(tmp_path: Path) -> None:
    twice, _, _ = controller(tmp_path / "a", defects=["link-hit-paid-twice"])
    _two_claims(twice)
    twice.reset_key({"meter": "mega-5"})
    assert len(twice.hits) == 3 and twice.accounts["cumulative_paid"] == 15_000_000
    reset, _, host = controller(tmp_path / "b", defects=["link-hit-reset-twice"])
    _two_claims(reset)
    assert reset.reset_key({"meter": "mega-5"})["amount"] == 5_000_000  # the 10 cents held are gone
    assert sum(1 for e in host if e["event"] == "reset") == 2


def test_hits_come_in_pages_that_fit_a_frame(tmp_path: Path) -> None:
    ctrl, _, _ = controller(tmp_path)
    for n in range(1, 61):  # sixty claims, each its own instant once the key is turned
        send(ctrl, "t1", "link.hit", n=n, round=n, seat=1, meter="mega-5", category="mega")
        ctrl.reset_key({"meter": "mega-5"})
    pages, since = [], 0
    while True:
        page = ctrl.hits_get({"since": since})
        pages.append(page["hits"])
        assert len(json.dumps(page)) < 4096
        if not page["more"]:
            break
        since = page["hits"][-1]["order"]
    assert len(pages) > 1 and [h["order"] for p in pages for h in p] == list(range(1, 61))
