"""What a holder answers: each protocol op, run against the open Library.

Every op takes the request's `args` and returns plain JSON; `index` also
reports progress through `emit` and stops when `cancel` is set (the client
went away).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.core.errors import ConvoError
from convo_tui.core.holder import codec
from convo_tui.core.holder.protocol import VERSION

if TYPE_CHECKING:
    from convo_tui.core.library import Library

Emit = Callable[[dict[str, Any]], None]
Op = Callable[["Library", dict[str, Any], Emit, threading.Event], Any]


def _text(args: dict[str, Any], key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str):
        raise ConvoError(f"'{key}' must be a string")
    return value


def _int(args: dict[str, Any], key: str, default: int) -> int:
    value = args.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConvoError(f"'{key}' must be a whole number, 0 or more")
    return value


def _hello(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    model = library.store.read_meta().get("model")
    return {"pid": os.getpid(), "protocol": VERSION, "model_ready": library.model_ready, "index_model": model}


def _search(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    hits = library.search(_text(args, "query"), limit=_int(args, "limit", 10), mode=_text(args, "mode", "hybrid"))
    return [hit.to_json() for hit in hits]


def _hits_in_session(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    hits = library.hits_in_session(_text(args, "query"), _text(args, "session_id"), mode=_text(args, "mode", "hybrid"))
    return [hit.to_json() for hit in hits]


def _sessions(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    project = args.get("project")
    return [s.to_json() for s in library.sessions(project if isinstance(project, str) else None)]


def _projects(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return [[name, count] for name, count in library.projects()]


def _stats(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return codec.stats_json(library.stats())


def _readiness(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.readiness_line()


def _session(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return codec.session_json(library.session(_text(args, "id")))


def _summary(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.session_summary(_text(args, "id")).to_json()


def _settings(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.session_settings(_text(args, "id"))


def _set_settings(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    values = args.get("values", {})
    if not isinstance(values, dict) or not all(isinstance(v, bool) for v in values.values()):
        raise ConvoError("'values' must map setting names to true or false")
    return library.set_session_settings(_text(args, "id"), **values)


def _rename(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.rename_session(_text(args, "id"), _text(args, "title")).to_json()


def _describe(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.describe_session(_text(args, "id"), _text(args, "text")).to_json()


def _star(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.star_session(_text(args, "id"), bool(args.get("starred", True))).to_json()


def _tag(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    tags = args.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ConvoError("'tags' must be a list of strings")
    return library.tag_session(_text(args, "id"), tags, remove=bool(args.get("remove", False))).to_json()


def _delete(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    library.delete_session(_text(args, "id"))
    return True


def _restore(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.restore_session(_text(args, "id"))


def _prune(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    return library.prune()


def _index(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    raw = args.get("paths")
    if raw is not None and (not isinstance(raw, list) or not all(isinstance(p, str) for p in raw)):
        raise ConvoError("'paths' must be a list of strings")
    paths = [Path(p) for p in raw] if raw is not None else None

    def progress(p: Any) -> None:
        emit({"progress": codec.progress_json(p)})

    report = library.index(paths, progress=progress, cancel=cancel, rebuild=bool(args.get("rebuild", False)))
    return codec.report_json(report)


def _context(library: Library, args: dict[str, Any], emit: Emit, cancel: threading.Event) -> Any:
    from convo_tui.core.context import context_for

    session_id = args.get("session_id")
    extra = {"system": _text(args, "system")} if "system" in args else {}
    preferences = args.get("preferences")
    messages = context_for(
        library,
        _text(args, "question"),
        session_id=session_id if isinstance(session_id, str) else None,
        recent=_int(args, "recent", 10),
        refs=_int(args, "refs", 5),
        all_sessions=bool(args.get("all_sessions", False)),
        preferences=preferences if isinstance(preferences, str) else None,
        split=bool(args.get("split", False)),
        **extra,
    )
    return [m.to_json() for m in messages]


OPS: dict[str, Op] = {
    "hello": _hello,
    "search": _search,
    "hits_in_session": _hits_in_session,
    "sessions": _sessions,
    "projects": _projects,
    "stats": _stats,
    "readiness": _readiness,
    "session": _session,
    "session_summary": _summary,
    "session_settings": _settings,
    "set_session_settings": _set_settings,
    "rename": _rename,
    "describe": _describe,
    "star": _star,
    "tag": _tag,
    "delete": _delete,
    "restore": _restore,
    "prune": _prune,
    "index": _index,
    "context": _context,
}
