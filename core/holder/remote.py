"""`RemoteEngine`: the Engine answered by the process that holds the index.

Each method is one line: its operation in core/holder/ops.py encodes the
arguments and decodes the answer. When the holder dies mid-request, the
engine takes the index over (`take_over`, from access.py: whoever wins the
lock holds it next, maybe this process) and runs the request itself; a
`delete_session` the dead holder had already done then says "no session",
the other operations are idempotent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.core.engine import Engine, ModelInfo, Readiness, SourceReading
from convo_tui.core.errors import ConvoError
from convo_tui.core.holder import client, codec
from convo_tui.core.holder.ops import OPERATIONS
from convo_tui.core.settings import Settings

if TYPE_CHECKING:
    from convo_tui.core.archive.status import ArchiveStatus, ExportReport, ImportReport
    from convo_tui.core.context import ChatMessage
    from convo_tui.core.hits import Hit, SessionPage, SessionSummary
    from convo_tui.core.index.publish import CancelLike, IndexReport, ProgressFn
    from convo_tui.core.model import Session
    from convo_tui.core.stats import Stats


class _Polled:
    """A callable cancel signal seen as an Event by the client, which polls `is_set`."""

    def __init__(self, stop: Callable[[], bool]):
        self._stop = stop

    def is_set(self) -> bool:
        return bool(self._stop())


class RemoteEngine(Engine):
    def __init__(
        self,
        settings: Settings,
        path: Path,
        hello: dict[str, Any],
        *,
        take_over: Callable[[], Engine],
        read_only: bool = False,
    ):
        self.settings = settings
        self.path = path
        self.read_only = read_only
        self.holder_pid = int(hello.get("pid", 0) or 0)
        self.holder_command = str(hello.get("command") or "")
        model = hello.get("model") or {}
        self.index_model = str(model.get("model") or "")
        self._take_over = take_over
        self._local: Engine | None = None

    def _call(self, name: str, **kwargs: Any) -> Any:
        if self._local is None:
            operation = OPERATIONS[name]
            extra: dict[str, Any] = {}
            if operation.streams:
                extra = {"on_progress": _relay(kwargs.get("progress")), "cancel": _as_event(kwargs.get("cancel"))}
            try:
                answer = client.call(self.path, name, operation.to_wire(kwargs), **extra)
                return operation.result.decode(answer)
            except (client.NoHolder, client.HolderGone):
                self._local = self._take_over()  # the holder died or quit: whoever gets the lock now holds the index
                if operation.streams and kwargs.get("progress") is not None:
                    from convo_tui.core.index.publish import IndexProgress

                    kwargs["progress"](IndexProgress("takeover", 0, 0))  # the run goes on here (or at the new holder)
        return getattr(self._local, name)(**kwargs)

    # -- models: the holder's ------------------------------------------------------

    def load_model(self) -> None:
        self._call("load_model")

    def model_info(self) -> ModelInfo:
        info: ModelInfo = self._call("model_info")
        return info

    # -- search ----------------------------------------------------------------------

    def search(self, query: str, *, limit: int = 10, mode: str = "hybrid", offset: int = 0) -> list[Hit]:
        hits: list[Hit] = self._call("search", query=query, limit=limit, mode=mode, offset=offset)
        return hits

    def hits_in_session(self, query: str, session_id: str, *, mode: str = "hybrid") -> list[Hit]:
        hits: list[Hit] = self._call("hits_in_session", query=query, session_id=session_id, mode=mode)
        return hits

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
        messages: list[ChatMessage] = self._call(
            "context",
            question=question,
            session_id=session_id,
            recent=recent,
            refs=refs,
            all_sessions=all_sessions,
            preferences=preferences,
            system=system,
            split=split,
        )
        return messages

    # -- browsing ----------------------------------------------------------------------

    def sessions(self, project: str | None = None, limit: int | None = None) -> list[SessionSummary]:
        summaries: list[SessionSummary] = self._call("sessions", project=project, limit=limit)
        return summaries

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
        page: SessionPage = self._call(
            "session_page", offset=offset, limit=limit, sort=sort, starred_only=starred_only, text=text, around=around
        )
        return page

    def projects(self) -> list[tuple[str, int]]:
        projects: list[tuple[str, int]] = self._call("projects")
        return projects

    def tags(self) -> list[tuple[str, int]]:
        tags: list[tuple[str, int]] = self._call("tags")
        return tags

    def session(self, session_id: str) -> Session:
        session: Session = self._call("session", session_id=session_id)
        return session

    def session_summary(self, session_id: str) -> SessionSummary:
        summary: SessionSummary = self._call("session_summary", session_id=session_id)
        return summary

    def resolve_session_id(self, session_id: str) -> str:
        resolved: str = self._call("resolve_session_id", session_id=session_id)
        return resolved

    def stats(self) -> Stats:
        stats: Stats = self._call("stats")
        return stats

    def readiness(self, checked: bool = False) -> Readiness:
        readiness: Readiness = self._call("readiness", checked=checked)
        return readiness

    def reading(self) -> list[SourceReading]:
        readings: list[SourceReading] = self._call("reading")
        return readings

    # -- edits -------------------------------------------------------------------------

    def rename_session(self, session_id: str, title: str) -> SessionSummary:
        summary: SessionSummary = self._call("rename_session", session_id=session_id, title=title)
        return summary

    def describe_session(self, session_id: str, text: str) -> SessionSummary:
        summary: SessionSummary = self._call("describe_session", session_id=session_id, text=text)
        return summary

    def star_session(self, session_id: str, starred: bool = True) -> SessionSummary:
        summary: SessionSummary = self._call("star_session", session_id=session_id, starred=starred)
        return summary

    def tag_session(self, session_id: str, tags: list[str], *, remove: bool = False) -> SessionSummary:
        summary: SessionSummary = self._call("tag_session", session_id=session_id, tags=list(tags), remove=remove)
        return summary

    def session_settings(self, session_id: str) -> dict[str, bool]:
        values: dict[str, bool] = self._call("session_settings", session_id=session_id)
        return values

    def set_session_settings(
        self, session_id: str, *, hide_thinking: bool | None = None, hide_tools: bool | None = None
    ) -> dict[str, bool]:
        values: dict[str, bool] = self._call(
            "set_session_settings", session_id=session_id, hide_thinking=hide_thinking, hide_tools=hide_tools
        )
        return values

    def delete_session(self, session_id: str) -> None:
        self._call("delete_session", session_id=session_id)

    def restore_session(self, session_id: str) -> bool:
        restored: bool = self._call("restore_session", session_id=session_id)
        return restored

    # -- indexing -----------------------------------------------------------------------

    def default_paths(self) -> list[Path]:
        paths: list[Path] = self._call("default_paths")
        return paths

    def index(
        self,
        paths: list[Path] | None = None,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelLike = None,
        rebuild: bool = False,
        semantic: bool = True,
    ) -> IndexReport:
        """Run by the holder; closing the connection (Ctrl+C here) cancels it there.

        The holder indexes with its own settings: a run that asks for another
        model than the index's is refused in one line rather than run without
        the switch (the switch rewrites every dense vector under the holder)."""
        wanted = self.settings.model
        if wanted != "auto" and self.index_model and _model_key(wanted) != _model_key(self.index_model):
            # The holder may be the app, `serve`, or the one a command left for the next (keep_warm).
            raise ConvoError(
                f"index {self.settings.index_dir} is held by {self.served_by()}, which uses {self.index_model}; "
                f"to switch to {wanted}, stop it and run `convo-tui index --model {wanted}` again"
            )
        try:
            report: IndexReport = self._call(
                "index", paths=paths, progress=progress, cancel=cancel, rebuild=rebuild, semantic=semantic
            )
        except client.Cancelled:
            from convo_tui.core.index.publish import IndexReport

            return IndexReport(cancelled=True)  # what was indexed so far is kept; the next run finishes
        return report

    def prune(self) -> int:
        removed: int = self._call("prune")
        return removed

    # -- the archive ---------------------------------------------------------------------

    def archive_status(self) -> ArchiveStatus:
        status: ArchiveStatus = self._call("archive_status")
        return status

    def export_archive(self, path: Path) -> ExportReport:
        report: ExportReport = self._call("export_archive", path=path)
        return report

    def import_archive(self, path: Path) -> ImportReport:
        report: ImportReport = self._call("import_archive", path=path)
        return report

    # -- lifecycle -------------------------------------------------------------------------

    def served_by(self) -> str | None:
        if self._local is not None:
            return self._local.served_by()
        brief = _brief(self.holder_command)
        return f"pid {self.holder_pid} ({brief})" if brief else f"pid {self.holder_pid}"

    def close(self) -> None:
        local, self._local = self._local, None
        if local is not None:
            local.close()


def _relay(progress: ProgressFn | None) -> Callable[[dict[str, Any]], None] | None:
    if progress is None:
        return None
    return lambda data: progress(codec.progress_from_json(data))


def _as_event(cancel: CancelLike) -> Any:
    if cancel is None or isinstance(cancel, threading.Event):
        return cancel
    return _Polled(cancel)


def _brief(command: str) -> str:
    """`convo-tui serve --no-watch --index-dir ~/idx` -> `convo-tui serve`: the program and what it
    does, without its options and paths (a one-line notice names the process, the pid tells it apart)."""
    words = command.split()
    kept = words[:1]
    for word in words[1:]:
        if word.startswith("-") or len(kept) == 2:
            break
        if "/" not in word:
            kept.append(word)
    if kept == ["convo-tui"]:
        kept.append("app")  # no command: the app
    return " ".join(kept)


def _model_key(name: str) -> str:
    return name.lower().removeprefix("intfloat/")
