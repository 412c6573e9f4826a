"""Reach the index from any process: ask its holder, or become the holder.

`attach` returns a RemoteLibrary when a holder answers on the index's socket,
else opens the Library here (which then serves the others). A RemoteLibrary
whose holder dies mid-request takes the index over and runs the request
itself; a holder that stops answering is reported in one line.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from convo_tui.core.errors import ConvoError, IndexBusy
from convo_tui.core.holder import client, codec, protocol
from convo_tui.core.model import Session
from convo_tui.core.search.hits import Hit, SessionSummary
from convo_tui.core.settings import Settings
from convo_tui.core.stats import Stats

if TYPE_CHECKING:
    from convo_tui.core.context import ChatMessage
    from convo_tui.core.index.publish import IndexProgress, IndexReport
    from convo_tui.core.library import Library

T = TypeVar("T")
# Between two tries while another process holds the lock but its socket is not up yet.
_POLL = 0.05
# Written by the first `index` run; a read-only command on a built index still opens
# it writable, so that the edits it serves to others can be written.
_META_NAME = "meta.json"


def attach(settings: Settings, *, read_only: bool = False, allow_mismatch: bool = False) -> Library | RemoteLibrary:
    """The holder's RemoteLibrary if one answers, else the Library opened (and served) here."""
    if settings.qdrant_url or not protocol.supported():
        from convo_tui.core.library import Library

        return Library.open(settings, read_only=read_only, allow_mismatch=allow_mismatch)
    path = protocol.socket_path(settings.index_dir)
    deadline: float | None = None
    while True:
        try:
            hello = client.call(path, "hello")
            return RemoteLibrary(settings, path, hello, read_only=read_only, allow_mismatch=allow_mismatch)
        except (client.NoHolder, client.HolderGone):
            pass  # none, or one that stopped while we asked (its command ended): the lock decides next
        from convo_tui.core.library import Library

        built = (settings.index_dir / _META_NAME).is_file()
        try:
            return Library.open(settings, read_only=read_only and not built, allow_mismatch=allow_mismatch, reading=read_only)
        except IndexBusy:
            # Its holder is still opening the index (or closing it): wait for its socket,
            # or for the lock to come free, at most one timeout.
            now = time.monotonic()
            deadline = deadline or now + protocol.timeout()
            if now >= deadline:
                raise
            time.sleep(_POLL)


@contextmanager
def open_library(settings: Settings, *, read_only: bool = False, allow_mismatch: bool = False) -> Iterator[Any]:
    """`attach` as a context manager: closes what it opened (a remote has nothing to close)."""
    library = attach(settings, read_only=read_only, allow_mismatch=allow_mismatch)
    try:
        yield library
    finally:
        library.close()


def ask_context(library: Library | RemoteLibrary, question: str, **options: Any) -> list[ChatMessage]:
    """core.context.context_for, run by the holder when there is one."""
    if isinstance(library, RemoteLibrary):
        return library.context(question, **options)
    from convo_tui.core.context import context_for

    return context_for(library, question, **options)


class RemoteLibrary:
    """The Library's methods, answered by the holder process."""

    def __init__(
        self, settings: Settings, path: Path, hello: dict[str, Any], *, read_only: bool = False, allow_mismatch: bool = False
    ):
        self.settings = settings
        self.path = path
        self.holder_pid = int(hello.get("pid", 0) or 0)
        self.index_model = str(hello.get("index_model") or "")
        self.model_ready = True  # the holder loads its model on demand
        self.read_only = read_only
        self._allow_mismatch = allow_mismatch
        self._local: Library | RemoteLibrary | None = None

    def _ask(
        self,
        op: str,
        args: dict[str, Any],
        decode: Callable[[Any], T],
        local: Callable[[Library | RemoteLibrary], T],
        on_progress: Callable[[dict[str, Any]], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> T:
        if self._local is None:
            try:
                return decode(client.call(self.path, op, args, on_progress=on_progress, cancel=cancel))
            except (client.NoHolder, client.HolderGone):
                # The holder died: whoever gets the lock now holds the index (maybe us).
                self._local = attach(self.settings, read_only=self.read_only, allow_mismatch=self._allow_mismatch)
        return local(self._local)

    # -- models: the holder's business -------------------------------------------

    def load_model(self) -> None:
        return None

    # -- search -------------------------------------------------------------------

    def search(self, query: str, *, limit: int = 10, mode: str = "hybrid") -> list[Hit]:
        return self._ask(
            "search",
            {"query": query, "limit": limit, "mode": mode},
            lambda r: [codec.hit_from_json(h) for h in r],
            lambda lib: lib.search(query, limit=limit, mode=mode),
        )

    def hits_in_session(self, query: str, session_id: str, mode: str = "hybrid") -> list[Hit]:
        return self._ask(
            "hits_in_session",
            {"query": query, "session_id": session_id, "mode": mode},
            lambda r: [codec.hit_from_json(h) for h in r],
            lambda lib: lib.hits_in_session(query, session_id, mode),
        )

    def context(self, question: str, **options: Any) -> list[ChatMessage]:
        from convo_tui.core.context import ChatMessage

        args = {"question": question, **options}
        return self._ask(
            "context",
            args,
            lambda r: [ChatMessage(m["role"], m["content"]) for m in r],
            lambda lib: ask_context(lib, question, **options),
        )

    # -- browsing -------------------------------------------------------------------

    def sessions(self, project: str | None = None) -> list[SessionSummary]:
        return self._ask(
            "sessions", {"project": project}, lambda r: [codec.summary_from_json(s) for s in r], lambda lib: lib.sessions(project)
        )

    def projects(self) -> list[tuple[str, int]]:
        return self._ask("projects", {}, lambda r: [(str(n), int(c)) for n, c in r], lambda lib: lib.projects())

    def stats(self) -> Stats:
        return self._ask("stats", {}, codec.stats_from_json, lambda lib: lib.stats())

    def readiness_line(self) -> str:
        return self._ask("readiness", {}, str, lambda lib: lib.readiness_line())

    def session(self, session_id: str) -> Session:
        return self._ask("session", {"id": session_id}, codec.session_from_json, lambda lib: lib.session(session_id))

    def session_summary(self, session_id: str) -> SessionSummary:
        return self._ask(
            "session_summary", {"id": session_id}, codec.summary_from_json, lambda lib: lib.session_summary(session_id)
        )

    # -- edits ------------------------------------------------------------------------

    def rename_session(self, session_id: str, title: str) -> SessionSummary:
        return self._ask(
            "rename",
            {"id": session_id, "title": title},
            codec.summary_from_json,
            lambda lib: lib.rename_session(session_id, title),
        )

    def describe_session(self, session_id: str, text: str) -> SessionSummary:
        return self._ask(
            "describe",
            {"id": session_id, "text": text},
            codec.summary_from_json,
            lambda lib: lib.describe_session(session_id, text),
        )

    def star_session(self, session_id: str, starred: bool = True) -> SessionSummary:
        return self._ask(
            "star",
            {"id": session_id, "starred": starred},
            codec.summary_from_json,
            lambda lib: lib.star_session(session_id, starred),
        )

    def tag_session(self, session_id: str, tags: list[str], *, remove: bool = False) -> SessionSummary:
        return self._ask(
            "tag",
            {"id": session_id, "tags": list(tags), "remove": remove},
            codec.summary_from_json,
            lambda lib: lib.tag_session(session_id, tags, remove=remove),
        )

    def session_settings(self, session_id: str) -> dict[str, bool]:
        return self._ask("session_settings", {"id": session_id}, dict, lambda lib: lib.session_settings(session_id))

    def set_session_settings(self, session_id: str, **values: bool) -> dict[str, bool]:
        return self._ask(
            "set_session_settings",
            {"id": session_id, "values": values},
            dict,
            lambda lib: lib.set_session_settings(session_id, **values),
        )

    def delete_session(self, session_id: str) -> None:
        self._ask("delete", {"id": session_id}, lambda r: None, lambda lib: lib.delete_session(session_id))

    def restore_session(self, session_id: str) -> bool:
        return self._ask("restore", {"id": session_id}, bool, lambda lib: lib.restore_session(session_id))

    # -- indexing -----------------------------------------------------------------------

    def prune(self) -> int:
        return self._ask("prune", {}, int, lambda lib: lib.prune())

    def index(
        self,
        paths: list[Path] | None = None,
        *,
        progress: Callable[[IndexProgress], None] | None = None,
        cancel: threading.Event | None = None,
        rebuild: bool = False,
    ) -> IndexReport:
        """Run by the holder; closing the connection (Ctrl+C here) cancels it there.

        The holder indexes with its own settings: a run that asks for another
        model than the index's is refused in one line rather than run without
        the switch (the switch rewrites every dense vector under the holder)."""
        wanted = self.settings.model
        if wanted != "auto" and self.index_model and _model_key(wanted) != _model_key(self.index_model):
            raise ConvoError(
                f"index {self.settings.index_dir} is held by pid {self.holder_pid} (the app or `serve`), which uses "
                f"{self.index_model}; to switch to {wanted}, close it and run `convo-tui index --model {wanted}` again"
            )
        args = {"paths": [str(p.absolute()) for p in paths] if paths is not None else None, "rebuild": rebuild}

        def relay(data: dict[str, Any]) -> None:
            if progress is not None:
                progress(codec.progress_from_json(data))

        try:
            return self._ask(
                "index",
                args,
                codec.report_from_json,
                lambda lib: lib.index(paths, progress=progress, cancel=cancel, rebuild=rebuild),
                on_progress=relay,
                cancel=cancel,
            )
        except client.Cancelled:
            from convo_tui.core.index.publish import IndexReport

            return IndexReport(cancelled=True)  # what was indexed so far is kept; the next run finishes

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        local, self._local = self._local, None
        if local is not None:
            local.close()

    def __enter__(self) -> RemoteLibrary:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _model_key(name: str) -> str:
    return name.lower().removeprefix("intfloat/")
