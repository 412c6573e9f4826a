"""What `convo-tui index` shows while it runs, on stderr.

In a terminal: two live bars, keyword (files read, sessions searchable) and
semantic (texts of the whole index with a vector, the pace, the time left),
that fit 80 columns. Anywhere else (a file, a pipe, CI): plain lines, one per
phase step at most every `PLAIN_EVERY` seconds, so a log shows the run moving
without drowning in it. Both say in one line when another process does the
work: the holder the run was handed to, a run it waits for, a take-over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from convo_tui.core.engine import whole_percent

if TYPE_CHECKING:
    from convo_tui.core.index.publish import IndexProgress

# Seconds between two plain lines of the same phase.
PLAIN_EVERY = 5.0


def duration(seconds: float) -> str:
    """`45 s`, `3 min`, `1 h 05 min`: a time left as a person reads it."""
    seconds = max(0, round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def time_left(eta: float | None) -> str:
    return "estimating the time left" if eta is None else f"about {duration(eta)} left"


def keyword_detail(p: IndexProgress) -> str:
    if p.phase == "scan":
        return f"checking files {p.done:,}/{p.total:,}" if p.total else "checking files"
    files = f"{p.done:,}/{p.total:,} files" if p.total else "no new or changed files"
    searchable = f" · {p.sessions:,} session{'s' * (p.sessions != 1)} searchable" if p.sessions else ""
    left = f" · {time_left(p.eta)}" if p.total and p.done < p.total else ""
    return files + searchable + left


def semantic_detail(p: IndexProgress) -> str:
    text = f"{p.done:,}/{p.total:,} texts ({whole_percent(p.done, p.total)})"
    if p.done < p.total:
        if p.rate:
            text += f" · {p.rate:.0f}/s"
        text += f" · {time_left(p.eta)}"
    return text


class Notices:
    """The one-line notices both displays share (`holder`: who runs the work, None here)."""

    def __init__(self, holder: str | None):
        self.holder = holder
        self._handed = holder is None

    def handed(self) -> str | None:
        """Once, when the holder starts the run (a run it refuses is its own one line)."""
        if self._handed:
            return None
        self._handed = True
        return f"handed to {self.holder}, which holds the index"

    def of(self, p: IndexProgress) -> str | None:
        if p.phase == "wait":
            return f"waiting for {self.holder or 'this process'} to finish its index run"
        if p.phase == "takeover":
            who = self.holder or "the process holding the index"
            return f"{who} stopped; the run goes on here"
        if p.phase == "model":
            return f"loading the embedding model {p.path}" if p.path else "loading the embedding model"
        return None


class PlainProgress:
    """Plain lines on a stream that is not a terminal."""

    def __init__(self, out: TextIO, holder: str | None, every: float = PLAIN_EVERY, clock: Callable[[], float] = time.monotonic):
        self.out = out
        self.notices = Notices(holder)
        self.every = every
        self.clock = clock
        self._last: dict[str, float] = {}
        self._last_line: dict[str, str] = {}

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.out.flush()

    def say(self, text: str) -> None:
        self.out.write(f"convo-tui: {text}\n")
        self.out.flush()

    def __call__(self, p: IndexProgress) -> None:
        if handed := self.notices.handed():
            self.say(handed)
        if (text := self.notices.of(p)) is not None:
            if p.phase == "takeover":
                self.notices.holder = None
            self.say(text)
            return
        line = self._line(p)
        if line is None:
            return
        step = "keyword" if p.phase in ("scan", "index") else p.phase
        now = self.clock()
        first = step not in self._last
        last = p.phase != "scan" and p.done >= p.total  # the phase's end (an empty one too) is always told
        if not (first or last or now - self._last[step] >= self.every) or self._last_line.get(step) == line:
            return
        self._last[step], self._last_line[step] = now, line
        self.say(line)

    @staticmethod
    def _line(p: IndexProgress) -> str | None:
        if p.phase in ("scan", "index"):
            return f"keyword: {keyword_detail(p)}"
        if p.phase == "semantic":
            return f"semantic: {semantic_detail(p)}"
        if p.phase == "switch":
            return f"switching model: {p.done:,}/{p.total:,} points"
        if p.phase == "optimize":
            return "building the search graph"
        return None


class LiveProgress:
    """Rich bars on a terminal; notices are printed above them."""

    def __init__(self, out: TextIO, holder: str | None):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        self.notices = Notices(holder)
        self.console = Console(file=out, highlight=False)
        self.bars = Progress(
            TextColumn("[bold]{task.description:<9}"),
            BarColumn(bar_width=18),
            TextColumn("{task.fields[detail]}", justify="left"),
            console=self.console,
            transient=True,
        )
        self._keyword = self.bars.add_task("keyword", total=None, detail="looking for transcripts")
        self._keyword_said = "looking for transcripts"  # what phase 1 last said (an optimize says more, for its while)
        self._semantic: Any = None

    def __enter__(self) -> LiveProgress:
        self.bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bars.stop()

    def say(self, text: str) -> None:
        self.console.print(f"convo-tui: {text}", markup=False, soft_wrap=True)

    def __call__(self, p: IndexProgress) -> None:
        if handed := self.notices.handed():
            self.say(handed)
        if (text := self.notices.of(p)) is not None:
            if p.phase == "wait":
                self.bars.update(self._keyword, detail=f"waiting for {self.notices.holder or 'this process'}")
            if p.phase == "takeover":
                self.notices.holder = None
            self.say(text)
            return
        if p.phase in ("scan", "index"):
            total = p.total or None
            self._keyword_said = keyword_detail(p)
            self.bars.update(self._keyword, completed=p.done, total=total, detail=self._keyword_said)
        elif p.phase == "switch":
            self.bars.update(
                self._keyword, completed=p.done, total=p.total or None, detail=f"switching model: {p.done:,}/{p.total:,} points"
            )
        elif p.phase == "semantic":
            if self._semantic is None:
                self._semantic = self.bars.add_task("semantic", total=None, detail="")
                # Phase 1 is over, and the search graph its optimize built with it.
                self.bars.update(self._keyword, completed=1, total=1, detail=self._keyword_said)
            self.bars.update(self._semantic, completed=p.done, total=p.total or 1, detail=semantic_detail(p))
        elif p.phase == "optimize":
            task = self._semantic if self._semantic is not None else self._keyword
            self.bars.update(task, detail="building the search graph")


def progress_display(out: TextIO, holder: str | None) -> LiveProgress | PlainProgress:
    """Bars on a terminal, plain lines elsewhere."""
    return LiveProgress(out, holder) if out.isatty() else PlainProgress(out, holder)
