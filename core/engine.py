"""The one typed interface the faces use: what the engine does, whoever runs it.

`Library` (core/library/) runs it in this process; `RemoteEngine`
(core/holder/remote.py) asks the process that holds the index. The holder
serves exactly these operations: core/holder/ops.py describes each one's
arguments and result codec once, and tests/engine/test_conformance.py checks
that both implementations answer alike. The app and the CLI hold an `Engine`
and nothing else of the engine's insides.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Self

if TYPE_CHECKING:
    from convo_tui.core.archive.status import ArchiveStatus, ExportReport, ImportReport
    from convo_tui.core.context import ChatMessage
    from convo_tui.core.hits import Hit, SessionPage, SessionSummary
    from convo_tui.core.index.publish import CancelLike, IndexReport, ProgressFn
    from convo_tui.core.model import Session
    from convo_tui.core.settings import Settings
    from convo_tui.core.stats import Stats


@dataclass(frozen=True)
class ModelInfo:
    """The dense model searches use, why it was chosen, and whether it is loaded."""

    model: str
    reason: str
    ready: bool


@dataclass(frozen=True)
class Readiness:
    """How much of the index is searchable, by keyword and by meaning."""

    sessions: int
    texts_ready: int
    texts_total: int
    model: str
    model_reason: str

    @property
    def fraction(self) -> float:
        return self.texts_ready / self.texts_total if self.texts_total else 1.0

    @property
    def percent(self) -> str:
        return whole_percent(self.texts_ready, self.texts_total)

    def describe(self) -> str:
        """Two lines, as `convo-tui sources` prints them."""
        return (
            f"index: {self.sessions} sessions searchable by keyword; {self.texts_ready}/{self.texts_total} texts "
            f"({self.percent}) searchable by meaning\nmodel: {self.model} ({self.model_reason})"
        )


def whole_percent(done: int, total: int) -> str:
    """Whole percent, rounded down: 11,294 of 11,343 is 99%, never 100% before the last."""
    return f"{100 * done // total if total else 100}%"


@dataclass(frozen=True)
class SourceReading:
    """How the files of one source read at their last indexing: read, skipped, and
    with parts the reader did not know (format drift: a new version of the tool)."""

    name: str  # the format (`source:` name); "" for files no format recognised
    tool: str  # what the user knows it as
    files: int  # files read
    skipped: int  # files refused (one line each in `index`)
    drifted: int  # files read with unknown parts
    unknown: int  # unknown parts in all, `top` the most frequent `kind:name` with their counts
    top: tuple[tuple[str, int], ...] = ()

    def describe(self) -> str:
        """One line, as `convo-tui sources` prints it: `Codex CLI (codex): 812 files, 3 with 41 unknown parts (...)`."""
        head = f"{self.tool} ({self.name})" if self.name else self.tool
        said = f"{head}: {self.files} file{'s' * (self.files != 1)}"
        if self.drifted:
            parts = ", ".join(f"{key.replace(':', ' ', 1)} ×{count}" for key, count in self.top)
            said += f", {self.drifted} with {self.unknown} unknown part{'s' * (self.unknown != 1)} ({parts})"
        if self.skipped:
            said += f", {self.skipped} skipped"
        return said


class Engine(Protocol):
    """Search, browse, edit and index one index; every method may block (run it off the UI thread).

    A `session_id` argument may be a session's whole id or a prefix of 8 or more
    characters that names one session (an ambiguous one is a one-line error listing
    a few it could mean)."""

    settings: Settings
    read_only: bool

    # -- models ------------------------------------------------------------------

    def load_model(self) -> None:
        """Make search by meaning ready (seconds the first time; keyword search never waits for it)."""
        ...

    def model_info(self) -> ModelInfo: ...

    # -- search --------------------------------------------------------------------

    def search(self, query: str, *, limit: int = 10, mode: str = "hybrid", offset: int = 0) -> list[Hit]:
        """Cards `offset .. offset+limit` of the ranking for `query` (filters included)."""
        ...

    def hits_in_session(self, query: str, session_id: str, *, mode: str = "hybrid") -> list[Hit]:
        """Every hit of `query` in one session, in session order (the reader's n/N)."""
        ...

    def context(
        self,
        question: str,
        *,
        session_id: str | None = None,
        recent: int = 10,
        refs: int = 5,
        all_sessions: bool = False,
        preferences: str | None = None,
        system: str | None = None,
        split: bool = False,
    ) -> list[ChatMessage]:
        """An LLM request's messages for `question`, drawn from the index (core/context.py);
        `system` None is the default system message."""
        ...

    # -- browsing --------------------------------------------------------------------

    def sessions(self, project: str | None = None, limit: int | None = None) -> list[SessionSummary]:
        """Indexed sessions, newest first (the `limit` newest when given)."""
        ...

    def session_page(
        self,
        *,
        offset: int = 0,
        limit: int = 100,
        sort: str = "date",
        starred_only: bool = False,
        text: str = "",
        around: str = "",
    ) -> SessionPage:
        """Rows `offset .. offset+limit` of the sessions list in one ordering ("date": newest
        first, "title", "project": grouped under a header per project; `text`: fuzzy on title
        and project, best first), with the list's counts: a browser at any size reads a page,
        never every session (core/library/catalogue.py). `around`: a session id; when the
        list holds it, the page of `limit` rows (at a multiple of `limit`) that holds it
        instead, its `offset` saying which: the browser keeps a session highlighted
        when a change moved it to another page."""
        ...

    def projects(self) -> list[tuple[str, int]]:
        """(project, session count), most sessions first."""
        ...

    def tags(self) -> list[tuple[str, int]]:
        """(tag, session count) of the tags the user gave indexed sessions, most first."""
        ...

    def session(self, session_id: str) -> Session: ...

    def session_summary(self, session_id: str) -> SessionSummary: ...

    def resolve_session_id(self, session_id: str) -> str:
        """The indexed session's whole id from an id or a unique prefix of 8+ characters
        (every operation taking a session id accepts a prefix; this names the session it means)."""
        ...

    def stats(self) -> Stats: ...

    def readiness(self, checked: bool = False) -> Readiness:
        """How much is searchable, by keyword and by meaning. `checked`: only once every
        file a search reads was checked (the deep pass, once per open: `sources`)."""
        ...

    def reading(self) -> list[SourceReading]:
        """Per source, how its files read at their last indexing (files, skipped, unknown parts)."""
        ...

    # -- the user's edits (never written to the source file) ---------------------------

    def rename_session(self, session_id: str, title: str) -> SessionSummary: ...

    def describe_session(self, session_id: str, text: str) -> SessionSummary: ...

    def star_session(self, session_id: str, starred: bool = True) -> SessionSummary: ...

    def tag_session(self, session_id: str, tags: list[str], *, remove: bool = False) -> SessionSummary: ...

    def session_settings(self, session_id: str) -> dict[str, bool]: ...

    def set_session_settings(
        self, session_id: str, *, hide_thinking: bool | None = None, hide_tools: bool | None = None
    ) -> dict[str, bool]:
        """Change how the app shows the session (None keeps a setting); returns them all."""
        ...

    def delete_session(self, session_id: str) -> None: ...

    def restore_session(self, session_id: str) -> bool: ...

    # -- indexing ------------------------------------------------------------------------

    def default_paths(self) -> list[Path]:
        """The tools' usual places and the configured sources: what `index` reads by default."""
        ...

    def index(
        self,
        paths: list[Path] | None = None,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelLike = None,
        rebuild: bool = False,
        semantic: bool = True,
    ) -> IndexReport:
        """Phase 1 (keyword) then, unless `semantic` is False, phase 2 (meaning); see core/index/."""
        ...

    def prune(self) -> int: ...

    # -- the archive (core/archive/) --------------------------------------------------------

    def archive_status(self) -> ArchiveStatus:
        """What the archive holds, how many sessions live only there, the machines
        pulled, and `warnings`: what the user should know now (a tool that deletes
        sessions, a full archive, an unreachable machine), one line each."""
        ...

    def export_archive(self, path: Path) -> ExportReport:
        """The archive and the user's edits (titles, stars, tags, notes) in one compressed file."""
        ...

    def import_archive(self, path: Path) -> ImportReport:
        """Merge an exported file (never duplicating); the next `index` indexes what it brought."""
        ...

    # -- lifecycle -------------------------------------------------------------------------

    def served_by(self) -> str | None:
        """Who does this engine's work: None for this process, else the process
        that holds the index, as `pid 123 (convo-tui serve)` (for one-line notices)."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
