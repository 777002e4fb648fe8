"""A link of two emulated tables on one common meter, as separate processes: the tables reach the link
controller over 127.0.0.1; a mega hand at one table is claimed, acknowledged and paid at the amount the
link controller showed, reset by the link's key; a table off the link refuses Royal 9 wagers."""

from __future__ import annotations

import time

from harness.link.rig import open_link_rig, wait_joined
from harness.profiles import load_profile_text

PROFILE = """spec: tablecert/profile/1
name: e2e-link
game: midibaccarat
capabilities: [royal9, link, reset-key]
interpretations: {r9-requires-base-wager: false}
link:
  controller: {driver: reference-link-controller, port: emulator}
  meters:
    mega: {initial: "$50,000"}
  tables:
""" + "".join(f"""    - name: {name}
      devices:
        shoe: {{driver: reference-shoe, port: emulator}}
        sensors: {{driver: reference-sensors, port: emulator}}
        controller: {{driver: reference-controller, port: emulator}}
      rules:
        denomination: 5
        seats: [{{seat: 1, combo: [{combo}]}}]
        meters:
          mega: {{link: mega, rate: "1.25%"}}
          major: {{rate: "1%", initial: "$450"}}
          minor: {{rate: "1%", initial: "$450"}}
""" for name, combo in (("a", "KS, 9S"), ("b", "KH, 9H"))) + """emulator: {deal_pace_ms: "0"}
"""


def until(pred, timeout_s: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not pred():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_a_linked_hit_and_a_table_off_the_link() -> None:
    rig = open_link_rig(load_profile_text(PROFILE))  # in memory where the host has /dev/shm
    try:
        link, a, b = rig.link, rig.tables["a"].rig, rig.tables["b"].rig
        assert link is not None and a.controller and a.sensors and a.shoe and b.controller and b.sensors
        a.controller.open_round()
        assert a.sensors.place(1, "royal9", 500).accepted
        a.shoe.load(["KS", "KS", "9S", "9S"])
        a.shoe.deal(pace_us=0)
        hit = a.controller.wait_event("hit", 5.0, lambda e: e.payload.get("meter") == "mega")
        assert hit.payload["amount"] == 5_000_006 and hit.payload["seat"] == 1  # 50,000 + 6.25 c
        paid = a.controller.wait_event("payout", 5.0, lambda e: e.payload.get("category") == "mega")
        assert paid.payload["returned"] == 500 + 5_000_006
        assert [h.table for h in link.hits()] == ["a"] and link.meters().pending == ("mega",)
        assert link.reset_key("mega") == 5_000_000
        until(lambda: not a.controller.meters().pending)  # type: ignore[union-attr]
        assert a.controller.meters().paid_by_attendant == 5_000_006
        link.cut("b")
        until(lambda: not (b.controller.meters().raw.get("link") or {}).get("up"))  # type: ignore[union-attr]
        b.controller.open_round()
        off = b.sensors.place(1, "royal9", 500)
        assert (off.accepted, off.reason) == (False, "link-down")
        assert b.sensors.place(1, "banker", 1000).accepted  # the base game goes on
        link.restore("b")
        wait_joined(rig)
        assert b.sensors.place(1, "royal9", 500).accepted
    finally:
        rig.close()
