"""Frames a device sent that fail section 2's check (clause contract-2-frames-sent): which lines carry no
noise, which dropped bytes are a whole frame the sender got wrong, and how a case judges them after each
step (a FAIL on a noiseless line, advisory on a cable only when asked, nothing on a line the case
corrupts itself)."""

from __future__ import annotations

import os
import pty
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.bench.acts import InjectFault
from harness.devices.crc import crc16
from harness.devices.dropped import FrameWatch
from harness.devices.framing import BAD_CRC, BAD_FRAME, NAK, FrameDecoder, ProtocolError, encode_frame
from harness.devices.transport import noiseless_url
from harness.suites.load.model import Step
from harness.suites.run.frames import judge_frames, saw

STEP = Step("expect_frames_sent", {}, "<test>", 1, 1, "- expect_frames_sent")


def test_a_socket_to_this_machine_and_a_pty_carry_no_noise_and_a_cable_may(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    try:
        link = tmp_path / "shoe"
        link.symlink_to(os.ttyname(slave))
        assert noiseless_url(str(link)) and noiseless_url(os.ttyname(slave))
    finally:
        os.close(master)
        os.close(slave)
    assert noiseless_url("socket://127.0.0.1:4000") and noiseless_url("loop://")
    assert not noiseless_url("socket://10.0.0.5:4000") and not noiseless_url("rfc2217://127.0.0.1:4000")
    assert not noiseless_url("/dev/null")  # a device file that is not a pty: a cable's port


def test_a_frame_whose_crc_skips_the_header_is_a_whole_frame_the_sender_got_wrong() -> None:
    good = encode_frame(NAK, 3, {"code": "REFUSED", "reason": "live"})
    bad = good[:-2] + crc16(good[8:-2]).to_bytes(2, "big")
    out = FrameDecoder().feed(bad)
    assert isinstance(out[0], ProtocolError) and out[0].code == BAD_CRC and out[0].whole_frame
    # the rest of its bytes, scanned again after the SOF is dropped, are bytes outside any frame: not a frame
    assert all(isinstance(e, ProtocolError) and not e.whole_frame for e in out[1:])
    assert ProtocolError(BAD_FRAME, "a float", seq=4).whole_frame  # a good CRC around a bad payload
    # a header announcing more than 4096 bytes (a LEN written little-endian, say) is the sender's too
    long = encode_frame(NAK, 3, {"code": "REFUSED", "reason": "x" * 700})
    swapped = long[:6] + long[6:8][::-1] + long[8:]
    (first, *_rest) = FrameDecoder().feed(swapped)
    assert isinstance(first, ProtocolError) and first.oversized and first.whole_frame
    assert not ProtocolError(BAD_FRAME, "incomplete frame abandoned").whole_frame


def _rig(**noiseless: bool) -> Any:
    return SimpleNamespace(**{role: SimpleNamespace(link=SimpleNamespace(
        protocol_errors=[], transport=SimpleNamespace(noiseless=quiet))) for role, quiet in noiseless.items()})


class Case:
    def __init__(self, rig: Any) -> None:
        self.frames = FrameWatch(rig)
        self.measured: list[tuple[str, Any, bool, bool]] = []

    def measure(self, step: Step, name: str, value: Any, limit: Any, passed: bool, unit: str = "",
                detail: str = "", *, advisory: bool = False, clause: str | None = None) -> None:
        assert clause == "contract-2-frames-sent"
        self.measured.append((name.split(" sent", maxsplit=1)[0], value, passed, advisory))


def _broken() -> ProtocolError:
    return ProtocolError(BAD_CRC, "CRC 0x0050 != 0xB121", raw=b"\xa5\x5a\x01\x03")


def test_a_noiseless_line_fails_the_step_that_brought_the_frame_and_a_cable_is_judged_only_when_asked() -> None:
    rig = _rig(shoe=True, controller=False)
    case = Case(rig)
    judge_frames(case, STEP)
    assert case.measured == []  # nothing dropped: nothing measured after a step
    rig.shoe.link.protocol_errors.append(_broken())
    rig.controller.link.protocol_errors.append(_broken())
    rig.shoe.link.protocol_errors.append(ProtocolError(BAD_FRAME, "3 byte(s) outside any frame"))
    judge_frames(case, STEP)
    assert case.measured == [("frames the shoe", 1, False, False)]  # the cable's not judged unasked
    judge_frames(case, STEP)
    assert len(case.measured) == 1  # taken once
    judge_frames(case, STEP, asked=True)  # over the whole case: the cable's advisory
    assert case.measured[1:] == [("frames the shoe", 1, False, False), ("frames the controller", 1, False, True)]


def test_a_line_the_case_corrupts_itself_is_excused_and_a_line_opened_again_counts_from_its_start() -> None:
    rig = _rig(shoe=True, controller=True)
    rig.controller.link.protocol_errors.extend([_broken(), _broken()])
    case = Case(rig)
    saw(case.frames, InjectFault("shoe", "bad-crc", (("count", 1),)))
    saw(case.frames, InjectFault("controller", "no-answer", (("count", 1),)))  # corrupts nothing
    rig.shoe.link.protocol_errors.append(_broken())
    rig.controller.link = SimpleNamespace(protocol_errors=[_broken()], transport=SimpleNamespace(noiseless=True))
    judge_frames(case, STEP)
    assert case.measured == [("frames the controller", 1, False, False)]


@pytest.mark.parametrize("fault", ["bad-crc", "garbage"])
def test_only_the_corrupting_line_faults_excuse_a_line(fault: str) -> None:
    case = Case(_rig(sensors=True))
    saw(case.frames, InjectFault("sensors", fault, ()))
    assert case.frames.excused == {"sensors"}
