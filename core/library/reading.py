"""Reading the index: sessions, projects, whole sessions, stats and readiness.

Every read sees only published points (`visible`), and the user's edits
(core/annotations.py) laid over what the transcript said.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from typing import Any

from convo_tui.core.annotations import Annotations, overlay_session, overlay_summary
from convo_tui.core.engine import Readiness
from convo_tui.core.errors import ConvoError
from convo_tui.core.hits import SessionSummary
from convo_tui.core.index.points import LEVEL_RECORD, LEVEL_SESSION, from_epoch, stored_messages, stored_record
from convo_tui.core.index.visible import count_visible, semantic_status, visible_filter
from convo_tui.core.model import Session
from convo_tui.core.serialize import session_from_record
from convo_tui.core.sources import controls
from convo_tui.core.store.base import Cond, Scored, Store
from convo_tui.core.tally import session_tally
from convo_tui.core.unicode import without_controls

# Sessions looked up by id a query at most; past _WHOLE_SCAN of them every session point is read instead.
_IDS_A_QUERY = 512
_WHOLE_SCAN = 4096
# Whole sessions read between two releases of the index's pages (catalogue.RELEASE_ROWS).
RELEASE_SESSIONS = 1024

SUMMARY_FIELDS = [
    "session_id",
    "session_title",
    "project",
    "source",
    "path",
    "message_count",
    "turn_count",
    "started_at",
    "updated_at",
    "description",
    "starred",
    "tags",
    "generation",
    "machine",
]


def newest_generation(points: Iterable[Scored]) -> list[Scored]:
    """One session point per session. The indexer flips a new generation visible
    before it deletes the old one, so for a moment a session has two."""
    newest: dict[str, Scored] = {}
    for point in points:
        sid = point.payload.get("session_id", "")
        kept = newest.get(sid)
        if kept is None or point.payload.get("generation", 0) > kept.payload.get("generation", 0):
            newest[sid] = point
    return list(newest.values())


def whole_record(store: Store, payload: dict[str, Any]) -> dict[str, Any] | None:
    """A session point's record with all its messages: a session published in
    parts keeps them in its generation's record points (core/index/points.py)."""
    record = stored_record(payload)
    if record is None or not payload.get("record_parts"):
        return record
    flt = visible_filter(
        Cond("level", value=LEVEL_RECORD),
        Cond("session_id", value=payload.get("session_id", "")),
        Cond("generation", value=payload.get("generation", 0)),
    )
    parts = sorted(store.scroll(flt, fields=["record_part", "messages_z"]), key=lambda p: p.payload.get("record_part", 0))
    return {**record, "messages": [m for part in parts for m in stored_messages(part.payload)]}


def _exists(path: str) -> bool:
    """`Path(path).exists()` without making a Path: `sessions` asks it of every
    session (42k at a million messages: 0.3 s of pathlib of the command's 4.8 s)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return False
        raise
    except ValueError:  # a path no file can have (a NUL in it)
        return False
    return True


def summary_of(p: dict[str, Any]) -> SessionSummary:
    """A session point's payload as the summary lists show."""
    path = p.get("path", "")
    return SessionSummary(
        id=p.get("session_id", ""),
        title=without_controls(p.get("session_title", "")),
        project=p.get("project", ""),
        source=p.get("source", ""),
        path=path,
        message_count=int(p.get("message_count", 0)),
        turn_count=int(p.get("turn_count", 0)),
        started_at=from_epoch(p.get("started_at")),
        updated_at=from_epoch(p.get("updated_at")),
        description=p.get("description", "") or "",
        starred=bool(p.get("starred", False)),
        tags=list(p.get("tags", []) or []),
        orphaned=bool(path) and not _exists(path),
        machine=str(p.get("machine", "") or ""),
    )


class Reader:
    def __init__(self, store: Store, annotations: Annotations):
        self.store = store
        self.annotations = annotations

    def _session_points(self, *conds: Cond, fields: list[str]) -> list[Scored]:
        flt = visible_filter(Cond("level", value=LEVEL_SESSION), *conds)
        return newest_generation(self.store.scroll(flt, fields=fields))

    def session(self, session_id: str) -> Session:
        fields = ["session_id", "record", "record_z", "record_parts", "generation"]
        for point in self._session_points(Cond("session_id", value=session_id), fields=fields):
            record = whole_record(self.store, point.payload)
            if record is not None:
                session = session_from_record(record)
                controls.repair(session)  # an index built before readers removed terminal control holds it
                return overlay_session(session, self.annotations.get(session_id))
        raise ConvoError(f"no session '{session_id}' in the index")

    def session_summary(self, session_id: str) -> SessionSummary:
        for point in self._session_points(Cond("session_id", value=session_id), fields=SUMMARY_FIELDS):
            return overlay_summary(summary_of(point.payload), self.annotations.get(session_id))
        raise ConvoError(f"no session '{session_id}' in the index")

    def tallies(self, session_ids: set[str]) -> dict[str, str]:
        """The tallies of these sessions (indexed before tallies were kept), made from
        their whole records. One pass, each record let go once counted: at a million
        messages the records are gigabytes."""
        fields = ["session_id", "record", "record_z", "record_parts", "generation"]
        if len(session_ids) > _WHOLE_SCAN:
            batches: list[tuple[Cond, ...]] = [()]
        else:
            ids = sorted(session_ids)
            batches = [(Cond("session_id", any=tuple(ids[i : i + _IDS_A_QUERY])),) for i in range(0, len(ids), _IDS_A_QUERY)]
        made: dict[str, tuple[int, str]] = {}
        read = 0
        for conds in batches:
            for point in self.store.scroll(visible_filter(Cond("level", value=LEVEL_SESSION), *conds), fields=fields):
                sid, generation = point.payload.get("session_id", ""), point.payload.get("generation", 0)
                held = made.get(sid)
                # A session being published has two generations for a moment: the newest counts.
                if sid in session_ids and (held is None or generation > held[0]):
                    record = whole_record(self.store, point.payload)
                    if record is not None:
                        made[sid] = (generation, session_tally(session_from_record(record)))
                read += 1
                if read % RELEASE_SESSIONS == 0:
                    self.store.release_pages()  # the pages read stay mapped (RSS) until let go
        self.store.release_pages()
        return {sid: tally for sid, (_, tally) in made.items()}

    def readiness(self, model: str, model_reason: str) -> Readiness:
        status = semantic_status(self.store)
        sessions = count_visible(self.store, "level", LEVEL_SESSION)
        return Readiness(
            sessions=sessions, texts_ready=status.ready, texts_total=status.total, model=model, model_reason=model_reason
        )
