"""Whether a case applies to a profile: the case's capabilities, game, jurisdiction, denomination and
interpretations against the profile's, the device contract, the configuration writes the profile
permits, and who on its bench can carry out the case's acts.

A case that does not apply is NOT APPLICABLE with the reason given here: the loader
(:mod:`harness.suites.load.schema`) leaves its steps unresolved, the plugin counts what a run can certify,
and the session (:mod:`harness.suites.run.session`) records it without running it.
"""

from __future__ import annotations

from typing import Any

from harness.games.interpretations import Interpretations
from harness.profiles.model import Profile
from harness.regulations.catalogue import load_catalogue
from harness.suites.load.model import Case
from harness.suites.steps.contract import outside_contract
from harness.suites.steps.permitted import never_written
from harness.suites.steps.registry import acts_of, steps


def not_applicable(profile: Profile, interp: Interpretations, case: Case) -> str | None:
    """Why a case does not apply to a profile, or None: a capability it lacks, another game, another
    denomination, another interpretation in force.  A link profile takes the link's cases only."""
    if profile.link is not None and "link" not in case.requires:
        return (f"profile {profile.name} is a link of {len(profile.link.tables)} tables: it runs the cases that "
                "require link; a single-table case runs on a table's own profile")
    missing = sorted(case.requires - profile.capabilities)
    if missing:
        return f"profile {profile.name} lacks capability {', '.join(missing)}"
    if case.games and profile.game not in case.games:
        return f"case is for {', '.join(sorted(case.games))}; profile game is {profile.game}"
    elsewhere = _other_jurisdiction(profile, case)
    if elsewhere:
        return elsewhere
    den = case.when.get("denomination")
    if den is not None and profile.rules.denomination != den:
        return f"case is for the ${den} denomination; profile offers ${profile.rules.denomination}"
    in_force = interp.as_dict()
    for key, value in dict(case.when.get("interpretations") or {}).items():
        if in_force.get(key) != value:
            return f"case is for interpretation {key} = {_written(value)}; profile has {_written(in_force.get(key))}"
    excluded = _excluded_by_interpretation(in_force, case)
    if excluded:
        return excluded
    outside = outside_contract(profile, case)
    if outside:
        return outside
    refused = never_written(profile, case)
    if refused:
        return refused
    if case.not_for_table:
        return f"the Rules Submission of profile {profile.name} has no place for it: {case.not_for_table}"
    return no_performer(profile, case) or unfit_step(profile, case)


def unfit_step(profile: Profile, case: Case) -> str | None:
    """Why a step of the case cannot be played on the profile's table at all (the step's ``unfit``), or None."""
    for s in case.steps:
        spec = steps()[s.action].spec if s.action in steps() else None
        why = spec.unfit(profile) if spec is not None and spec.unfit is not None else None
        if why:
            return f"step {s.action}: {why}"
    return None


def _written(value: Any) -> str:
    """A value as a profile writes it (``true``, not Python's ``True``)."""
    return str(value).lower() if isinstance(value, bool) or value is None else str(value)


def _other_jurisdiction(profile: Profile, case: Case) -> str | None:
    """A case every clause of which belongs to a jurisdiction the profile is not certified for."""
    if not profile.jurisdictions or not case.clauses:
        return None
    catalogue = load_catalogue()
    theirs = {catalogue.applies(c).jurisdiction for c in case.clauses if catalogue.has(c)}
    theirs.discard("")
    if not theirs or theirs & set(profile.jurisdictions):
        return None
    return (f"case is for {', '.join(sorted(theirs))}; profile {profile.name} is certified for "
            f"{', '.join(profile.jurisdictions)}")


#: interpretation -> the value under which the clauses it bears on are not part of the certification
SCOPE_INTERPRETATIONS = {"meter-461a12-applies-to-tables": False}


def _excluded_by_interpretation(in_force: dict[str, Any], case: Case) -> str | None:
    """A case whose every clause is one an interpretation in force takes out of the certification
    (``meter-461a12-applies-to-tables`` false: the slot-machine meter rules do not apply to tables)."""
    for interp_id, out_value in SCOPE_INTERPRETATIONS.items():
        if in_force.get(interp_id) != out_value:
            continue
        scoped = set(load_catalogue().interpretation(interp_id).clauses)
        if case.clauses and set(case.clauses) <= scoped:
            return (f"interpretation {interp_id} = {str(out_value).lower()}: its clauses are not part of this "
                    "certification")
    return None


def no_performer(profile: Profile, case: Case) -> str | None:
    """Why no one on the profile's bench can carry out an act the case needs (harness.bench), or None."""
    for s in case.steps:
        for act in acts_of([s.action], [dict(s.args)]):
            why = profile.bench.why_not(act)
            if why:
                instead = steps()[s.action].spec.acts_unless if s.action in steps() else ()
                return why + "".join(f"; or give {s.action} what the bench observed ({a}: FILE)" for a in instead)
    return None
