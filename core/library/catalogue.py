"""The sessions browser's list at any size: pages of one ordering, and its counts.

A list of 45,000 sessions cannot be read whole for every look: each summary
would cross the holder's socket and the app would build a row for each. The
catalogue keeps, in the process that holds the index, one small row per session
(no transcript record, no file check). From it a page of any ordering (newest
first, by title, grouped by project), filter (starred, fuzzy title or project)
and offset is cut in milliseconds; the user's titles and stars (annotations)
are laid over at that moment, and only the rows of the page get their summary
(and the check that their source file still exists). The same rows answer
`sessions` whole, and carry each session's tally, which `stats` counts
(core/tally.py) instead of reading a million messages.

The rows come from the index once, and after that only what changed: when the
index changed (`invalidate`: the facade calls it when an index run publishes),
the next page reads the session points of newer generations than the rows hold
(every run publishes under a new generation, time.time_ns() at its start) and
checks the sum against the index's count of sessions. Anything else (a session
deleted, a file that lost sessions, `prune`, a rebuild) changes that count
without a newer generation, and the rows are then read whole. A writable
process keeps the rows in a file (core/library/session_rows.py), which the next
start checks the same way instead of reading 42,000 session points cold.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.core.annotations import overlay_summary, tag_key
from convo_tui.core.hits import PageEntry, SessionPage, SessionSummary
from convo_tui.core.index.points import LEVEL_SESSION, from_epoch
from convo_tui.core.index.visible import count_visible, visible_filter
from convo_tui.core.library import session_rows
from convo_tui.core.library.reading import summary_of
from convo_tui.core.library.session_rows import ROW_FIELDS, Row, keep_newest, row_of
from convo_tui.core.redact import display
from convo_tui.core.store.base import Cond, Filter
from rapidfuzz import fuzz, process, utils

# Each session point sits on pages of its own among the message points, and each
# page read stays mapped, so counted in the process' RSS, until let go: the whole
# read after a million-message index was first built took the run's RSS from 0.6
# to 2.3 GB (BENCHMARKS.md, "Nineteenth session"). Let go every this many rows.
RELEASE_ROWS = 1024

if TYPE_CHECKING:
    from convo_tui.core.annotations import Annotation, Annotations
    from convo_tui.core.stats import Stats
    from convo_tui.core.store.base import Store
    from convo_tui.core.tally import Tallied

SORTS = ("date", "title", "project")
FUZZY_CUTOFF = 60  # as tui/session_filter.py did over the whole list
FUZZY_LIMIT = 500
# Generations are time.time_ns() of runs seconds apart, but a range in the store
# is a float (steps of 256 at today's values): past this margin the rows' own
# newest generation is never read again as "newer".
GENERATION_MARGIN = 1_000_000
SESSIONS = visible_filter(Cond("level", value=LEVEL_SESSION))


@dataclass(frozen=True)
class Refresh:
    """How the last check brought the rows up to date (for tests and the bench)."""

    whole: bool  # read every session point (else only newer generations)
    read: int  # session points read
    saved: bool  # the rows' file was written


class Catalogue:
    def __init__(self, store: Store, annotations: Annotations, folder: Path | None = None, *, writable: bool = False):
        self.store = store
        self.annotations = annotations
        self.folder = folder  # where the rows' file is read (and written when `writable`)
        self.writable = writable and folder is not None
        self._lock = threading.Lock()
        self._known: dict[str, Row] | None = None
        self._rows: list[Row] = []
        self._current = False
        self.last_refresh: Refresh | None = None
        self._counted: tuple[list[Row], Stats] | None = None  # the rows last counted, and their stats

    def invalidate(self) -> None:
        """The index changed: the next page checks the rows against it."""
        with self._lock:
            self._current = False

    def forget(self, session_id: str) -> None:
        """A session was deleted here: drop its row (the count check would find it,
        at the cost of reading every row again)."""
        with self._lock:
            if self._known is not None and self._known.pop(session_id, None) is not None:
                self._rows = list(self._known.values())
                self._save(self._known)
            self._current = False

    def rows(self) -> list[Row]:
        with self._lock:
            if not self._current:
                self._bring_up_to_date()
            return self._rows

    def _bring_up_to_date(self) -> None:
        known = self._known
        if known is None and self.folder is not None:
            known = session_rows.load(self.folder)
        whole, read, changed = known is None, 0, False
        if known is not None:
            known = dict(known)
            newest = max((row.generation for row in known.values()), default=0)
            read = self._read_into(known, SESSIONS.and_(Cond("generation", gte=newest + GENERATION_MARGIN)))
            changed = read > 0
            if len(known) != count_visible(self.store, "level", LEVEL_SESSION):
                whole = True
        if whole:
            known = {}
            read = self._read_into(known, SESSIONS)
            changed = True
        assert known is not None
        saved = self._save(known) if changed else False
        self._known, self._rows, self._current = known, list(known.values()), True
        self.last_refresh = Refresh(whole=whole, read=read, saved=saved)

    def _read_into(self, known: dict[str, Row], where: Filter) -> int:
        read = 0
        for point in self.store.scroll(where, fields=ROW_FIELDS, batch=2048):
            keep_newest(known, row_of(point.payload))
            read += 1
            if read % RELEASE_ROWS == 0:
                self.store.release_pages()
        if read:
            self.store.release_pages()
        return read

    def _save(self, known: dict[str, Row]) -> bool:
        return self.writable and self.folder is not None and session_rows.save(self.folder, known)

    # -- pages ---------------------------------------------------------------------

    def page(
        self,
        *,
        offset: int = 0,
        limit: int = 100,
        sort: str = "date",
        starred_only: bool = False,
        text: str = "",
        around: str = "",
    ) -> SessionPage:
        rows = self.rows()
        notes = self.annotations.all()
        starred = sum(1 for row in rows if _starred(notes.get(row.id)))
        chosen = [row for row in rows if _starred(notes.get(row.id))] if starred_only else rows
        entries: list[tuple[str, int] | Row]
        tag, rest = _tag_asked(text)
        if tag is not None:  # `tag:NAME`: the sessions with that tag, as the search's filter finds them
            tagged = [r for r in chosen if _has_tag(notes.get(r.id), tag)]
            entries = list(_fuzzy(tagged, rest, notes) if rest else _sorted(tagged, sort, notes))
        elif text.strip():  # best match first, whatever the sort
            entries = list(_fuzzy(chosen, text, notes))
        elif sort == "project":
            entries = _grouped(chosen, notes)
        else:
            entries = list(_sorted(chosen, sort, notes))
        matched = sum(1 for entry in entries if isinstance(entry, Row))
        if around and limit > 0:  # the page that holds this session, wherever the ordering put it
            at = next((i for i, entry in enumerate(entries) if isinstance(entry, Row) and entry.id == around), None)
            if at is not None:
                offset = at // limit * limit
        window = entries[max(0, offset) : max(0, offset) + max(0, limit)]
        return SessionPage(
            offset=max(0, offset),
            total=len(entries),
            matched=matched,
            everything=len(rows),
            starred=starred,
            entries=[_entry(item, notes) for item in window],
        )

    def summaries(self, project: str | None = None, limit: int | None = None) -> list[SessionSummary]:
        """Every session (of `project`; the `limit` newest), newest first, the user's
        edits laid over: `sessions` and the agents' list, without reading the session
        points. Only those returned get a summary (and their file looked for)."""
        rows = [row for row in self.rows() if not project or row.project == project]
        notes = self.annotations.all()
        newest = _sorted(rows, "date", notes)
        return [_summary(row, notes.get(row.id)) for row in (newest if limit is None else newest[:limit])]

    def stats(self, read_tallies: Callable[[set[str]], dict[str, str]]) -> Stats:
        """Every session counted from its tally (core/tally.py). The same rows are
        counted once: the stats screen opened again asks again (2 s at a million
        messages). A tally that cannot be read (a file another build wrote) is made
        again from its session's record."""
        from convo_tui.core.tally import count_tallies

        with self._lock:
            self._fill_tallies(read_tallies)
            if self._counted is not None and self._counted[0] is self._rows:
                return copy.deepcopy(self._counted[1])
            unreadable: list[str] = []
            stats = count_tallies(_tallied(self._rows), unreadable=unreadable)
            if unreadable:
                self._set_tallies(dict.fromkeys(unreadable))
                self._fill_tallies(read_tallies)
                stats = count_tallies(_tallied(self._rows))
            self._counted = (self._rows, stats)  # the list itself: rows are replaced, never changed
            return copy.deepcopy(stats)

    def fill_tallies(self, read_tallies: Callable[[set[str]], dict[str, str]]) -> None:
        """Bring the rows up to date, with a tally for every session. Sessions indexed
        before tallies have none in their row: `read_tallies` makes theirs from their
        whole records (once: whichever process made them keeps them in the rows' file)."""
        with self._lock:
            self._fill_tallies(read_tallies)

    def _fill_tallies(self, read_tallies: Callable[[set[str]], dict[str, str]]) -> None:
        if not self._current:
            self._bring_up_to_date()
        assert self._known is not None
        missing = {row.id for row in self._rows if row.tally is None}
        if not missing:
            return
        made = read_tallies(missing)
        self._set_tallies(made)
        if made and self.folder is not None:
            # Saved by a reading process too (`stats` with no holder): reading whole
            # sessions costs a minute at a million messages, and the file is a cache
            # every start checks against the index before it trusts it.
            session_rows.save(self.folder, self._known)

    def _set_tallies(self, tallies: Mapping[str, str | None]) -> None:
        """These sessions' rows with these tallies (None: to be made again)."""
        assert self._known is not None
        for sid, tally in tallies.items():
            if (row := self._known.get(sid)) is not None:
                self._known[sid] = replace(row, tally=tally)
        self._rows = list(self._known.values())

    def projects(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for row in self.rows():
            counts[row.project] = counts.get(row.project, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _tallied(rows: list[Row]) -> list[Tallied]:
    from convo_tui.core.tally import Tallied  # the stats' alone

    return [
        Tallied(row.project, row.source, from_epoch(row.started or row.updated), row.tally, row.id)
        for row in rows
        if row.tally is not None
    ]


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


_TAG_FIRST = re.compile(r'(?i)tag:(?:"(?P<quoted>[^"]*)"|(?P<word>\S+))\s*')


def _tag_asked(text: str) -> tuple[str | None, str]:
    """(tag, the rest) of a filter that starts with `tag:NAME` (quoted, or one word as in
    a search: `tag:release deploy` is the tag and a word), the tag casefolded; else (None, text)."""
    found = _TAG_FIRST.match(text.strip())
    if found is None:
        return None, text
    value = tag_key(found["quoted"] if found["quoted"] is not None else found["word"])
    return (value or None), text.strip()[found.end() :]


def _has_tag(note: Annotation | None, tag: str) -> bool:
    return note is not None and any(tag_key(t) == tag for t in note.tags)


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
    """Sessions whose title, project or a tag the user gave match `text` (rapidfuzz WRatio), best first.

    Title and project are scored apart, each session by the better of the two: in
    one string, WRatio weighs a match inside it down by the string's length, so
    "webshp" against a long title ending in "webshop" fell under the cutoff while
    the project alone is a near match (454 sessions of project webshop matched
    "webshop" at 100k messages, 103 of them "webshp")."""

    def scores(choices: dict[Any, str]) -> dict[Any, float]:
        found = process.extract(
            text, choices, scorer=fuzz.WRatio, processor=utils.default_process, limit=None, score_cutoff=FUZZY_CUTOFF
        )
        return {key: score for _, score, key in found}

    by_title = scores({index: display(_title(row, notes)) for index, row in enumerate(rows)})
    by_project = scores({project: project for project in {row.project for row in rows}})
    by_tag = scores({tag: tag for note in notes.values() for tag in note.tags})  # the user's own words for them

    def score(index: int, row: Row) -> float:
        tagged = notes[row.id].tags if row.id in notes else []
        return max(by_title.get(index, 0.0), by_project.get(row.project, 0.0), *(by_tag.get(tag, 0.0) for tag in tagged))

    best = {index: score(index, row) for index, row in enumerate(rows)}
    ranked = sorted((index for index, score in best.items() if score > 0), key=lambda index: -best[index])
    return [rows[index] for index in ranked[:FUZZY_LIMIT]]


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
        "machine": row.machine,
    }
    return overlay_summary(summary_of(payload), note)
