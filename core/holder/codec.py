"""Plain records <-> JSON for the holder protocol (both ends).

The records already know how to become JSON (`to_json`, `session_to_record`);
this module turns them back on the client side.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from convo_tui.core.hits import Hit, SessionSummary
from convo_tui.core.model import Session
from convo_tui.core.serialize import parse_iso, session_from_record, session_to_record

if TYPE_CHECKING:
    from convo_tui.core.index import IndexProgress, IndexReport


def hit_from_json(data: dict[str, Any]) -> Hit:
    values = dict(data)
    values["timestamp"] = parse_iso(values.get("timestamp"))
    return Hit(**values)


def summary_from_json(data: dict[str, Any]) -> SessionSummary:
    values = dict(data)
    for key in ("started_at", "updated_at"):
        values[key] = parse_iso(values.get(key))
    return SessionSummary(**values)


def session_json(session: Session) -> dict[str, Any]:
    return {"record": session_to_record(session), "warnings": list(session.warnings)}


def session_from_json(data: dict[str, Any]) -> Session:
    session = session_from_record(data["record"])
    session.warnings = list(data.get("warnings", []))
    return session


def report_json(report: IndexReport) -> dict[str, Any]:
    return asdict(report)


def report_from_json(data: dict[str, Any]) -> IndexReport:
    from convo_tui.core.index import IndexReport

    values = dict(data)
    values["skipped"] = [(str(path), str(reason)) for path, reason in values.get("skipped", [])]
    return IndexReport(**values)


def progress_json(progress: IndexProgress) -> dict[str, Any]:
    return asdict(progress)


def progress_from_json(data: dict[str, Any]) -> IndexProgress:
    from convo_tui.core.index import IndexProgress

    return IndexProgress(**data)
