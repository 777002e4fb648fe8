"""Fixtures for device tests: a pty pair and a loopback TCP listener with scripted peers."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator

import pytest
from device_peers import PtyEnd, TcpEnd


@pytest.fixture
def pty_end() -> Iterator[PtyEnd]:
    master, slave = os.openpty()
    path = os.ttyname(slave)
    os.close(slave)  # the host opens the slave by path, as it would a real device
    end = PtyEnd(master, path)
    try:
        yield end
    finally:
        end.close()


@pytest.fixture
def tcp_end() -> Iterator[TcpEnd]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    end = TcpEnd(listener)
    try:
        yield end
    finally:
        end.close()
        listener.close()
