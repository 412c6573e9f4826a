"""Textual messages the workers post back to the UI thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from convo_tui.core.hits import Hit
from textual.message import Message


class LibraryOpened(Message):
    """The index is open: searches can run (the model may still be loading)."""


class ModelLoaded(Message):
    """The embedding model is ready: semantic and hybrid search can run."""


class LossWarnings(Message):
    """What the user should know about their history now (a tool that deletes sessions,
    a full archive, an unreachable machine): one line each, from Engine.archive_status."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines


class IndexingProgress(Message):
    def __init__(self, phase: str, done: int, total: int, path: str | None, sessions: int = 0, eta: float | None = None) -> None:
        super().__init__()
        self.phase = phase
        self.done = done
        self.total = total
        self.path = path
        self.sessions = sessions  # published so far: searchable by keyword
        self.eta = eta  # seconds left in the semantic phase


class IndexingFinished(Message):
    def __init__(self, report: Any) -> None:
        super().__init__()
        self.report = report


class ReadinessRead(Message):
    """How much of the index is searchable, read in a worker; `follow`: the index moved, re-run searches."""

    def __init__(self, readiness: Any, follow: bool) -> None:
        super().__init__()
        self.readiness = readiness
        self.follow = follow


class OpenReader(Message):
    """Open a session in the reader (the app loads it off the UI thread, then shows it)."""

    def __init__(self, session_id: str, turn_index: int | None = None, query: str = "") -> None:
        super().__init__()
        self.session_id = session_id
        self.turn_index = turn_index
        self.query = query


class ReaderLoaded(Message):
    """A session OpenReader asked for, read from the index; `origin`: the screen shown
    when it was asked for."""

    def __init__(self, session: Any, turn_index: int | None, query: str, origin: object) -> None:
        super().__init__()
        self.session = session
        self.turn_index = turn_index
        self.query = query
        self.origin = origin


class BackgroundFailed(Message):
    """A background job failed with a problem the user should read."""

    def __init__(self, what: str, error: str) -> None:
        super().__init__()
        self.what = what
        self.error = error


@dataclass
class SearchOutcome:
    query: str
    mode: str
    hits: list[Hit]
    error: str | None = None
    generation: int = 0  # which search of the screen produced it: only the latest is shown
    limit: int = 0  # how many results were asked for: as many came back means there may be more
    follow: bool = False  # a re-run because the index moved: keep the reader's place if the results allow
    filters_match: bool | None = None  # nothing found: whether the filters alone match something
    early: bool = False  # a hybrid search's keyword pass: its own results follow, refined by meaning


class SearchFinished(Message):
    def __init__(self, outcome: SearchOutcome) -> None:
        super().__init__()
        self.outcome = outcome
