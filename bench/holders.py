"""The holder a command leaves for an index (keep_warm): found on the index's socket, stopped.
Used by the scale bench and the tests."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from convo_tui.core.holder import client, protocol


def holder_pid(index_dir: Path, seconds: float = 120) -> int:
    """The pid of the holder of `index_dir`, once it answers (started detached, it first loads the index)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return int(client.call(protocol.socket_path(index_dir), "hello")["pid"])
        except client.NoHolder:
            assert time.monotonic() < deadline, f"no holder answered for {index_dir} within {seconds:g} s"
            time.sleep(0.05)


def gone(pid: int) -> bool:
    """The process has ended (or ended and waits to be reaped by its new parent)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state == "Z"


def stop(pid: int, seconds: float = 60) -> None:
    """SIGTERM, then wait until it has ended."""
    if gone(pid):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + seconds
    while not gone(pid):
        assert time.monotonic() < deadline, f"holder {pid} did not stop on SIGTERM"
        time.sleep(0.05)
