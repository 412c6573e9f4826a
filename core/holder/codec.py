"""Plain records <-> JSON for the holder protocol (both ends).

The records already know how to become JSON (`to_json`, `session_to_record`);
this module turns them back on the client side.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import TYPE_CHECKING, Any

from convo_tui.core.hits import Hit, PageEntry, SessionPage, SessionSummary
from convo_tui.core.model import Session
from convo_tui.core.serialize import parse_iso, session_from_record, session_to_record

if TYPE_CHECKING:
    from convo_tui.core.index.publish import IndexProgress, IndexReport
    from convo_tui.core.stats import Count, Stats


def hit_from_json(data: dict[str, Any]) -> Hit:
    values = dict(data)
    values["timestamp"] = parse_iso(values.get("timestamp"))
    return Hit(**values)


def summary_from_json(data: dict[str, Any]) -> SessionSummary:
    values = dict(data)
    for key in ("started_at", "updated_at"):
        values[key] = parse_iso(values.get(key))
    return SessionSummary(**values)


def page_from_json(data: dict[str, Any]) -> SessionPage:
    entries = [
        PageEntry(
            header=e.get("header"),
            count=int(e.get("count", 0)),
            summary=summary_from_json(e["summary"]) if e.get("summary") else None,
        )
        for e in data.get("entries", [])
    ]
    counts = {k: int(data[k]) for k in ("offset", "total", "matched", "everything", "starred")}
    return SessionPage(**counts, entries=entries)


def session_json(session: Session) -> dict[str, Any]:
    return {"record": session_to_record(session), "warnings": list(session.warnings)}


def session_from_json(data: dict[str, Any]) -> Session:
    session = session_from_record(data["record"])
    session.warnings = list(data.get("warnings", []))
    return session


def report_json(report: IndexReport) -> dict[str, Any]:
    return asdict(report)


def report_from_json(data: dict[str, Any]) -> IndexReport:
    from convo_tui.core.index.publish import IndexReport

    values = dict(data)
    values["skipped"] = [(str(path), str(reason)) for path, reason in values.get("skipped", [])]
    values["notes"] = [str(note) for note in values.get("notes", [])]
    return IndexReport(**values)


def progress_json(progress: IndexProgress) -> dict[str, Any]:
    return asdict(progress)


def progress_from_json(data: dict[str, Any]) -> IndexProgress:
    """A progress event; fields this side does not know (a newer holder's) are left out."""
    from convo_tui.core.index.publish import IndexProgress

    known = {f.name for f in fields(IndexProgress)}
    return IndexProgress(**{key: value for key, value in data.items() if key in known})


def stats_json(stats: Stats) -> dict[str, Any]:
    return asdict(stats)


def _count(data: dict[str, Any]) -> Count:
    from convo_tui.core.cost.usage import Usage
    from convo_tui.core.stats import Count, Tokens

    tokens = data.get("tokens") or {}
    return Count(
        sessions=int(data.get("sessions", 0)),
        messages=int(data.get("messages", 0)),
        tokens=Tokens(input=int(tokens.get("input", 0)), output=int(tokens.get("output", 0))),
        has_tokens=bool(data.get("has_tokens", False)),
        models={str(name): Usage.from_json(usage) for name, usage in (data.get("models") or {}).items()},
    )


def stats_from_json(data: dict[str, Any]) -> Stats:
    from convo_tui.core.stats import Stats

    groups = {
        key: {name: _count(count) for name, count in data.get(key, {}).items()}
        for key in ("by_project", "by_source", "by_week", "by_day", "by_model")
    }
    return Stats(total=_count(data.get("total", {})), **groups)
