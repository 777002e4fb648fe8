"""The model's rules: each names the clause it comes from and the line of docs/protocol.md.

A rule is registered once, by name (:func:`rule`); the model says which rules each step applied, the
explorer counts them (coverage), and a finding cites the rule whose expectation the device broke: its
clause goes into the YAML case it writes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    #: a testable clause id of the regulation catalogue (``tablecert catalogue``)
    clause: str
    #: where the rule is written, for a person
    source: str
    text: str


RULES: dict[str, Rule] = {}


def rule(name: str, clause: str, source: str, text: str) -> Rule:
    """Register one rule (a name registered twice is a programming error)."""
    if name in RULES:
        raise ValueError(f"rule {name!r} registered twice")
    RULES[name] = Rule(name, clause, source, text)
    return RULES[name]


OPEN = rule("round-open", "pa-461a12-b5-reset-mechanism", "docs/protocol.md section 8",
            "round.open opens wagering with the next round number; REFUSED while a round is unsettled, a "
            "payment waits for the reset key, or the sensors link is down")
ROUND_NUMBER = rule("round-number", "pa-461a12-n-meter-kept-on-return", "docs/protocol.md sections 6.4, 8 (Power)",
                    "round numbers go up by one, across power cycles (the round number is non-volatile)")
WAGER_ACCEPT = rule("wager-accepted", "pa-midi-r9-a1-wagering-device", "docs/protocol.md section 6.3",
                    "a wager placed while wagering is open is accepted and listed; placed again it replaces the "
                    "amount")
WAGER_REFUSE = rule("wager-refused", "pa-midi-r9-a2-lockout", "docs/protocol.md sections 6.3, 8, 12",
                    "a wager is refused, with a reason of section 12, when wagering is closed, the seat, type or "
                    "amount is not the table's, or the link is down; a refused wager leaves no trace")
BASE_WAGER = rule("royal9-needs-base", "pa-midi-r9-b-requires-base-wager", "docs/protocol.md section 6.3",
                  "a Royal 9 wager is refused no-base-wager at a seat without a Player, Banker or Tie wager, and "
                  "the base wager cannot be withdrawn from under it")
REMOVE = rule("wager-removed", "pa-629a7-c-no-more-bets", "docs/protocol.md section 6.3",
              "wager.remove takes a wager off while wagering is open; REFUSED once it closes or with no such "
              "wager")
LOCKOUT = rule("lockout", "pa-midi-r9-a2-lockout", "docs/protocol.md section 8",
               "wagering closes on the first card, the lock-out button, no more bets and a lost link, with that "
               "cause; lockout.get reports it")
NMB = rule("no-more-bets", "contract-8-round-commands-refused", "docs/protocol.md section 8",
           "round.no_more_bets closes wagering with cause no-more-bets; REFUSED with no round open; every "
           "no_more_bets event names the round in play (section 6.4)")
CONTRIBUTE = rule("contribution", "pa-midi-r9-f2-rate-5", "docs/protocol.md section 8",
                  "when wagering closes each Royal 9 wager adds wager x rate to every meter, the whole cents to "
                  "the meter and the fraction to its residual, exactly, at the rates in force")
CAP = rule("meter-cap", "pa-461a12-j-display-limit", "docs/protocol.md section 6.4 (Meters)",
           "a meter stops at its payout limit or display capacity; the excess is diverted, never dropped")
SETTLE = rule("settlement", "pa-bac-final-hands", "docs/protocol.md section 8",
              "the round's last card settles every wager on the layout once, at the stake accepted, as the "
              "oracle pays the cards at the paytable of the denomination in force; the layout is cleared")
ROYAL9_PAY = rule("royal9-settlement", "pa-midi-r9-b-face-and-nine", "docs/protocol.md section 8",
                  "every Royal 9 wager is settled as the Royal 9 oracle pays the first four cards")
HIT = rule("meter-hit", "pa-461a12-b1-meter-shows-award", "docs/protocol.md section 8",
           "a meter jackpot pays what the meter shows; the meter keeps showing it and the payment is pending "
           "until the reset key")
PAYOUT_METERS = rule("payout-meters", "pa-461a12-b4-cumulative-meter", "docs/protocol.md section 6.4 (Meters)",
                     "the payout meters count progressive awards only, when paid (at the reset key for an "
                     "attendant); never a fixed paytable line")
RESET_KEY = rule("reset-key", "pa-461a12-b5-reset-mechanism", "docs/protocol.md sections 6.4, 8",
                 "the reset key resets a meter whose payment is pending to its reset amount, sends its reset "
                 "event and books the payment; with nothing pending it is REFUSED and changes nothing")
NO_TURN_BACK = rule("no-turning-back", "pa-461a12-h-no-turning-back", "docs/protocol.md section 6.4",
                    "a meter moves only by contributions, a paid hit and its reset: never by a configuration "
                    "write, a refusal or a power cycle")
CONFIG_LIVE = rule("config-live", "pa-461a12-i-probability-not-decreased", "docs/protocol.md section 6.4",
                   "config.set is REFUSED while a round is open or dealing or a wager is on the layout")
CONFIG_RANGE = rule("config-range", "contract-6-4-config-set-arguments", "docs/protocol.md section 6.4",
                    "config.set below a floor or outside a limit is refused and changes nothing (no field "
                    "applied); one inside the ranges is taken whole or refused whole")
CONFIG_FLOOR = rule("config-floor", "pa-midi-r9-floors-5", "docs/protocol.md section 6.4",
                    "initial and reset amounts below the Royal 9 floors of the denomination are refused")
CONFIG_LIMIT = rule("config-limit", "pa-461a12-k1-payout-limit", "docs/protocol.md section 6.4",
                    "a payout limit at or below the meter's amount, or past its display capacity, is refused")
CONFIG_AS_FILED = rule("config-as-filed", "pa-midi-r9-f2-rate-5", "docs/protocol.md section 6.4",
                       "config.get reads the Rules Submission at the start, and every write taken afterwards")
POWER = rule("power", "pa-461a12-n-meter-kept-on-return", "docs/protocol.md section 8 (Power)",
             "after a power cycle the controller is idle and locked (cause power), the layout is empty; "
             "configuration, meters, residuals, payout meters, pending payments and the round number are kept")
LINK = rule("link-loss", "pa-midi-r9-a2-lockout", "docs/protocol.md section 8 (Link loss)",
            "a lost sensors link closes wagering (comm-lost), wagers are refused comm-lost and round.open is "
            "REFUSED until it is back; the meters are untouched")
SHOE = rule("shoe", "pa-midi-r9-c-deal-order", "docs/protocol.md section 6.2",
            "shoe.status counts the cards dealt since the shoe was loaded and those still in it, and says "
            "dealing while a deal is in progress (read during a paced deal, section 12); once a deal is over "
            "the last card's n and cards_dealt agree")
IDENTITY = rule("identity", "pa-607a2-b2ii-asset-or-game-type", "docs/protocol.md section 6.1",
                "the identity names the profile's game where it reports a game type, and does not change")
LATENCY = rule("lockout-latency", "pa-midi-r9-a2-lockout", "629a Royal 9 (a)(2); docs/protocol.md sections 5, 8",
               "in every round whose first card closes wagering, the lock-out comes within the profile's limit "
               "(lockout-latency-limit-ms, else timing.lockout_deadline_ms) of that card: timed by the "
               "time-interval counter where the bench has one, else by the host's receive stamps, which decide "
               "only farther from the limit than the bench's host-stamp jitter; a counter that measured the "
               "lock-out line in an earlier round must measure it in every later one (section 9: the line falls "
               "when wagering opens and rises at the lock-out)")
LOCKOUT_EVENT = rule("lockout-event", "pa-midi-r9-a2-lockout", "docs/protocol.md sections 6.4 (Events), 8",
                     "wagering closing or opening is sent as a lockout event as it happens: locked with the cause "
                     "(card, button, no-more-bets, comm-lost, power once it is back), unlocked with cause "
                     "round-open; a lost link is sent even when wagering was already closed, and no other "
                     "lockout event comes while wagering neither closes nor opens")
NMB_EVENT = rule("no-more-bets-event", "pa-629a7-c-no-more-bets", "docs/protocol.md sections 6.4 (Events), 8",
                 "a no more bets the controller takes (round.no_more_bets answered) is the dealer's announcement: "
                 "it is sent as a no_more_bets event naming the round, before the lockout it causes")
CARD_EVENTS = rule("card-events", "contract-5-events-as-they-happen", "docs/protocol.md sections 5, 6.2",
                   "every card out of the shoe is sent once as its card event (a misread card: misread) with its "
                   "code and its count n since the load, as it happens: before the shoe answers anything that "
                   "counts it (never batched behind a poll); no other card event comes")
WAGER_LIST = rule("wager-list", "contract-6-3-wager-list-seat-order", "docs/protocol.md section 6.3",
                  "wager.list lists every wager on the layout now, in seat order (the order of the types within "
                  "one seat is the device's)")
EVENT_SEQ = rule("event-seq", "contract-4-event-seq", "docs/protocol.md section 4",
                 "events are numbered one more per event (65535 wraps to 1) and the numbering runs on across "
                 "host reconnections (section 4's must); after power-up it starts at 1 again (section 8) or, "
                 "recorded as the device's choice, runs on")
VOID = rule("void-round", "contract-8-void-round", "docs/protocol.md section 8 (round.settle)",
            "round.settle with no card out voids the round: RSP void true, wagering closes (cause "
            "no-more-bets), the layout is cleared, round_end says void; REFUSED with no round open or while the "
            "tableau needs a card")
ANSWER_TIME = rule("answer-deadline", "contract-5-answer-time", "docs/protocol.md section 5",
                  "a device answers a request within 100 ms unless the command says otherwise: a read answered "
                  "late is read again and judged by its fastest answer, so one late answer on a loaded host is "
                  "never a finding")
ACT_TIME = rule("act-answer-deadline", "contract-5-answer-time", "docs/protocol.md section 5",
                "every act's request (config.set, wager.place, wager.remove, round.open, round.no_more_bets, "
                "round.settle, lockout.press, reset_key) is answered within 100 ms: an act answered late is "
                "followed by the same request in a form that changes nothing (asked up to five more times, a "
                "little apart) and judged by the fastest answer, so one late answer on a loaded host is never a "
                "finding, and an act that cannot be asked again harmlessly is only counted")
WAGER_NO_EVENT = rule("wager-place-no-event", "contract-11-wager-place-raises-no-event",
                      "docs/protocol.md section 11",
                      "a wager placed with wager.place, or taken off with wager.remove, is answered in its RSP and "
                      "raises no event: the bet sensors' wager and wager_removed events are for chips placed or "
                      "lifted by hand (judged where the test channel places the wagers)")
CONFIG_ANSWER = rule("config-answer", "contract-6-4-config-set-answer", "docs/protocol.md section 6.4",
                     "config.set taken answers the whole configuration as it now stands: the write applied, "
                     "every other field as it was")
CONFIG_WRITES = rule("config-writes", "contract-6-4-config-set-arguments",
                     "docs/protocol.md section 6.4; docs/device-profiles.md (config_writes)",
                     "a field the profile declares `never` writable is REFUSED and changes nothing; a field "
                     "declared `no-amount-shown` may be refused while a meter shows an amount; personal "
                     "combinations must be unique king-9 pairs (629a Royal 9 (e)(5)), decks 1..16")
PAYOUT_ORDER = rule("payout-order", "contract-8-settlement-order", "docs/protocol.md section 8",
                    "a settlement sends the payouts of every wager on the layout in seat order, the base-game "
                    "and EZ wagers first, then the Royal 9 wagers (the order of the types within one seat and "
                    "group is the device's)")
IDENTITY_SERIAL = rule("identity-serial", "contract-6-1-identity-own-serial", "docs/protocol.md section 6.1",
                       "each device of the table is identified by its own manufacturer's serial number: no two "
                       "devices answer the same serial, and none changes")
CONTRACT_LOCKOUT = rule("contract-lockout-message", "contract-6-4-lockout-get",
                        "docs/protocol.md sections 3 (Messages outside the contract), 6.4, 8",
                        "every lockout event and lockout.get answer is within the contract's schema: locked "
                        "with a lock-out cause, unlocked with cause round-open (null in lockout.get); one "
                        "outside it is a finding, shrunk like any other")
CONTRACT_MESSAGE = rule("contract-message", "contract-6-unknown-command",
                        "docs/protocol.md section 3 (Messages outside the contract), section 6",
                        "every answer and event a device sends is within the contract's schema for its role "
                        "and command; one outside it is a finding, shrunk like any other")
FOREIGN = rule("foreign-command", "contract-6-unknown-command", "docs/protocol.md section 6",
               "each device answers the commands of its role and of all devices: another role's command is "
               "answered NAK UNKNOWN_CMD and changes nothing")
FRAMING = rule("broken-frame", "contract-2-broken-frame", "docs/protocol.md sections 2, 3",
               "a frame whose CRC fails is dropped (a NAK to it is BAD_CRC, or BAD_FRAME for its bytes, with SEQ 0); "
               "a frame with a good CRC whose payload is not a command (a float, a key given twice, not an object, "
               "not UTF-8) or whose TYPE is unknown is answered NAK BAD_FRAME with that frame's SEQ, one of VER 2 "
               "NAK VERSION; a partial frame followed by silence is abandoned and the next request answered; no "
               "command is taken from any of them; a good frame is answered however its bytes came (split across "
               "writes within the partial-frame silence) and up to the largest LEN, 4096")
FRAMES_SENT = rule("frames-sent", "contract-2-frames-sent", "docs/protocol.md section 2",
                   "every frame a device sends passes its check (VER 1, a TYPE of section 3, a JSON object payload "
                   "with no float, its CRC over VER through the payload): on a pty or a 127.0.0.1 socket a frame "
                   "that fails is the device's")
DEAL_BUSY = rule("deal-busy", "contract-7-deal-busy", "docs/protocol.md sections 3, 7",
                 "a test.deal sent while the shoe's paced deal is in progress is answered NAK BUSY (with its reason, "
                 "as every NAK)")
LOST_REQUEST = rule("lost-request", "contract-7-lost-request", "docs/protocol.md section 7",
                    "a request lost to the line fault no-answer is not executed and not answered: a round.open so "
                    "lost opens no round")
LINE_DROP = rule("line-drop", "contract-7-line-drop", "docs/protocol.md sections 4 and 7",
                 "the line fault disconnect drops the line of the device it is sent to, no other: the other devices "
                 "answer on, and on the line opened again the device is as it was")
LINE_FAULTS = rule("line-faults", "contract-7-corrupted-answers", "docs/protocol.md section 7",
                   "the line fault bad-crc corrupts the CRC of the next count frames the device sends, garbage "
                   "replaces the next count answers with line noise; the fault's own answer is intact and the "
                   "frames after the count are whole")
INSTRUMENTS = rule("instruments", "contract-9-instruments", "docs/protocol.md section 9",
                   "the bench supply the power is cycled through reads each setting back: OUTP? 0 once OUTP OFF is "
                   "done, 1 once OUTP ON is, and VOLT? the voltage last set, across the output switched off and on; "
                   "the time-interval counter set up by CONF:TINT alone measures (slopes positive), and a stop edge "
                   "before the start edge is no interval")
HELLO_VERSION = rule("hello-version", "contract-6-1-hello-version", "docs/protocol.md section 6.1",
                     "hello is answered with a protocol version the host offered and as the device's own role (the "
                     "one it answered at the start), on a line opened again too")
REQUEST_SEQ = rule("request-seq", "contract-4-request-seq", "docs/protocol.md sections 3, 4",
                   "each request is answered with its own SEQ, whatever the host numbers it (1 to 65535, then 1 "
                   "again), and requests pipelined in one write are each answered")
