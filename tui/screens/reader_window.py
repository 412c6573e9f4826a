"""The reader's turns, mounted a window at a time.

Textual lays out every widget it is given before the first useful frame: a
session of 642 turns took 24 s to open and one of 1,262 turns (4,000 messages)
77 s and 1.5 GB (BENCHMARKS.md, "Thirty-second session"). The reader mounts a
window of turns around the opened one, widens it when the view reaches one of
its ends, and moves it when a key goes to a turn far outside it (g, G, n/N).
Views are built when they are mounted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from convo_tui.tui.widgets.session_view import TurnView
from textual.containers import VerticalScroll

# Turns mounted when the reader opens, a quarter of them before the opened one.
WINDOW = 40
# Turns added at an end the view reached.
STEP = 40


class TurnWindow:
    """The turn groups `lo:hi` of a session are mounted in `body`, in order.

    `indexes`: each group's turn index (None for messages before the first turn);
    `build(start, end)`: the views of groups `start:end`."""

    def __init__(self, body: VerticalScroll, indexes: Sequence[int | None], build: Callable[[int, int], list[TurnView]]) -> None:
        self.body = body
        self.indexes = list(indexes)
        self.build = build
        self.lo = self.hi = 0

    @property
    def size(self) -> int:
        return len(self.indexes)

    @property
    def whole(self) -> bool:
        return self.lo == 0 and self.hi == self.size

    def at(self, index: int | None) -> int:
        """The position of the turn `index` among the groups (0 when it has none)."""
        return self.indexes.index(index) if index in self.indexes else 0

    async def open_at(self, index: int | None) -> None:
        """Mount the window around the turn `index` (the first turns for None)."""
        await self.body.remove_children()
        at = self.at(index) if index is not None else 0
        self.lo = max(0, min(at - WINDOW // 4, self.size - WINDOW))
        self.hi = min(self.size, self.lo + WINDOW)
        await self.body.mount_all(self.build(self.lo, self.hi))

    async def reach(self, index: int | None) -> None:
        """The turn `index` mounted: the window widened to it when near, else moved there."""
        at = self.at(index)
        if self.lo <= at < self.hi:
            return
        if self.lo - STEP <= at < self.lo:
            await self.grow_up(self.lo - max(0, at - STEP // 4))
        elif self.hi <= at < self.hi + STEP:
            await self.grow_down(at + STEP - self.hi)
        else:
            await self.open_at(index)

    async def grow_up(self, count: int = STEP) -> bool:
        """Mount up to `count` more turns before the window; whether there were any."""
        if self.lo == 0:
            return False
        start = max(0, self.lo - count)
        first = self.body.children[0] if self.body.children else None
        await self.body.mount_all(self.build(start, self.lo), before=first)
        self.lo = start
        return True

    async def grow_down(self, count: int = STEP) -> bool:
        """Mount up to `count` more turns after the window; whether there were any."""
        if self.hi == self.size:
            return False
        end = min(self.size, self.hi + count)
        await self.body.mount_all(self.build(self.hi, end))
        self.hi = end
        return True
