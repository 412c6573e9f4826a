"""What the app knows about the index while it changes under the screens.

Indexing runs in two phases (core/index/): files are read and their sessions
published for keyword search, then texts get their vectors for search by
meaning. The screens need to know which of the two is under way (a list may
still grow only while files are read) and how much of the index search by
meaning covers (the filter line says what results cover). `IndexState` keeps
both, from the indexer's progress events and from `Engine.readiness()`, which
also answers when another process (`serve`, an `index` the app serves) changes
the index.
"""

from __future__ import annotations

from dataclasses import dataclass

from convo_tui.core.engine import Readiness

READING_PHASES = ("scan", "index", "switch")


@dataclass
class IndexState:
    """Plain state, updated on the UI thread only."""

    reading: bool = False  # phase 1 under way: sessions may still appear
    embedding: bool = False  # phase 2 under way: meaning results may still appear
    waiting: bool = False  # our run waits for another one (an `index` the app is served by): no progress comes
    sessions_published: int = 0  # in this run, as the indexer reported them
    embedded_done: int = 0
    embedded_total: int = 0
    readiness: Readiness | None = None

    def progress(self, phase: str, done: int, total: int, sessions: int) -> bool:
        """Take one progress event; True when searches may now answer differently."""
        before = (self.reading, self.embedding, self.sessions_published, self.embedded_done)
        self.reading = phase in READING_PHASES
        self.embedding = phase == "semantic"
        self.waiting = phase == "wait"
        self.sessions_published = max(self.sessions_published, sessions) if self.reading or self.embedding else sessions
        if phase == "semantic":
            self.embedded_done, self.embedded_total = done, total
        after = (self.reading, self.embedding, self.sessions_published, self.embedded_done)
        return after != before

    def started(self) -> None:
        self.reading, self.embedding, self.waiting = True, False, False
        self.sessions_published = self.embedded_done = self.embedded_total = 0

    def finished(self) -> None:
        self.reading = self.embedding = self.waiting = False

    def read(self, readiness: Readiness) -> bool:
        """A fresh count from the engine; True when it differs from the last one."""
        old = self.readiness
        self.readiness = readiness
        return old is None or (old.sessions, old.texts_ready, old.texts_total) != (
            readiness.sessions,
            readiness.texts_ready,
            readiness.texts_total,
        )

    @property
    def meaning_share(self) -> float | None:
        """Share of the index's texts search by meaning can find (None: not known yet)."""
        if self.embedding and self.readiness is None and self.embedded_total:
            return self.embedded_done / self.embedded_total
        if self.readiness is None:
            return None
        return self.readiness.fraction


def coverage_note(mode: str, model_ready: bool, share: float | None) -> str:
    """What the results of a search in `mode` cover, when that is less than everything."""
    if mode not in ("hybrid", "semantic"):
        return ""
    if not model_ready:
        return "keyword until the model loads"
    if share is None or share >= 1.0:
        return ""
    percent = min(99, int(share * 100))  # never "100%" while a text is still waiting
    if mode == "semantic":
        return f"meaning on {percent}% of texts"
    return f"keyword; meaning on {percent}% of texts"
