"""Cases written for mutants that survived the suites (docs/mutation.md, 'Survivors'): each mutant
emulator, started by ``tablecert run`` with ``TABLECERT_MUTANT``, does not pass the case written for
it.  The mutants are named by what they bend, so an edit elsewhere in the module does not move them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.record import load_record
from harness.selfcheck.mutation import run as mrun

ROOT = Path(__file__).resolve().parents[2]

#: (module, function, operator, the line as it reads) -> (case, profile, the verdicts that kill it)
TARGETS = [
    (("controller", "Controller._round_open", "return-None",
      'return Refusal("REFUSED", f"awaiting the reset key for {\', \'.join(sorted(self.accounts.pending))}")'),
     "suites/progressive/meters.suite.yaml::no-round-while-a-payment-waits", "emulated-midi-5",
     ("FAIL", "ERROR", "TIMEOUT")),
    (("controller", "Controller._round_open", "return-None",
      'return Refusal("REFUSED", "comm-lost: the sensors link is down")'),
     "suites/progressive/limits.suite.yaml::no-round-while-link-down", "emulated-midi-5", ("FAIL", "ERROR", "TIMEOUT")),
    (("shoe", "EmulatedShoe._status", "return-None",
      'return {"state": state, "cards_dealt": self.dealt, "cards_remaining": len(self.cards)}'),
     "suites/washington/wac-230-15-040.suite.yaml::cards-reported-as-dealt", "emulated-midi-5",
     ("FAIL", "ERROR", "TIMEOUT")),
    (("settle", "mystery_hits", "const-0>1",
      'ctrl.emit("payout", seat=seat, type="royal9", category="mystery", stake=0,'),
     "suites/progressive/mystery.suite.yaml::mystery-play-to-award", "emulated-midi-5-mystery", ("FAIL",)),
    (("config", "apply_wire_changes", "drop-assign",
      'new["seats"] = {int(e["seat"]): _combo(e.get("combo")) for e in value}'),
     "suites/royal9/wagering.suite.yaml::r9-combinations-written-between-rounds", "emulated-midi-5", ("FAIL",)),
    # every card after an injected misread read as a misread too: a FAIL, not an ERROR of the round
    # the host cannot settle on (expect_outcome measures the cards the round must use)
    (("shoe", "EmulatedShoe._deal_one", "False>True", "self._misread_next = False"),
     "suites/washington/wac-230-15-040.suite.yaml::misread-card-reported-as-misread", "emulated-ez-baccarat",
     ("FAIL",)),
    # a shuffler pack of 53-card decks: its orders are not the shoe's pack (a contract ERROR)
    (("shoe", "EmulatedShoe.__init__", "const-52>53",
      "self.shuffler = PackShuffler(52 * cfg.decks, cfg.defects, cfg.seed)"),
     "suites/randomness/shuffler.suite.yaml::shuffler-battery", "emulated-midi-5", ("ERROR", "FAIL")),
    # a Hit and Run meter jackpot whose payout says the table paid it
    (("settle", "_settle_hit_and_run", "drop-assign", 'by = "attendant"'),
     "suites/hit-and-run/paytable.suite.yaml::eight-plus-cards-pays-100-percent-of-meter", "emulated-hit-and-run",
     ("FAIL",)),
    # a denomination write ignored: on a $1 table the $5 write below its floors is "accepted"
    (("config", "apply_wire_changes", "drop-assign", 'new["denomination"] = _cents(key, value)'),
     "suites/progressive/meters.suite.yaml::denomination-write-meets-its-floors", "emulated-midi-1", ("FAIL",)),
    (("config", "apply_wire_changes", "drop-assign", 'new["denomination"] = _cents(key, value)'),
     "suites/progressive/meters.suite.yaml::denomination-write-meets-its-floors", "emulated-midi-5", ("FAIL",)),
    # a void round (no card out) never announced: no suite voided a round before
    (("controller", "Controller._round_settle", "drop-call",
      'self.emit("round_end", round=self.round_no, void=True)'),
     "suites/washington/wac-230-15-040.suite.yaml::voided-round-carries-no-wager", "emulated-midi-5",
     ("ERROR", "TIMEOUT", "FAIL")),
    # a table-paid mystery award whose meter reseeds without a `reset` event
    (("settle", "_meter_hit", "drop-call", "after_reset(ctrl, meter)"),
     "suites/progressive/mystery.suite.yaml::mystery-play-to-award", "emulated-midi-5-mystery", ("FAIL",)),
    # a Hit and Run meter hit announced for the meter plus the stake, not the amount the meter shows
    (("settle", "_settle_hit_and_run", "Sub>Add",
      "won = st.returned - (st.stake if ctrl.interp.award_returns_stake else 0)"),
     "suites/hit-and-run/paytable.suite.yaml::eight-plus-cards-hit-is-the-meter-shown", "emulated-hit-and-run",
     ("FAIL",)),
    # a Hit and Run fixed line paid without its `hit` event (expect_payout's line announcement)
    (("settle", "_settle_hit_and_run", "drop-call",
      'ctrl.emit("hit", seat=seat, category=category, meter=None, amount=st.returned - st.stake)'),
     "suites/hit-and-run/paytable.suite.yaml::blackjack-pays-4-for-1", "emulated-hit-and-run", ("FAIL",)),
    # a controller that comes back from a power loss unlocked where it was open before it
    (("controller", "Controller._volatile", "True>False", "self.locked = True"),
     "suites/progressive/limits.suite.yaml::power-lost-with-wagering-open-comes-back-locked", "emulated-midi-5",
     ("FAIL",)),
    # contributions taken at wagering close but written to non-volatile storage only at settlement
    (("controller", "Controller._contribute", "drop-call", "self.save()"),
     "suites/progressive/limits.suite.yaml::power-lost-after-the-lockout-keeps-the-contributions", "emulated-midi-5",
     ("FAIL",)),
    # a fast round's pending settlement left armed: the next round's button settles an empty round
    (("controller", "Controller._lock", "drop-assign", "self.settle_pending = False"),
     "suites/lockout/lockout.suite.yaml::lockout-button-after-a-fast-round", "emulated-midi-5", ("ERROR", "FAIL")),
    # personal combinations written and read back, but play goes on under the filed ones
    (("controller", "Controller._config_set", "drop-call", "self._build_tables()"),
     "suites/royal9/wagering.suite.yaml::r9-combinations-written-are-the-ones-in-play", "emulated-midi-5", ("FAIL",)),
    # the link coming back reported as a second comm-lost closure
    (("controller", "Controller.cable", "And>Or",
      'if not up and "wager-after-comm-loss" not in self.cfg.defects:'),
     "suites/lockout/lockout-reports.suite.yaml::lockout-link-loss-while-locked", "emulated-midi-5", ("FAIL",)),
    # a table parameter write answered OK and ignored
    (("config", "apply_wire_changes", "drop-assign", 'new["decks"] = value'),
     "suites/progressive/limits.suite.yaml::table-parameters-written-between-rounds", "emulated-midi-5", ("FAIL",)),
    # sensors that keep answering with the table's power off
    (("sensors", "Sensors.power_off", "drop-call", "super().power_off()"),
     "suites/progressive/limits.suite.yaml::power-cycle-keeps-meters", "emulated-midi-5", ("ERROR",)),
    # no lock-out timer: wagering closes (dated back) only when something polls, reported late
    (("controller", "Controller.card_out", "drop-assign",
      "self.lock_timer = self.clock.at(self.lock_due_ns, self._lock_timer_fired)"),
     "suites/lockout/lockout.suite.yaml::lockout-reported-as-it-closes", "emulated-midi-5", ("FAIL",)),
    # no settle flag until the first fast round: a link loss on a Hit and Run table answered NAK BUSY
    (("controller", "Controller._volatile", "drop-assign", "self.settle_pending = False"),
     "suites/hit-and-run/meter.suite.yaml::hit-and-run-link-loss-keeps-the-meter", "emulated-hit-and-run",
     ("ERROR", "FAIL")),
]


def _mutant(module: str, function: str, operator: str, code: str) -> str:
    found = [p.id for p in mrun.all_points() if (p.module, p.function, p.operator, p.code.strip())
             == (module, function, operator, code)]
    assert len(found) == 1, (module, function, operator, code, found)
    return found[0]


@pytest.mark.slow  # a certification case on a mutated emulator per target (~30 s each on a loaded machine)
@pytest.mark.parametrize(("where", "case", "profile", "kills"), TARGETS,
                         ids=[f"{t[1].split('::')[1]}-{t[2]}" for t in TARGETS])
def test_the_case_written_for_a_survivor_does_not_pass_its_mutant(tmp_path: Path, where: tuple[str, str, str, str],
                                                                    case: str, profile: str,
                                                                    kills: tuple[str, ...]) -> None:
    mutant = _mutant(*where)
    env = {**os.environ, "TABLECERT_MUTANT": mutant}
    cmd = [sys.executable, "-m", "harness", "run", case, "-q", "--profile",
           str(ROOT / "device_profiles" / f"{profile}.yaml"), "--report-dir", str(tmp_path / "r")]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, check=False)
    assert (tmp_path / "r").is_dir(), proc.stdout[-2000:] + proc.stderr[-2000:]
    (run_dir,) = [d for d in (tmp_path / "r").iterdir() if d.is_dir()]
    (result,) = load_record(run_dir).cases
    assert result.verdict in kills, f"{mutant}: {result.verdict}\n{(result.message or '')[:1500]}"
