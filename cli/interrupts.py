"""Ctrl+C and SIGTERM as a request to stop, not an exception thrown into whatever runs.

A KeyboardInterrupt raised by Python's default handler lands between any two
bytecodes of the main thread: inside a lock's bookkeeping, half way through an
index batch, while request threads still run inside onnxruntime. A process
that then exits may hang (a lock never released) or abort (`terminate called
without an active exception`). Commands that run for long (`index`, `serve`)
take the first signal as a flag their work checks (index runs stop within a
model batch; the holder stops serving in order), and only a second one as the
old immediate KeyboardInterrupt.

The handler touches no lock (it may run while the main thread holds any):
it sets a plain flag, and Python's wakeup fd (a socket pair) wakes a main
thread that waits for it in `wait`.
"""

from __future__ import annotations

import contextlib
import select
import signal
import socket
from types import FrameType, TracebackType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Set by the first SIGINT or SIGTERM while in its `with` block; usable as a cancel
    signal (`is_set`, or call it) and by watchfiles as a stop event."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}
        self._wakeup_fd = -1
        self._pair: tuple[socket.socket, socket.socket] | None = None

    def is_set(self) -> bool:
        return self.signum is not None

    def __call__(self) -> bool:
        return self.is_set()

    def set(self) -> None:
        """Ask to stop (as a signal would), from any thread: a main thread in `wait` wakes."""
        if self.signum is None:
            self.signum = signal.SIGINT
        if self._pair is not None:
            with contextlib.suppress(OSError):
                self._pair[1].send(b"\0")

    def wait(self, timeout: float | None = None) -> bool:
        """Block the main thread until a stop signal came (or `timeout` s); True when it did."""
        if self._pair is None or self.is_set():
            return self.is_set()
        reader = self._pair[0]
        with contextlib.suppress(InterruptedError):
            select.select([reader], [], [], timeout)
        with contextlib.suppress(OSError):
            reader.recv(512)  # drain the wakeup bytes
        return self.is_set()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt  # asked twice: stop at once
        self.signum = signum

    def __enter__(self) -> StopRequest:
        reader, writer = socket.socketpair()
        reader.setblocking(False)
        writer.setblocking(False)
        self._pair = (reader, writer)
        self._wakeup_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        for signum in SIGNALS:
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue  # started in the background by a script: the shell wants Ctrl+C to pass it by
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        signal.set_wakeup_fd(self._wakeup_fd)
        if self._pair is not None:
            for end in self._pair:
                end.close()
            self._pair = None
