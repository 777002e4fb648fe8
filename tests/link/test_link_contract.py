"""The link's messages (docs/protocol.md, section 14) are held to the protocol schema by role: a
field the link controller's answer does not have is named, an event a link controller does not send
is refused, and a linked table's own line carries the link's additions.  (Every link message kind
sent in a session is checked by tests/devices/test_contract.py.)"""

from __future__ import annotations

from harness.devices.contract import Contract
from harness.devices.framing import EVT, RSP


def test_a_field_outside_the_link_contract_is_named() -> None:
    check = Contract.shipped().checker("link-controller", "link-controller")
    problem = check(RSP, "tables.get", {"ok": True, "tables": [{"table": "t1", "up": True, "last": 0, "cut": None,
                                                                 "latency": 3}]})
    assert problem is not None and "tables[0].latency" in str(problem)
    problem = check(EVT, None, {"event": "payout", "seat": 1})
    assert problem is not None and "sends no such event" in str(problem)
    # the table line of a linked table: its own controller's events, with the link's additions
    table_line = Contract.shipped().checker("controller", "controller")
    assert table_line(EVT, None, {"event": "link", "up": False}) is None
    assert table_line(EVT, None, {"event": "hit", "seat": 1, "category": "mega", "meter": "mega", "amount": 5,
                                  "order": 3, "instant": 2}) is None
