"""The sessions browser's list at any size: pages of one ordering, and its counts.

A list of 45,000 sessions cannot be read whole for every look: each summary
would cross the holder's socket and the app would build a row for each. The
catalogue keeps, in the process that holds the index, one small row per session
(no transcript record, no file check), read once with a single scroll and read
again only after the index changed (`invalidate`: the facade calls it when an
index run publishes or a session is deleted). From it a page of any ordering
(newest first, by title, grouped by project), filter (starred, fuzzy title or
project) and offset is cut in milliseconds; the user's titles and stars
(annotations) are laid over at that moment, and only the rows of the page get
their summary (and the check that their source file still exists).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from convo_tui.core.annotations import overlay_summary
from convo_tui.core.hits import PageEntry, SessionPage, SessionSummary
from convo_tui.core.index.points import LEVEL_SESSION
from convo_tui.core.index.publish import visible_filter
from convo_tui.core.library.reading import summary_of
from convo_tui.core.redact import display
from convo_tui.core.store.base import Cond
from rapidfuzz import fuzz, process, utils

if TYPE_CHECKING:
    from convo_tui.core.annotations import Annotation, Annotations
    from convo_tui.core.store.base import Store

SORTS = ("date", "title", "project")
# What a row keeps: what a summary needs, less the description and tags (annotations) and the record.
ROW_FIELDS = [
    "session_id",
    "session_title",
    "project",
    "source",
    "path",
    "message_count",
    "turn_count",
    "started_at",
    "updated_at",
    "generation",
]
FUZZY_CUTOFF = 60  # as tui/session_filter.py did over the whole list
FUZZY_LIMIT = 500


@dataclass(frozen=True)
class Row:
    id: str
    title: str
    project: str
    source: str
    path: str
    messages: int
    turns: int
    started: float | None
    updated: float | None

    @property
    def newest(self) -> float:
        return self.updated or self.started or 0.0


class Catalogue:
    def __init__(self, store: Store, annotations: Annotations):
        self.store = store
        self.annotations = annotations
        self._lock = threading.Lock()
        self._rows: list[Row] | None = None

    def invalidate(self) -> None:
        """The index changed: the next page reads the rows again."""
        with self._lock:
            self._rows = None

    def rows(self) -> list[Row]:
        with self._lock:
            if self._rows is None:
                self._rows = self._read()
            return self._rows

    def _read(self) -> list[Row]:
        newest: dict[str, tuple[int, dict[str, Any]]] = {}
        for point in self.store.scroll(visible_filter(Cond("level", value=LEVEL_SESSION)), fields=ROW_FIELDS, batch=2048):
            p = point.payload
            sid = p.get("session_id", "")
            generation = int(p.get("generation", 0) or 0)
            if sid not in newest or generation > newest[sid][0]:  # a session mid-publish has two generations
                newest[sid] = (generation, p)
        return [
            Row(
                id=sid,
                title=p.get("session_title", "") or "",
                project=p.get("project", "") or "",
                source=p.get("source", "") or "",
                path=p.get("path", "") or "",
                messages=int(p.get("message_count", 0) or 0),
                turns=int(p.get("turn_count", 0) or 0),
                started=_epoch(p.get("started_at")),
                updated=_epoch(p.get("updated_at")),
            )
            for sid, (_, p) in newest.items()
        ]

    # -- pages ---------------------------------------------------------------------

    def page(
        self, *, offset: int = 0, limit: int = 100, sort: str = "date", starred_only: bool = False, text: str = ""
    ) -> SessionPage:
        rows = self.rows()
        notes = self.annotations.all()
        starred = sum(1 for row in rows if _starred(notes.get(row.id)))
        chosen = [row for row in rows if _starred(notes.get(row.id))] if starred_only else rows
        entries: list[tuple[str, int] | Row]
        if text.strip():  # best match first, whatever the sort
            entries = list(_fuzzy(chosen, text, notes))
        elif sort == "project":
            entries = _grouped(chosen, notes)
        else:
            entries = list(_sorted(chosen, sort, notes))
        matched = sum(1 for entry in entries if isinstance(entry, Row))
        window = entries[max(0, offset) : max(0, offset) + max(0, limit)]
        return SessionPage(
            offset=max(0, offset),
            total=len(entries),
            matched=matched,
            everything=len(rows),
            starred=starred,
            entries=[_entry(item, notes) for item in window],
        )

    def projects(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for row in self.rows():
            counts[row.project] = counts.get(row.project, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _epoch(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and value else None


def _starred(note: Annotation | None) -> bool:
    return bool(note and note.starred)


def _title(row: Row, notes: dict[str, Annotation]) -> str:
    note = notes.get(row.id)
    return (note.title if note and note.title else row.title) or ""


def _sorted(rows: list[Row], sort: str, notes: dict[str, Annotation]) -> list[Row]:
    """Newest first ("date") or A to Z by title ("title"); ties in a fixed order."""
    if sort == "title":
        return sorted(rows, key=lambda r: (_title(r, notes).casefold(), -r.newest, r.id))
    return sorted(rows, key=lambda r: (-r.newest, _title(r, notes).casefold(), r.id))


def _grouped(rows: list[Row], notes: dict[str, Annotation]) -> list[tuple[str, int] | Row]:
    """Projects ordered by their newest session, each a header then its sessions newest first."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.project or "(no project)", []).append(row)
    ordered = sorted(groups.items(), key=lambda item: (-max(r.newest for r in item[1]), item[0].casefold()))
    entries: list[tuple[str, int] | Row] = []
    for project, members in ordered:
        entries.append((project, len(members)))
        entries.extend(_sorted(members, "date", notes))
    return entries


def _fuzzy(rows: list[Row], text: str, notes: dict[str, Annotation]) -> list[Row]:
    """Sessions whose title or project match `text` (rapidfuzz WRatio), best first."""
    choices = {index: f"{display(_title(row, notes))} {row.project}" for index, row in enumerate(rows)}
    found = process.extract(
        text, choices, scorer=fuzz.WRatio, processor=utils.default_process, limit=FUZZY_LIMIT, score_cutoff=FUZZY_CUTOFF
    )
    return [rows[index] for _, _, index in found]


def _entry(item: tuple[str, int] | Row, notes: dict[str, Annotation]) -> PageEntry:
    if isinstance(item, tuple):
        return PageEntry(header=item[0], count=item[1])
    return PageEntry(summary=_summary(item, notes.get(item.id)))


def _summary(row: Row, note: Annotation | None) -> SessionSummary:
    payload = {
        "session_id": row.id,
        "session_title": row.title,
        "project": row.project,
        "source": row.source,
        "path": row.path,
        "message_count": row.messages,
        "turn_count": row.turns,
        "started_at": row.started,
        "updated_at": row.updated,
    }
    return overlay_summary(summary_of(payload), note)
