"""A holder knows how long no client has been connected, and says so once it
has been longer than its `idle_exit` (what `serve --idle-exit` and keep_warm's
holder stop on). A real socket; the engine is never asked anything."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from convo_tui.core.holder import protocol
from convo_tui.core.holder.server import HolderServer


def _until(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_an_open_connection_is_not_idle_and_a_closed_one_starts_the_count(tmp_path: Path):
    server = HolderServer(object(), tmp_path).start()  # type: ignore[arg-type]
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(str(protocol.socket_path(tmp_path)))
        assert _until(lambda: server.idle_for() == 0.0)
        time.sleep(0.2)  # however long a client stays connected, the holder is not idle
        assert server.idle_for() == 0.0
        conn.close()
        assert _until(lambda: server.idle_for() > 0.0)
    finally:
        server.stop()


def test_idle_exit_calls_on_idle_once_nobody_is_connected(tmp_path: Path):
    fired = threading.Event()
    reasons: list[str] = []

    def on_idle(reason: str) -> None:
        reasons.append(reason)
        fired.set()

    server = HolderServer(object(), tmp_path, idle_exit=0.2, on_idle=on_idle).start()  # type: ignore[arg-type]
    try:
        assert fired.wait(30)
        assert server.idle_for() >= 0.2
        assert reasons == ["nothing asked for 0.2 s"]
    finally:
        server.stop()
