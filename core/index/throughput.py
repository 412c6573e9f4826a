"""How fast indexing goes right now, and so how long the rest will take.

An ETA from the run's average (elapsed / done x left) keeps the first minute's
pace for the whole run: texts served from the vector cache at the start make
it far too hopeful, one long session embedded at the end far too patient, and
a restart starts it over. `Throughput` measures the work done over the last
`window` seconds only, so the estimate follows the pace as it changes.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

# Seconds of recent work the rate is measured over: long enough to even out the
# pace within a round of phase 2 (short texts first, long ones last), short
# enough to follow a change (the cache's texts at the start, another process
# taking the cores).
WINDOW = 60.0
# No estimate before the work has been watched this long (one batch says little).
MIN_SPAN = 3.0


class Throughput:
    """Units per second over a sliding window of (time, units done) samples."""

    def __init__(self, window: float = WINDOW, min_span: float = MIN_SPAN, clock: Callable[[], float] = time.monotonic):
        self.window = window
        self.min_span = min_span
        self._clock = clock
        self._samples: deque[tuple[float, int]] = deque()

    def add(self, done: int) -> None:
        """Record that `done` units are finished by now (a running total, never reset)."""
        now = self._clock()
        self._samples.append((now, done))
        # Keep one sample at or before the window's start, so the span covers the whole window.
        while len(self._samples) > 2 and self._samples[1][0] <= now - self.window:
            self._samples.popleft()

    def rate(self) -> float | None:
        """Units per second over the window; None until `min_span` seconds were watched."""
        if len(self._samples) < 2:
            return None
        (t0, d0), (t1, d1) = self._samples[0], self._samples[-1]
        if t1 - t0 < self.min_span:
            return None
        return max(0.0, (d1 - d0) / (t1 - t0))

    def eta(self, left: int) -> float | None:
        """Seconds until `left` more units are done at the current rate (None: not known yet)."""
        if left <= 0:
            return 0.0
        rate = self.rate()
        if not rate:
            return None
        return left / rate
