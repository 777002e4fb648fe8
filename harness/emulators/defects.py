"""Named defects: each one a single, deliberate deviation of an emulated device from a requirement.

A defect is switched on by name (``tablecert emulate --defect NAME``, ``pytest --tc-defect NAME`` or
the profile's ``emulator.defect``) and read by the state machine at one place with an
``if "name" in self.cfg.defects`` branch (controller.py, settle.py, sensors.py, shoe.py; the
instruments' in scpi.py).  The
harness must catch every one of them: a suite that passes a defective device is a suite that
proves nothing (issue 6).  ``tablecert defects --matrix`` (:mod:`harness.selfcheck.killmatrix`) runs, for
each defect, the suite cases that cite the catalogue clauses in :attr:`Defect.clauses` and
requires at least one of them to FAIL.

Each entry carries the regulation text it breaks twice: ``clause`` is the citation a reader
knows, ``clauses`` the catalogue clause ids (``tablecert catalogue``) a suite case cites.
``table`` names the kind of table the requirement exists on, which the kill matrix maps to a
shipped profile.

To add a defect: add its entry here, then the one ``if "name" in self.cfg.defects`` branch in the
state machine it bends, then make sure some case citing one of its clause ids FAILs on it.

Where a defect bends one of the oracle's pure functions (the tableau, a Royal 9 award, a
paytable, a configuration check), the bent version lives below the registry, so the state
machines keep only their one-line branches.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal, Protocol, Self, TypeVar

from harness.cards import Card
from harness.errors import InputError
from harness.games.baccarat import BANKER_DRAWS, RANK_VALUE, BaccaratRound, deal_round
from harness.games.blackjack import hit_and_run_paytable
from harness.games.payouts import Pay, Settlement, settle
from harness.games.royal9 import HandKey, Royal9Table, SeatResult
from harness.games.streak import STREAK_WAGERS, StreakResolution, StreakTieRule, settle_streak3
from harness.progressive.meter import MeterConfig
from harness.progressive.mystery import TriggerDistribution

#: the kinds of table a requirement exists on (the kill matrix picks a shipped profile for each)
TABLES = ("royal9", "mystery", "baccarat", "ez-baccarat", "hit-and-run", "shuffler", "link", "streak3")
#: ``mystery-past-must-hit-by`` awards this far past must-hit-by (cents)
MYSTERY_PAST_CENTS = 1000
#: ``mystery-wrong-reseed`` starts and reseeds the mystery meter this far below its reseed (cents)
MYSTERY_SHORT_CENTS = 5000


@dataclass(frozen=True)
class Defect:
    name: str
    #: the regulation text it breaks, as a citation
    clause: str
    description: str
    #: the catalogue clause ids it breaks (``harness/regulations/catalogue.yaml``)
    clauses: tuple[str, ...]
    #: the kind of table the requirement exists on, one of :data:`TABLES`
    table: str = "royal9"
    #: why a bench, though it runs the cases citing the clauses, cannot see this defect (a limit of
    #: what a bench observes, listed as such by the kill matrix on bench twins); "" where it can
    off_bench: str = ""


_LOCK = "629a Royal 9 (a)(2)"
_NV = "461a.12(h), (n)"
_R9_RATE = ("pa-midi-r9-f2-rate-5", "pa-midi-r9-g2-rate-1")
_R9_FLOORS = ("pa-midi-r9-floors-5", "pa-midi-r9-floors-1")
_NO_MORE_BETS = ("pa-627a7-c-no-more-bets", "pa-629a7-c-no-more-bets", "pa-631a8-c-no-more-bets")
_HR = "633a.13(l)(1)"
_SHUFFLE = "607a.2(a)(3), (4); 603a.17 devices; GLI-29"
_SHUFFLE_CLAUSE = "pa-607a2-a3-shuffle-random"
#: the shuffler battery judges the pack's order before and after each shuffle card by card; a shoe
#: reads faces, and eight decks hold eight of each, so a bench has those orders only from a marked
#: pack observed by hand (expect_shuffle_random `from: FILE`); the shoe battery on what the shoe
#: deals (loaded in new-deck order, shuffled by the shoe) does not see a shuffle this close to uniform
_SHUFFLE_OFF_BENCH = ("the shuffler battery needs the pack's order before and after each shuffle card by card, "
                      "which a bench has only from a marked pack observed by hand (expect_shuffle_random from: "
                      "FILE); the shoe battery on the faces the shoe deals does not see this defect")

# -- the Mini-Baccarat three-consecutive-games wager ----------------------------------------------
_STREAK3 = "WAC 230-15-040(8)(b)"
_STREAK3_CLAUSE = ("wa-230-15-040-8b-streak3",)
_STREAK3_DEFECTS = (
    Defect("streak3-rides-a-fourth-game", _STREAK3,
           "needs four wins: after its hand has won three consecutive games the wager keeps riding into a "
           "fourth game (and is paid only if the hand wins that one too)", _STREAK3_CLAUSE, "streak3"),
    Defect("streak3-settled-in-one-deal", _STREAK3,
           "settles the three-game wager as a single-deal wager: paid at its odds when its hand wins the "
           "first game", _STREAK3_CLAUSE, "streak3"),
    Defect("streak3-removable-while-riding", _STREAK3,
           "lets a riding wager be withdrawn between its games (the stake handed back, no game decided it)",
           _STREAK3_CLAUSE, "streak3"),
    Defect("streak3-cleared-at-round-open", _STREAK3,
           "opening the next round clears a riding wager off the layout: it is never decided or paid",
           _STREAK3_CLAUSE, "streak3"),
    Defect("streak3-lost-at-power-off", "WAC 230-15-040(8)(b); 461a.12(n) (kept on return of power)",
           "keeps riding wagers in volatile memory only: a power cycle between games loses them",
           _STREAK3_CLAUSE, "streak3"),
)

DEFECTS: dict[str, Defect] = {
    d.name: d
    for d in (
        # -- the lock-out and the wagering system
        Defect("lockout-late", _LOCK, "locks out 5 ms later than configured after the first card",
               ("pa-midi-r9-a2-lockout",)),
        Defect("lockout-missing", _LOCK, "never locks out wagers when cards are dealt",
               ("pa-midi-r9-a2-lockout",)),
        Defect("lockout-early", "629a Royal 9 (a)(1), (a)(2)",
               "refuses wagers as soon as the round opens, before any card is dealt",
               ("pa-midi-r9-a2-lockout", "pa-midi-r9-a1-wagering-device")),
        Defect("wager-after-comm-loss", _LOCK, "accepts wagers while the sensors link is down (no lock-out)",
               ("pa-midi-r9-a2-lockout",)),
        Defect("wager-after-no-more-bets", "627a.7(c), 629a.7(c), 631a.8(c)", "accepts wagers after no more bets",
               _NO_MORE_BETS),
        Defect("config-while-live", "461a.12(i)", "accepts a parameter change while a round is live",
               ("pa-461a12-i-probability-not-decreased",)),
        # -- the bench's instruments (docs/protocol.md section 9)
        Defect("supply-acts-after-opc", "tablecert protocol 1, section 9",
               "the supply's output moves 150 ms after OUTP, though *OPC? answers at once (OUTP? still reads the "
               "old state)", ("contract-9-instruments",)),
        Defect("counter-timeout-in-ms", "tablecert protocol 1, section 9",
               "the counter reads SYST:TIM as milliseconds: a FETC? waiting for a card 300 ms after the arm "
               "answers 9.91E+37", ("contract-9-instruments",)),
        Defect("counter-timeout-inf-zero", "tablecert protocol 1, section 9",
               "the counter parses SYST:TIM INF as the number 0: with no timeout asked for, every measurement "
               "times out at once (FETC? answers 9.91E+37)", ("contract-9-instruments",)),
        Defect("counter-fetch-erases", "tablecert protocol 1, section 9",
               "reading a measurement erases it: FETC? asked again, nothing armed since, is error -230 and no "
               "answer", ("contract-9-instruments",)),
        Defect("supply-opc-output-state", "tablecert protocol 1, section 9",
               "the supply's *OPC? answers its output's state: 0 while the output is off", ("contract-9-instruments",)),
        Defect("counter-conf-stop-slope-negative", "tablecert protocol 1, section 9",
               "CONF:TINT sets the stop channel's slope negative (the lock-out line's fall stops a measurement, not "
               "its rise); an INP2:SLOP POS written after it mends it", ("contract-9-instruments",)),
        Defect("counter-stop-before-start", "tablecert protocol 1, section 9",
               "a stop edge after the arm and before the start edge is taken: FETC? answers a negative interval",
               ("contract-9-instruments",)),
        Defect("supply-on-ignored-while-on", "tablecert protocol 1, sections 7 and 9",
               "the supply takes OUTP ON for nothing while its own setting is on: after the power-loss line fault "
               "the table stays dark until OUTP OFF and OUTP ON", ("contract-9-instruments",)),
        Defect("supply-on-restarts-output", "tablecert protocol 1, section 9",
               "OUTP ON with the output on restarts the output's ramp: the table loses its power for a moment "
               "(an open round and its wagers lost)", ("contract-9-instruments",)),
        Defect("supply-volt-reads-output", "tablecert protocol 1, section 9",
               "VOLT? reads the output's measured voltage, not the setting: 0.000 with the output off",
               ("contract-9-instruments",)),
        Defect("shoe-reboot-keeps-seq", "tablecert protocol 1, sections 4 and 7",
               "the shoe's reboot keeps its event counter: its first card event after it runs on from the last, "
               "not from 1", ("contract-4-event-seq",), table="baccarat"),
        Defect("load-refusal-clears-shoe", "tablecert protocol 1, sections 3 and 7",
               "a test.load the shoe refuses (check_decks: more copies of a card than its decks hold) empties the "
               "shoe all the same", ("contract-7-shoe-refusal",), table="baccarat"),
        Defect("deal-zero-deals-all", "tablecert protocol 1, section 7",
               "a test.deal of count 0 deals every card left, as if no count were given", ("contract-7-shoe-refusal",),
               table="baccarat"),
        Defect("garbage-steps-event-seq", "tablecert protocol 1, sections 4 and 7",
               "each answer the line fault garbage replaces with noise takes an event SEQ: the next event skips "
               "a number", ("contract-4-event-seq",), table="baccarat"),
        Defect("power-loss-duration-ignored", "tablecert protocol 1, section 7",
               "the line fault power-loss ignores its duration_ms: the table stays dark until the bench supply's "
               "OUTP ON", ("contract-7-power-loss",)),
        Defect("len-counts-characters", "tablecert protocol 1, section 2",
               "an answer's LEN counts the payload's characters, not its UTF-8 bytes: an answer echoing a name that "
               "is not ASCII is cut short, fails its CRC and is lost", ("contract-2-frames-sent",)),
        Defect("version-refusal-names-offer", "tablecert protocol 1, section 6.1",
               "a hello offering only versions the device does not speak is refused NAK VERSION with a reason naming "
               "the offer, not the version the device speaks", ("contract-6-1-hello-version",)),
        Defect("resync-slow-after-bad-crc", "tablecert protocol 1, sections 2 and 5",
               "after a frame whose CRC failed the receiver waits 150 ms before it reads on: the next request, sent "
               "at once, is answered past the 100 ms deadline", ("contract-5-answer-time",), table="baccarat"),
        Defect("disconnect-drops-every-line", "tablecert protocol 1, section 7",
               "the line fault disconnect of one device drops every device's line: the others stop answering "
               "until the host opens their lines again", ("contract-7-line-drop",), table="baccarat"),
        Defect("event-seq-one-byte", "tablecert protocol 1, section 4",
               "every device numbers its events in one byte: after 255 the next event is numbered 1",
               ("contract-4-event-seq",)),
        Defect("four-card-round-unsettled", "tablecert protocol 1, section 8",
               "a round complete at four cards (a natural, or both hands standing) is not settled: the controller "
               "waits for a fifth card that never comes, and no round_end is sent",
               ("contract-8-round-on-the-shoes-cards",)),
        Defect("reboot-queues-requests", "tablecert protocol 1, section 7",
               "requests that come while the device is silent in a reboot are kept and answered (and executed) "
               "once it is back, where they time out and are lost", ("contract-7-lost-request",)),
        Defect("no-answer-loses-one", "tablecert protocol 1, section 7",
               "the no-answer line fault loses one request whatever its count: the second of two it should lose "
               "is executed and answered", ("contract-7-lost-request",)),
        Defect("bad-crc-one-more", "tablecert protocol 1, section 7",
               "the bad-crc line fault corrupts one frame more than its count: the answer after the count is "
               "dropped too", ("contract-7-corrupted-answers",)),
        Defect("nak-crc-over-payload", "tablecert protocol 1, section 2",
               "every NAK's CRC is computed over its payload alone, not from VER: the host drops each refusal "
               "and the request that drew it runs out of time", ("contract-2-frames-sent",)),
        Defect("lost-request-executed", "tablecert protocol 1, section 7",
               "a request lost to the no-answer line fault is executed and only its answer lost: a round.open so "
               "lost opens the round", ("contract-7-lost-request",)),
        # -- meters
        Defect("rate-off", "629a Royal 9 (f)(2), (g)(2)",
               "rate of progression 0.01 point above the configured one", _R9_RATE),
        Defect("residual-dropped", "629a Royal 9 (f)(2), (g)(2)",
               "drops the fraction of a cent of every contribution", _R9_RATE),
        Defect("reset-below-floor", "629a Royal 9 (f)(2), (g)(2)",
               "accepts a reset amount below the regulation floor", _R9_FLOORS),
        Defect("reset-zero", "461a.12(b)(5); 629a Royal 9 (f)(2)",
               "resets a hit meter to zero instead of its reset amount",
               ("pa-461a12-b5-reset-mechanism", *_R9_FLOORS)),
        Defect("meter-turned-back", "461a.12(h)",
               "a configuration write to a meter turns it back to its reset amount (no hit)",
               ("pa-461a12-h-no-turning-back",)),
        Defect("power-loses-meters", _NV, "meters restart from their initial amounts on power-up",
               ("pa-461a12-n-meter-kept-on-return", "pa-461a12-h-no-turning-back")),
        Defect("payout-meter-counts-fixed", "461a.12(b)(2)-(4); 461a.1 (progressive payout)",
               "counts the fixed paytable lines on the progressive payout meters (table-paid and cumulative)",
               ("pa-461a12-b2-table-paid-meter", "pa-461a12-b4-cumulative-meter")),
        Defect("payout-limit-below-current", "461a.12(k)(1)",
               "accepts a payout limit at or below the amount on the meter",
               ("pa-461a12-k1-payout-limit",)),
        Defect("meter-wraps", "461a.12(j)",
               "accepts limits past the display capacity, and the display wraps past its capacity",
               ("pa-461a12-j-display-limit",)),
        # -- the mystery progressive
        Defect("mystery-redrawn", _NV,
               "restarts the mystery progressive on every power-up: a new hidden trigger, the meter at its seed",
               ("pa-461a12-n-meter-kept-on-return",), "mystery"),
        Defect("mystery-past-must-hit-by", "629a Royal 9 (h)",
               "the mystery meter passes must-hit-by by $10 before it awards", ("pa-midi-r9-h-must-hit-by",),
               "mystery"),
        Defect("mystery-discarded", "461a.12(h)",
               "accepts a configuration write removing the mystery progressive after play has funded its meter "
               "(the funded amount is discarded)", ("pa-461a12-h-no-turning-back",), "mystery"),
        Defect("mystery-left-pending", "461a.12(b)(2), (b)(5)",
               "keeps a mystery award the table paid waiting for the reset key (the next round is refused until "
               "the key is turned)", ("pa-461a12-b2-table-paid-meter", "pa-461a12-b5-reset-mechanism"), "mystery"),
        Defect("mystery-wrong-reseed", "629a Royal 9 (h)",
               "the mystery meter starts at and reseeds to $50 below the configuration's reseed",
               ("pa-midi-r9-h-reseed",), "mystery"),
        # -- Royal 9 outcomes and paytables
        Defect("r9-suited-paid-as-plain", "629a Royal 9 (e)(2), (f)(1), (g)(1)",
               "pays a suited Royal 9 as a plain Royal 9",
               ("pa-midi-r9-e2-suited-royal9", "pa-midi-r9-f1-suited-royal9", "pa-midi-r9-g1-suited-royal9")),
        Defect("r9-ten-is-face", "629a Royal 9 (b)", "counts a ten as a face card (a ten and a nine pay)",
               ("pa-midi-r9-b-face-and-nine",)),
        Defect("r9-mega-envy-unpaid", "629a Royal 9 (e)(9), (f)(1), (g)(1)", "never pays mega envy",
               ("pa-midi-r9-e9-mega-envy", "pa-midi-r9-f1-mega-envy", "pa-midi-r9-g1-mega-envy")),
        Defect("r9-mega-wrong-seat", "629a Royal 9 (e)(6), (f)(1), (g)(1)",
               "pays the mega jackpot to the next wagering seat instead of the combination's owner",
               ("pa-midi-r9-e6-mega", "pa-midi-r9-f1-mega", "pa-midi-r9-g1-mega")),
        Defect("seat-without-combo", "WAC 230-15-040(2)(b)",
               "the last seat has no personal combination (that area can win less than the others)",
               ("wa-230-15-040-2b-identical-areas",)),
        Defect("extra-wager-type", "WAC 230-15-040(3), (5)(a)(ii)",
               "accepts (and settles) Dragon 7 and Panda 8 wagers on a table whose Rules Submission does not "
               "offer them",
               ("wa-230-15-040-5a-ii-no-bonus-wager",)),
        Defect("tableau-b3-p8", "627a.11(a), 629a.11(a), 631a.12(a) (third-card rules)",
               "on a Midibaccarat table the Banker draws on 3 against a Player third card of 8 (the tableau says "
               "stand)", ("pa-bac-final-hands",)),
        Defect("r9-combo-ignores-suits", "629a Royal 9 (e)(5)",
               "matches personal combinations by rank only: any king-9 is the lowest seat's",
               ("pa-midi-r9-e5-personal-combinations",)),
        # -- baccarat and EZ Baccarat
        Defect("tableau-wrong-cell", "627a.11(a), 629a.11(a), 631a.12(a) (third-card rules)",
               "the Banker stands on 6 against a Player third card of 6 (the tableau says draw)",
               ("pa-bac-final-hands",), "baccarat"),
        Defect("natural-does-not-stop", "627a.1, 629a.1, 631a.1 (Natural)",
               "a natural does not stop the deal: the controller applies the third-card rules",
               ("pa-bac-natural",), "baccarat"),
        Defect("dragon7-no-banker-push", "629a.2(b)(6)(ii) and peers",
               "pays a Banker wager even money on a Dragon 7 instead of pushing it",
               ("pa-ez-banker-push-on-dragon7",), "ez-baccarat"),
        Defect("panda8-wrong-odds", "629a.12(g) and peers", "pays Panda 8 at 25 for 1 instead of 25 to 1",
               ("pa-ez-panda8",), "ez-baccarat"),
        Defect("dragon7-on-tie", "629a.2(b)(6) and peers (Dragon 7)",
               "pays the Dragon 7 wager on a Banker three-card 7 that only ties the Player (the Banker does not win)",
               ("pa-ez-dragon7-loses",), "ez-baccarat"),
        # -- Blackjack Hit and Run
        Defect("hr-pre-2012-paytable", _HR,
               "pays the superseded paytable: seven cards 100 for 1, five cards 7 for 1",
               ("pa-633a13-l1-7-cards", "pa-633a13-l1-5-cards", "pa-633a13-l1-paytable"), "hit-and-run"),
        Defect("hr-second-winner-unpaid", _HR,
               "of two wagers winning the eight-or-more line on one hand, pays only the first",
               ("pa-633a13-l1-8-plus-cards",), "hit-and-run"),
        Defect("hr-for-paid-as-to", _HR, "pays the \"N for 1\" lines as \"N to 1\" (one stake too many)",
               ("pa-633a13-l1-paytable", "pa-633a13-l1-blackjack", "pa-633a13-l1-5-cards",
                "pa-633a13-l1-6-cards", "pa-633a13-l1-7-cards"), "hit-and-run"),
        # -- the shuffler built into the shoe (sizes: harness.randomness.settings.ShufflerDefects)
        *(Defect(name, _SHUFFLE, description, (_SHUFFLE_CLAUSE,), "shuffler", _SHUFFLE_OFF_BENCH)
          for name, description in (
              ("shuffler-few-riffles", "shuffles by 10 riffle passes (riffle residue: too few rising sequences)"),
              ("shuffler-biased-cut", "shuffles by 12 riffle passes, each cut Binomial(n, 0.3)"),
              ("shuffler-stuck-card", "the bottom card stays in the bottom tenth of the pack one shuffle in four"),
              ("shuffler-short-period", "the shuffler's generator repeats every 100 shuffles"),
          )),
        # -- the shoe
        Defect("shoe-misread", "WAC 230-15-040(1)",
               "the shoe reads every six as the nine of the same suit (reported and passed on)",
               ("wa-230-15-040-1-standard-cards",)),
        # -- the Mini-Baccarat three-consecutive-games wager (WAC 230-15-040(8)(b)); bent settlement:
        #    bent_streak3 below; the layout: sensors.py (removal), controller.py (round.open, power-up)
        *_STREAK3_DEFECTS,
    )
}


# -- linked progressives (a link profile: one link controller, several tables; harness.link) -------
# Each bends one step of the link controller (harness.emulators.link_controller) or, for the names
# in LINK_TABLE_DEFECTS, of the last table of the link (the rig gives those to that table alone).

#: ``link-table-rate-off`` counts the last table's wagers this many points of percent above its rate
LINK_RATE_OFF = Decimal("0.25")
_LINK_RATE = ("pa-461a12-c2-same-wager-same-rate",)
LINK_DEFECTS: dict[str, Defect] = {
    d.name: d
    for d in (
        Defect("link-table-rate-off", "461a.12(c)(2)",
               "the controller counts the last table's wagers 0.25 point above the rate that table files for "
               "the common meter (its configuration still reads the filed rate)", _LINK_RATE, "link"),
        Defect("link-table-decks-off", "461a.12(c)(1)",
               "the last table of the link deals from two decks fewer than it files (two more on one or two decks) "
               "and says so: its wagers hit the common meter with another probability",
               ("pa-461a12-c1-same-probability",), "link"),
        Defect("link-contribution-recounted", "461a.12(c)(2)",
               "a contribution the table sends again after a reconnection (its answer was lost) is counted again",
               _LINK_RATE, "link"),
        Defect("link-hit-paid-twice", "461a.12(b)(1), (b)(4)",
               "the second claim of a simultaneous hit on a common meter is booked twice (two hits, two payments)",
               ("pa-461a12-b4-cumulative-meter", "pa-461a12-b1-meter-shows-award"), "link"),
        Defect("link-hit-reset-twice", "461a.12(h), (h)(1)",
               "the second claim of a simultaneous hit resets the common meter again: the contributions held "
               "since the first claim are discarded", ("pa-461a12-h-no-turning-back",
                                                      "pa-461a12-h1-reset-after-payment"), "link"),
        Defect("link-table-playable-offline", "461a.12(b)(1), (c)(2)",
               "the last table accepts Royal 9 wagers while it is off the link (it cannot show what the common "
               "meter would pay)", ("pa-461a12-b1-meter-shows-award", *_LINK_RATE), "link"),
    )
}
#: link defects that bend a table, not the link controller
LINK_TABLE_DEFECTS = frozenset({"link-table-decks-off", "link-table-playable-offline"})
DEFECTS.update(LINK_DEFECTS)


# -- defects of the shapes a sampling suite misses ---------------------------------------------------
# A device built independently from docs/protocol.md and the regulations passed certification with
# defects of a few shapes: a probe that samples some seats, wager types, meters or fields instead
# of covering them; a refusal judged by its answer alone, not by the trace it left; a state after
# a change (a written rate, a second award, a reset key with nothing pending) never exercised; and
# an intermittent fault timed on two rounds only.  Each defect below is one such way a vendor's
# firmware goes wrong; the branches that bend the emulators call harness.emulators.defect_branches.
#: ``lockout-late-intermittent`` is late on every round whose number is a multiple of this
INTERMITTENT_EVERY = 20
_TRACE = ("pa-midi-r9-a2-lockout", "pa-midi-r9-a2-monitor")

DEFECTS.update({
    d.name: d
    for d in (
        # -- sampling instead of covering
        Defect("lockout-seat-open", f"{_LOCK}; 627a.7(c), 629a.7(c), 631a.8(c)",
               "the wagering device at the table's second seat is left out of the lock-out and of no more bets: "
               "it still accepts wagers after either", ("pa-midi-r9-a2-lockout", *_NO_MORE_BETS)),
        Defect("side-wagers-open", "627a.7(c), 629a.7(c), 631a.8(c); 629a Royal 9 (a)(2)",
               "the Dragon 7 and Panda 8 wagers are left out of the lock-out and of no more bets: accepted "
               "after either", (*_NO_MORE_BETS, "pa-midi-r9-a2-lockout"), "ez-baccarat"),
        Defect("display-limit-one-cent-over", "461a.12(j)",
               "accepts a minor payout limit of exactly one cent more than the minor display capacity",
               ("pa-461a12-j-display-limit",)),
        Defect("floor-major-initial-unchecked", "629a Royal 9 (f)(2), (g)(2)",
               "holds the major meter's reset amount to the floor but not its initial amount", _R9_FLOORS),
        Defect("mega-hit-unmetered", "461a.12(b)(3), (b)(4)",
               "a mega jackpot the attendant pays is left off the attendant-paid and cumulative payout meters",
               ("pa-461a12-b3-attendant-paid-meter", "pa-461a12-b4-cumulative-meter")),
        # -- a refusal judged by its answer alone
        Defect("refused-wager-counted", f"{_LOCK}; 629a Royal 9 (f)(2), (g)(2)",
               "a Royal 9 wager refused after the lock-out (the first card or the button) is still counted "
               "into the meters", _TRACE),
        # -- the state after a change
        Defect("rate-write-deferred", "629a Royal 9 (f)(2), (g)(2); 461a.12(c)(2)",
               "a rate of progression written through the configuration interface is read back at once but "
               "only used from the next power-up: until then play goes on at the power-up rate", _R9_RATE),
        Defect("reset-key-idle-resets", "461a.12(b)(5), (h)",
               "the reset key turned with no hit pending resets that meter to its reset amount",
               ("pa-461a12-b5-reset-mechanism", "pa-461a12-h-no-turning-back")),
        Defect("residual-dropped-at-reset", "629a Royal 9 (f)(2), (g)(2); 461a.12(h)(1)",
               "a jackpot meter drops its fraction of a cent when it resets, where the Rules Submission carries "
               "it (meter-residual-on-reset carry)", (*_R9_RATE, "pa-461a12-h1-reset-after-payment")),
        Defect("mystery-second-award-late", "629a Royal 9 (h)",
               "after its first award the mystery meter re-arms its hidden trigger past must-hit-by: every later "
               "award comes $10 past it", ("pa-midi-r9-h-must-hit-by",), "mystery"),
        Defect("mystery-rewrite-disarms", "629a Royal 9 (h)",
               "the configuration in force written again after play disarms the hidden trigger: the next award "
               "comes $10 past must-hit-by", ("pa-midi-r9-h-must-hit-by",), "mystery"),
        Defect("base-withdrawn-under-royal9", "629a Royal 9 (b); 629a.7(b)",
               "the base wager may be withdrawn from under a standing Royal 9 wager, which then stands and is "
               "settled with no Midibaccarat wager at its seat", ("pa-midi-r9-b-requires-base-wager",)),
        # -- a case testing something other than its title
        Defect("royal9-open-after-lockout", _LOCK,
               "the Royal 9 wager is left out of the lock-out (the first card, the button): accepted after it, "
               "while the base wagers are refused", ("pa-midi-r9-a2-lockout",)),
        # -- intermittent faults
        Defect("lockout-late-intermittent", _LOCK,
               f"one round in {INTERMITTENT_EVERY} (each round whose number is a multiple of "
               f"{INTERMITTENT_EVERY}) locks out 5 ms later than configured", ("pa-midi-r9-a2-lockout",)),
    )
})


def check_defects(names: Iterable[str]) -> None:
    """Refuse an unknown defect name (a typo must not silently run a clean device)."""
    for name in names:
        if name not in DEFECTS:
            raise InputError(f"defect {name!r}: unknown (known: {', '.join(sorted(DEFECTS))})")


# -- the bent functions ---------------------------------------------------------------------------

def baccarat_round(cards: Sequence[Card], defects: Collection[str] = ()) -> BaccaratRound:
    """The round a controller sees in ``cards``: the oracle's, unless a tableau defect is on."""
    if "natural-does-not-stop" in defects or "tableau-wrong-cell" in defects or "tableau-b3-p8" in defects:
        return _bent_round(cards, defects)
    return deal_round(cards)


def _bent_round(cards: Sequence[Card], defects: Collection[str]) -> BaccaratRound:
    """:func:`~harness.games.baccarat.deal_round` with one defect: a natural that does not stop the
    deal (the third-card rules run anyway), or the Banker standing on 6 against a Player third card
    of 6 (the tableau's cell says draw)."""
    def card(k: int) -> Card:
        if k >= len(cards):
            raise InputError(f"round needs card {k + 1}")
        return cards[k]

    v = RANK_VALUE
    player, banker = [card(0), card(2)], [card(1), card(3)]
    pt, bt = (v[player[0].rank] + v[player[1].rank]) % 10, (v[banker[0].rank] + v[banker[1].rank]) % 10
    natural = pt >= 8 or bt >= 8
    if natural and "natural-does-not-stop" not in defects:
        return deal_round(cards)
    used, p3 = 4, None
    if pt <= 5:
        player.append(card(used))
        p3, used = v[player[2].rank], used + 1
    draws = bt <= 5 if p3 is None else BANKER_DRAWS[bt][p3]
    if "tableau-wrong-cell" in defects and bt == 6 and p3 == 6:
        draws = False
    if "tableau-b3-p8" in defects and bt == 3 and p3 == 8:
        draws = True
    if draws:
        banker.append(card(used))
        used += 1
    pt, bt = sum(v[c.rank] for c in player) % 10, sum(v[c.rank] for c in banker) % 10
    winner: Literal["player", "banker", "tie"] = "player" if pt > bt else "banker" if bt > pt else "tie"
    return BaccaratRound(tuple(player), tuple(banker), pt, bt, winner, natural,
                         winner == "banker" and bt == 7 and len(banker) == 3,
                         winner == "player" and pt == 8 and len(player) == 3, used)


class RankOnlyCombos(Royal9Table):
    """The ``r9-combo-ignores-suits`` defect: personal combinations compared by rank only, so every
    king-9 is taken for the lowest seat's combination (629a Royal 9 (e)(5) says each is unique)."""

    def owner(self, key: HandKey) -> int | None:
        if key is None or key[0].rank != 13:
            return None
        return min(self.seat_combos, default=None)


def bent_royal9(seats: Sequence[SeatResult], defects: Collection[str], plain: Pay,
                award_returns_stake: bool) -> list[SeatResult]:
    """The Royal 9 results as a controller with an award defect pays them (``plain``: the Royal 9
    line's pay, for ``r9-suited-paid-as-plain``)."""
    out = list(seats)
    for i, sr in enumerate(out):
        stake = sr.settlement.stake if sr.settlement is not None else 0
        if "r9-mega-envy-unpaid" in defects and sr.category == "mega-envy":
            out[i] = dataclasses.replace(sr, awarded=(), pays=(), settlement=Settlement(stake, 0), meters_hit=())
        elif "r9-suited-paid-as-plain" in defects and sr.category == "suited-royal9":
            kept = stake if award_returns_stake else 0
            out[i] = dataclasses.replace(sr, awarded=("royal9",), pays=(plain,),
                                         settlement=Settlement(stake, kept + int(plain.value)))
    winner = next((i for i, sr in enumerate(out) if "mega" in sr.awarded), None)
    if "r9-mega-wrong-seat" in defects and winner is not None:
        others = [i for i, sr in enumerate(out) if sr.wager and i != winner]
        if others:  # the next wagering seat after the owner, wrapping round the table
            j = next((i for i in others if i > winner), others[0])
            a, b = out[winner], out[j]
            moved = ("qualifies", "awarded", "pays", "settlement", "meters_hit")
            out[winner] = dataclasses.replace(a, **{f: getattr(b, f) for f in moved})
            out[j] = dataclasses.replace(b, **{f: getattr(a, f) for f in moved})
    return out


def hr_paytable(defects: Collection[str]) -> Mapping[str, Pay] | None:
    """The Hit and Run paytable a defective controller pays by (``None``: 633a.13(l)(1) as amended)."""
    if "hr-pre-2012-paytable" not in defects and "hr-for-paid-as-to" not in defects:
        return None
    table = hit_and_run_paytable()
    if "hr-pre-2012-paytable" in defects:
        table.update({"7-cards": Pay("for", Decimal(100)), "5-cards": Pay("for", Decimal(7))})
    if "hr-for-paid-as-to" in defects:
        table = {c: Pay("to", p.value, p.meter) if p.kind == "for" else p for c, p in table.items()}
    return table


# -- the Mini-Baccarat three-consecutive-games wager ----------------------------------------------

def bent_streak3(kind: str, games: Sequence[str], stake: int, pay: Pay, tie_rule: StreakTieRule,
                 defects: Collection[str]) -> tuple[StreakResolution, Settlement | None]:
    """:func:`~harness.games.streak.settle_streak3` as a controller with a streak defect settles the
    wager after ``games`` (the winners of the games it took part in, the latest last)."""
    res, st = settle_streak3(kind, games, stake, pay, tie_rule=tie_rule)
    side = STREAK_WAGERS[kind]
    if "streak3-settled-in-one-deal" in defects and res.result == "open":
        return StreakResolution(kind, "win", 1, 1), settle(pay, stake)  # the first game's win, paid at once
    if "streak3-rides-a-fourth-game" in defects and res.result == "win":
        if len(games) == 3:
            return StreakResolution(kind, "open", 3, 3), None
        fourth = games[3]
        if fourth == side:
            return StreakResolution(kind, "win", 4, 4), settle(pay, stake)
        if fourth == "tie" and tie_rule == "push":
            return StreakResolution(kind, "push", 4, 3), settle(Pay("push"), stake)
        return StreakResolution(kind, "lose", 4, 3), settle(Pay("lose"), stake)
    return res, st


class MeteredConfig(Protocol):
    """What the two functions below need of an emulator's configuration (an ``EmulatorConfig``)."""

    @property
    def meters(self) -> Mapping[str, MeterConfig]: ...

    def with_changes(self, **changes: Any) -> Self: ...


_C = TypeVar("_C", bound=MeteredConfig)


def unchecked_resets(cfg: _C) -> _C:
    """``cfg`` as the ``reset-below-floor`` defect checks it: each reset amount taken as the initial
    amount, so a reset below the floor goes unnoticed (629a Royal 9 (f)(2), (g)(2))."""
    return cfg.with_changes(meters={n: dataclasses.replace(m, reset=max(m.reset, m.initial))
                                    for n, m in cfg.meters.items()})


def unchecked_display(cfg: _C) -> _C:
    """``cfg`` as the ``meter-wraps`` defect checks it: no display capacity (461a.12(j))."""
    return cfg.with_changes(meters={n: dataclasses.replace(m, display_capacity=None)
                                    for n, m in cfg.meters.items()})


# == the mystery controller's trigger law (Royal 9 (h) "random must hit by amount") ================
# Each defect bends how the emulated controller draws its hidden mystery triggers; every award stays
# within [reseed, must-hit-by], so only the distribution of the awards over many of them shows it
# (suites/randomness/mystery.suite.yaml; the plan: harness.randomness.power.trigger_law_need).

_RANDOM_TRIGGER = "pa-midi-r9-h-random-trigger"

MYSTERY_TRIGGER_DEFECTS: tuple[Defect, ...] = (
    Defect("mystery-trigger-at-must-hit-by", "629a Royal 9 (h)",
           "draws every hidden mystery trigger at exactly must-hit-by", (_RANDOM_TRIGGER,), "mystery"),
    Defect("mystery-trigger-reseed-plus-one", "629a Royal 9 (h)",
           "draws every hidden mystery trigger at the reseed plus one cent", (_RANDOM_TRIGGER,), "mystery"),
    Defect("mystery-trigger-lower-half", "629a Royal 9 (h)",
           "draws every hidden mystery trigger uniformly in the lower half of [reseed, must-hit-by]",
           (_RANDOM_TRIGGER,), "mystery"),
)
DEFECTS.update({d.name: d for d in MYSTERY_TRIGGER_DEFECTS})


class BentTrigger:
    """A trigger law a defective controller draws by (``kind``: at-must-hit-by, reseed-plus-one,
    lower-half); :meth:`probability` is the bent law's own, for white-box tests."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.name = f"bent:{kind}"

    def _range(self, low: int, high: int) -> tuple[int, int]:
        if self.kind == "at-must-hit-by":
            return high, high
        if self.kind == "reseed-plus-one":
            return min(low + 1, high), min(low + 1, high)
        return low, (low + high) // 2

    def draw(self, rng: random.Random, low: int, high: int) -> int:
        a, b = self._range(low, high)
        return rng.randint(a, b)

    def probability(self, low: int, high: int, a: int, b: int) -> Fraction:
        lo, hi = self._range(low, high)
        a, b = max(a, lo), min(b, hi)
        return Fraction(max(0, b - a + 1), hi - lo + 1)


def trigger_law(law: TriggerDistribution, defects: Collection[str]) -> TriggerDistribution:
    """The law the controller draws its mystery triggers by: ``law`` (the declared one) unless a
    trigger defect is on."""
    for d in MYSTERY_TRIGGER_DEFECTS:
        if d.name in defects:
            return BentTrigger(d.name.removeprefix("mystery-trigger-"))
    return law
