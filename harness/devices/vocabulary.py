"""Every enumerated value of the reference protocol in one place (docs/protocol.md, section 14).

The JSON Schema of the messages (``protocol.schema.json``, built by :mod:`harness.devices.schema_build`),
the emulators, the drivers and the suite vocabulary take their lists from here, and a test compares
each with the tables of docs/protocol.md, so the contract a vendor reads cannot drift from what
tablecert sends and accepts.  Each vocabulary that the document explains value by value is a mapping
value -> meaning; the order is the document's.  Pure: constants only.
"""

from __future__ import annotations

from harness.games.blackjack import CATEGORIES as HIT_AND_RUN_CATEGORIES
from harness.games.royal9 import CATEGORIES as ROYAL9_CATEGORIES
from harness.games.royal9 import MAX_SEATS
from harness.progressive.mystery import DISTRIBUTIONS

#: the contract versions this tablecert speaks, oldest first (docs/protocol.md, "Versions and change
#: log"); the newest is what the emulators speak unless a profile asks for an older one
PROTOCOL_VERSIONS = (1, 2)
PROTOCOL_VERSION = PROTOCOL_VERSIONS[-1]
#: a device answers a request within this long unless the command says otherwise (docs/protocol.md,
#: section 5, "Timing rules"); the profile's ``timing.response_timeout_ms`` is the host's margin
ANSWER_LIMIT_MS = 100

#: the three devices that speak the framed protocol (the counter and power supply speak SCPI)
DEVICE_ROLES = ("shoe", "sensors", "controller")

#: seats are numbered 1..9 on the wire: a table has at most nine wagering areas (WAC 230-15-040(2))
SEAT_MIN = 1
SEAT_MAX = MAX_SEATS

NAK_CODES: dict[str, str] = {
    "BAD_CRC": "a frame failed its CRC (SEQ 0: the header cannot be trusted)",
    "BAD_FRAME": "malformed frame or payload (SEQ of the frame if its CRC was good, else 0)",
    "UNKNOWN_CMD": "no such command on this device",
    "BAD_ARGS": "missing, mistyped or out-of-range argument (a seat outside 1..9 among them)",
    "REFUSED": "a well-formed command the device declines on purpose",
    "BUSY": "the device cannot take the command now (the shoe is dealing)",
    "VERSION": "protocol version not supported (answer to hello)",
    "POWER": "the device is powering down or in a power-fail state",
}

WAGER_TYPES: dict[str, str] = {
    "royal9": "the Royal 9 progressive wager (629a Royal 9); feeds the mega, major, minor and mystery meters",
    "player": "baccarat Player",
    "banker": "baccarat Banker",
    "tie": "baccarat Tie",
    "dragon7": "EZ Baccarat Dragon 7 insurance",
    "panda8": "EZ Baccarat Panda 8 insurance",
    "hit-and-run": "the Hit and Run progressive wager (633a.13(l)); feeds the hit-and-run meter",
    "blackjack": "the blackjack hand itself",
    "streak3-player": "Mini-Baccarat three consecutive Player wins",
    "streak3-banker": "Mini-Baccarat three consecutive Banker wins",
}

#: the wagers that contribute to progressive meters
QUALIFYING_TYPES = ("royal9", "hit-and-run")

#: ``reason`` of a refused ``wager.place`` (and of a refused ``wager`` event)
WAGER_REFUSALS: dict[str, str] = {
    "locked-out": "wagering is closed: the round's first card is out, the lock-out button was pressed, "
                  "or no round is open",
    "no-more-bets": "the dealer called no more bets",
    "comm-lost": "the controller-sensors link is down",
    "bad-amount": "amount not positive, or a Royal 9 wager that is not the table's denomination",
    "bad-seat": "no such seat at this table",
    "disabled": "the table does not offer this wager type",
    "no-base-wager": "a Royal 9 wager at a seat with no Player, Banker or Tie wager (629a Royal 9 (b))",
    "link-down": "a linked table off its link controller refuses wagers on the common meters (461a.12(b)(1))",
    "riding": "a Mini-Baccarat three-games wager riding after its first game cannot be changed (WAC 230-15-040(8)(b))",
}

LOCKOUT_CAUSES: dict[str, str] = {
    "card": "the round's first card out of the shoe (locked)",
    "button": "the lock-out button (locked)",
    "comm-lost": "the controller-sensors link went down (locked)",
    "power": "power-up: wagering is closed until a round is opened (locked)",
    "no-more-bets": "the dealer called no more bets, or voided a round with no card dealt (locked)",
    "round-open": "the dealer opened a round (unlocked)",
}

METERS: dict[str, str] = {
    "mega": "Royal 9 mega progressive",
    "major": "Royal 9 major progressive",
    "minor": "Royal 9 minor progressive",
    "mystery": "Royal 9 mystery progressive (629a Royal 9 (h))",
    "hit-and-run": "the Hit and Run progressive (633a.13(l)(1))",
}

SHOE_STATES: dict[str, str] = {
    "ready": "cards in the shoe, not dealing",
    "dealing": "a deal is in progress",
    "empty": "no card left",
}

PAID_BY: dict[str, str] = {
    "table": "the table (the controller) pays at settlement",
    "attendant": "an attendant pays; a meter award waits for the reset key",
}

#: ``category`` of a base-game ``payout`` (player, banker, tie, dragon7, panda8)
BASE_OUTCOMES: dict[str, str] = {
    "win": "the wager wins",
    "lose": "the wager loses (returned 0)",
    "push": "the stake comes back",
}

MYSTERY_CATEGORY = "mystery"

#: every ``category`` a ``payout`` event may carry (``null`` too: a losing progressive wager)
PAYOUT_CATEGORIES = (*BASE_OUTCOMES, *ROYAL9_CATEGORIES, *HIT_AND_RUN_CATEGORIES, MYSTERY_CATEGORY)
#: every ``category`` a ``hit`` event may carry
HIT_CATEGORIES = (*ROYAL9_CATEGORIES, *HIT_AND_RUN_CATEGORIES, MYSTERY_CATEGORY)

GAMES: dict[str, str] = {
    "minibaccarat": "Mini-Baccarat (627a)",
    "midibaccarat": "Midibaccarat (629a), the Royal 9 wager where its meters are configured",
    "baccarat": "Baccarat (627a)",
    "ez-baccarat": "EZ Baccarat (Dragon 7, Panda 8)",
    "blackjack-hit-and-run": "Blackjack with the Hit and Run progressive (633a.13(l))",
}

MYSTERY_DISTRIBUTIONS = tuple(DISTRIBUTIONS)
MYSTERY_CONFIGURATIONS = (1, 2, 3)

IDENTITY_FIELDS: dict[str, str] = {
    "manufacturer": "(iii) manufacturer",
    "model": "model",
    "serial": "(iv) serial number",
    "software_id": "(v) software / program identification",
    "controller_type": "(vi)(A) progressive controller type",
    "software_name": "(vi)(B) software name",
    "software_version": "(vi)(B) software version",
    "program_hash": "program signature (e.g. sha256:...)",
    "location": "(i) location",
    "asset_number": "(ii) asset number",
    "game_type": "(ii) game type",
}
#: identity fields every device reports non-empty (58 Pa. Code 607a.2(b)(2)); plus asset_number or game_type
IDENTITY_REQUIRED = ("location", "manufacturer", "serial", "software_id")
#: and the controller also
IDENTITY_REQUIRED_CONTROLLER = ("controller_type", "software_name", "software_version")

#: ``test.fault`` kinds at the line layer (every device) and the shoe's own
LINE_FAULTS: dict[str, str] = {
    "no-answer": "the next `count` requests are lost",
    "bad-crc": "the next `count` frames carry a corrupted CRC",
    "garbage": "the next `count` answers are replaced by line noise",
    "disconnect": "`after_ms` later the line drops",
    "reboot": "`after_ms` later the device restarts from non-volatile storage",
    "power-loss": "`after_ms` later the whole table is dark",
    "off-contract": "the next `count` answers carry a field the contract does not have",
}
SHOE_FAULTS: dict[str, str] = {
    "misread": "the next card is reported as `misread`",
    "error": "the shoe emits an `error` event",
}

#: the events each device sends
EVENTS: dict[str, tuple[str, ...]] = {
    "shoe": ("card", "misread", "error"),
    "sensors": ("wager", "wager_removed"),
    "controller": ("lockout", "no_more_bets", "hit", "payout", "round_end", "reset", "link", "wager_rides"),
}
#: the commands each device answers (``test.*``: the emulator-only test channel)
COMMANDS: dict[str, tuple[str, ...]] = {
    "all": ("hello", "identity", "ping"),
    "shoe": ("shoe.status", "test.load", "test.deal", "test.fault", "test.shuffle"),
    "sensors": ("wager.place", "wager.remove", "wager.list", "test.fault"),
    "controller": ("config.get", "config.set", "meters.get", "lockout.get", "lockout.press", "round.open",
                   "round.no_more_bets", "round.settle", "reset_key", "test.link", "test.state", "test.fault"),
}
#: commands that stand for an act at the table: REFUSED by a device without a test channel (section 11)
REMOTE_ACTS = ("wager.place", "wager.remove", "lockout.press", "reset_key", "round.open", "round.no_more_bets")
NOT_AN_EMULATOR = "not an emulator"


# -- linked progressives (docs/protocol.md, section 14) ---------------------------------------------
#: the role a link controller answers to ``hello`` with
LINK_ROLE = "link-controller"
#: the interpretation ``link-simultaneous-hits`` as the link controller reports it
LINK_SIMULTANEOUS = ("each-paid-meter", "shared")
#: when a test-channel cut takes effect
LINK_CUTS = ("now", "after-contribution")
#: the link controller's events to the host, and to a table
LINK_EVENTS: dict[str, tuple[str, ...]] = {
    "host": ("hit", "reset", "link", "power"),
    "table": ("link.status",),
}
#: the commands of a link controller: from the host, and from a table
LINK_COMMANDS: dict[str, tuple[str, ...]] = {
    "host": ("hello", "identity", "ping", "config.get", "meters.get", "hits.get", "tables.get", "reset_key",
             "test.cut", "test.restore", "test.fault", "test.state"),
    "table": ("hello", "ping", "link.join", "link.contribute", "link.hit", "link.status"),
}
