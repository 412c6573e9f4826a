"""The worker threads that use the index, counted so that closing it can wait for them.

Textual's `Worker.cancel()` marks a thread worker cancelled at once, but the
thread runs on until its code checks; the index (and its lock) must only be
closed after every such thread has returned.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class BackgroundThreads:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._running = 0

    @contextmanager
    def running(self) -> Iterator[None]:
        """Wrap a worker's body: counted while it runs, whatever way it ends."""
        with self._changed:
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._changed.notify_all()

    @property
    def busy(self) -> bool:
        with self._changed:
            return self._running > 0

    def wait_idle(self, timeout: float | None = None) -> bool:
        """True once no counted thread runs (False if `timeout` passed first)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._running == 0, timeout)
