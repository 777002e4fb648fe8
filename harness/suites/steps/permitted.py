"""Required and permitted: a configuration write the rules let a device refuse.

No clause of 629a Royal 9 or 461a.12 requires a controller to take a configuration write; 461a.12(i)
constrains changes once an amount appears on a progressive meter.  What a device takes is declared
in the profile (``config_writes:``, harness.profiles.configwrites).  Here:

* :func:`never_written` (collection): a case that needs a write of a field the profile declares
  ``never`` is NOT APPLICABLE, with the reason;
* :func:`refusal_permitted` / :func:`permitted_refusal` (run time): a refusal of a write the
  profile does not declare writable now (``never``, or ``no-amount-shown`` while the meters show
  amounts) is recorded as the device's permitted choice, and the rest of the case, which judged
  what the write did, is NOT APPLICABLE.  A refusal of a field declared ``between-rounds`` stays a
  FAIL, and a write the device takes is judged in full: a device that takes a write and applies it
  wrongly still FAILs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from harness.profiles.configwrites import WHEN_TEXT, field_of_wire
from harness.suites.load.model import Case, Step
from harness.suites.run.context import CaseContext, NotApplicableHere, citing_also

if TYPE_CHECKING:
    from harness.profiles.model import Profile

#: write steps that expect a write to be taken -> the configuration fields they write
STEP_WRITES: dict[str, tuple[str, ...]] = {
    "configure_denomination": ("denomination",),
    "configure_combos": ("combinations",),
    "configure_mystery": ("mystery",),
    "expect_meter_bounds": ("meters",),
}


def fields_written(steps: Iterable[Step]) -> list[str]:
    """The configuration fields the steps write expecting the write to be taken, in order."""
    out: dict[str, None] = {}
    for st in steps:
        if st.action in STEP_WRITES:
            out.update(dict.fromkeys(STEP_WRITES[st.action]))
        elif st.action == "configure_meter" and st.args.get("expect", "accepted") == "accepted":
            out["meters"] = None
        elif st.action == "configure" and st.args.get("expect", "accepted") == "accepted":
            out.update(dict.fromkeys(field_of_wire(str(k)) for k in dict(st.args.get("set") or {})))
    return list(out)


def never_written(profile: Profile, case: Case) -> str | None:
    """Why a case does not apply: it writes a field the profile says the device never takes."""
    never = [f for f in fields_written(case.steps) if profile.writes(f) == "never"]
    if not never:
        return None
    if all(f in profile.unstated_writes for f in never):
        return (f"profile {profile.name} does not declare {' and '.join(never)} writable (no config_writes entry, "
                f"no capability config-write): what this case checks on a written {never[0]} does not apply")
    return (f"the device refuses {' and '.join(never)} writes (profile {profile.name}, config_writes): what "
            f"this case checks on a written {never[0]} does not apply")


def refusal_permitted(profile: Profile, name: str, shown: Iterable[str] = ()) -> str | None:
    """Why the device may refuse a write of field ``name`` now, or None when it may not: the profile
    declares it writable between rounds, or writable while no meter shows an amount and none does
    (``shown``: the meters showing an amount)."""
    when = profile.writes(name)
    shown = tuple(shown)
    if when == "between-rounds" or (when == "no-amount-shown" and not shown):
        return None
    also = f" ({', '.join(shown)} show amounts)" if when == "no-amount-shown" else ""
    return f"config_writes: {name}: {when}; it {WHEN_TEXT[when]}{also}"


def permitted_refusal(runner: CaseContext, step: Step, name: str, got: str, moot: str) -> None:
    """Record a refusal of ``name`` the profile permits as the device's choice and end the case NOT
    APPLICABLE (``moot``: what of the case no longer applies); return when the refusal is not
    permitted (the caller judges it as before)."""
    when = runner.profile.writes(name)
    if when == "between-rounds":
        return
    shown = [m for m, cents in runner.read_meters().meters.items() if cents > 0] if when == "no-amount-shown" else []
    why = refusal_permitted(runner.profile, name, shown)
    if why is None:
        return
    runner.measure(step, f"{name} write: the device's permitted choice", got, f"accepted, or refused ({why})", True,
                   detail="461a.12(i) constrains changes once a meter shows an amount; no clause requires a "
                   "controller to take the write")
    raise NotApplicableHere(f"the device refuses {name} writes ({why}): {moot}")


#: docs/protocol.md section 6.4: what "live" is; a write refused as live outside it misstates the table
REFUSED_WHILE_LIVE = "contract-6-4-config-set-refused-while-live"


def refused_as_live(runner: CaseContext, step: Step, why: str) -> str | None:
    """The clauses a failing write's measurement cites when the controller refused it as "live" while
    this case had no round open and nothing on the layout (docs/protocol.md section 6.4: live is "a
    round is open or dealing, or any wager is on the layout"): the step's or case's and
    :data:`REFUSED_WHILE_LIVE`.  None where the refusal does not say live or a round of the case is
    open.  Called only for a refusal already judged a FAIL, so it never makes one."""
    if "live" not in why or not runner.round.between_rounds or (runner.round.wagers and not runner.round.settled):
        return None
    return citing_also(runner, step, REFUSED_WHILE_LIVE)


def write_clause(runner: CaseContext, step: Step, *, ok: bool, taken: bool, why: str) -> str | None:
    """The clauses a write's measurement cites: none where it passed or the write was taken, else
    :func:`refused_as_live`'s for the refusal ``why``."""
    return None if ok or taken else refused_as_live(runner, step, why)


#: base-game wagers that open the Royal 9 option at a seat (629a Royal 9 (b))
BASE_WAGERS = ("player", "banker", "tie")


def refusal_reasons(runner: CaseContext, seat: int, kind: str, reason: str) -> tuple[str, ...]:
    """The refusal reasons that each state a true cause when a case expects ``reason``: a Royal 9
    wager at a seat holding no base-game wager this round is also refused ``no-base-wager`` (629a
    Royal 9 (b)), and the contract fixes no order between two causes that both hold (a seat the
    table does not have, a closed layout)."""
    out = [reason]
    if kind == "royal9" and reason != "no-base-wager" and runner.requires_base_wager \
            and not any((seat, base) in runner.round.wagers for base in BASE_WAGERS):
        out.append("no-base-wager")
    return tuple(out)
