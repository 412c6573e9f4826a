"""User edits of conversations, kept apart from the indexed points.

Titles, descriptions, stars, tags, per-session settings and deletions are the
user's, not the source's: re-indexing rewrites every point of a changed
session, so the edits live in a small SQLite file next to the index
(`annotations.sqlite3`, mode 0600) keyed by session id and are laid over what
the index returns. With the server backend the file still lives in the local
index folder: edits are personal to the machine, never written to a shared
Qdrant collection.

A deletion remembers the source file's size and mtime at that moment; the
indexer skips the session while the file is unchanged (`is_suppressed`), so a
deleted conversation comes back only when its source changes or the user
restores it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ConvoError
from convo_tui.core.hits import Hit, SessionSummary
from convo_tui.core.model import Session

FILE_NAME = "annotations.sqlite3"

# Per-session settings the app honours, with their defaults.
SESSION_SETTINGS: dict[str, bool] = {"hide_thinking": False, "hide_tools": False}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS annotations (
    session_id TEXT PRIMARY KEY,
    title TEXT,
    description TEXT NOT NULL DEFAULT '',
    starred INTEGER NOT NULL DEFAULT 0,
    tags TEXT NOT NULL DEFAULT '[]',
    settings TEXT NOT NULL DEFAULT '{}',
    deleted_at TEXT,
    deleted_path TEXT,
    deleted_size INTEGER,
    deleted_mtime_ns INTEGER,
    updated_at TEXT NOT NULL
)
"""


@dataclass(frozen=True)
class Deletion:
    """When a session was deleted and what its source file looked like then."""

    at: datetime
    path: str
    size: int | None
    mtime_ns: int | None


@dataclass
class Annotation:
    """Everything the user set on one session; defaults mean "nothing set"."""

    session_id: str
    title: str | None = None
    description: str = ""
    starred: bool = False
    tags: list[str] = field(default_factory=list)
    settings: dict[str, bool] = field(default_factory=dict)
    deleted: Deletion | None = None

    def effective_settings(self) -> dict[str, bool]:
        return {**SESSION_SETTINGS, **self.settings}


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _file_state(path: str) -> tuple[int | None, int | None]:
    try:
        stat = os.stat(path)
    except OSError:
        return None, None
    return stat.st_size, stat.st_mtime_ns


def tags_line(tags: Iterable[str]) -> str:
    """Tags as every face shows them: `#release #"needs review"` (a tag with a space
    quoted, so that it does not read as two; `tag:"needs review"` finds it)."""
    return " ".join(f'#"{tag}"' if any(ch.isspace() for ch in tag) else f"#{tag}" for tag in tags)


def tag_key(tag: str) -> str:
    """What two spellings of one tag share: `#Release ` and `release` are one tag
    (the app shows tags with a #, `tag:` finds them in any case)."""
    return tag.strip().removeprefix("#").strip().casefold()


def normalize_tags(tags: Iterable[str]) -> list[str]:
    """Trimmed, non-empty, first occurrence kept (case-insensitively). A comma
    separates tags and a leading # is how they are shown, as in the app's box
    and `tag:#NAME`: `session tag ID "#a,b"` gives the tags a and b."""
    seen: set[str] = set()
    result: list[str] = []
    for given in tags:
        for part in given.split(","):
            tag = part.strip().removeprefix("#").strip()
            if tag and tag_key(tag) not in seen:
                seen.add(tag_key(tag))
                result.append(tag)
    return result


class Annotations:
    """The annotations file of one index folder. Each call opens its own short
    connection, so the app and the CLI may edit at the same time."""

    def __init__(self, index_dir: str | Path):
        self.path = Path(index_dir) / FILE_NAME

    def _connect(self) -> sqlite3.Connection:
        try:
            if not self.path.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            conn = sqlite3.connect(self.path, timeout=10)
            conn.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConvoError(f"{self.path}: cannot open the annotations file ({exc})") from None
        return conn

    def _row_to_annotation(self, row: sqlite3.Row | tuple[Any, ...]) -> Annotation:
        (session_id, title, description, starred, tags, settings, deleted_at, deleted_path, size, mtime_ns) = row
        deleted = None
        if deleted_at:
            deleted = Deletion(datetime.fromisoformat(deleted_at), deleted_path or "", size, mtime_ns)
        return Annotation(
            session_id=session_id,
            title=title,
            description=description,
            starred=bool(starred),
            tags=json.loads(tags),
            settings=json.loads(settings),
            deleted=deleted,
        )

    _COLUMNS = "session_id, title, description, starred, tags, settings, deleted_at, deleted_path, deleted_size, deleted_mtime_ns"

    def get(self, session_id: str) -> Annotation:
        if not self.path.exists():
            return Annotation(session_id)
        with closing(self._connect()) as conn:
            row = conn.execute(f"SELECT {self._COLUMNS} FROM annotations WHERE session_id = ?", (session_id,)).fetchone()
        return self._row_to_annotation(row) if row else Annotation(session_id)

    def all(self) -> dict[str, Annotation]:
        if not self.path.exists():
            return {}
        with closing(self._connect()) as conn:
            rows = conn.execute(f"SELECT {self._COLUMNS} FROM annotations").fetchall()
        return {row[0]: self._row_to_annotation(row) for row in rows}

    def tagged(self, tag: str) -> tuple[str, ...]:
        """The sessions the user gave `tag` (compared case-insensitively, as tags are
        kept: core/annotations.normalize_tags), deleted ones left out: `tag:NAME`."""
        wanted = tag_key(tag)
        if not wanted or not self.path.exists():
            return ()
        with closing(self._connect()) as conn:
            rows = conn.execute("SELECT session_id, tags FROM annotations WHERE tags != '[]' AND deleted_at IS NULL").fetchall()
        # Tags written before a leading # was taken off (`#foo`) are found as `foo` too.
        return tuple(session_id for session_id, tags in rows if any(tag_key(str(t)) == wanted for t in json.loads(tags)))

    def _update(self, session_id: str, **columns: Any) -> None:
        names = list(columns)
        assignments = ", ".join(f"{name} = excluded.{name}" for name in [*names, "updated_at"])
        sql = (
            f"INSERT INTO annotations (session_id, {', '.join(names)}, updated_at) "
            f"VALUES (?, {', '.join('?' for _ in names)}, ?) "
            f"ON CONFLICT(session_id) DO UPDATE SET {assignments}"
        )
        with closing(self._connect()) as conn, conn:
            conn.execute(sql, (session_id, *columns.values(), _now()))

    def set_title(self, session_id: str, title: str | None) -> None:
        """A blank title gives the source's title back."""
        self._update(session_id, title=(title or "").strip() or None)

    def set_description(self, session_id: str, text: str) -> None:
        self._update(session_id, description=text.strip())

    def set_starred(self, session_id: str, starred: bool = True) -> None:
        self._update(session_id, starred=int(starred))

    def set_tags(self, session_id: str, tags: Iterable[str]) -> list[str]:
        clean = normalize_tags(tags)
        self._update(session_id, tags=json.dumps(clean, ensure_ascii=False))
        return clean

    def set_settings(self, session_id: str, **values: bool) -> dict[str, bool]:
        """Merge `values` into the session's settings; returns the effective settings."""
        for key, value in values.items():
            if key not in SESSION_SETTINGS:
                raise ConvoError(f"unknown session setting '{key}' (known: {', '.join(SESSION_SETTINGS)})")
            if not isinstance(value, bool):
                raise ConvoError(f"session setting '{key}' must be true or false, got {value!r}")
        current = self.get(session_id)
        merged = {**current.settings, **values}
        self._update(session_id, settings=json.dumps(merged))
        return {**SESSION_SETTINGS, **merged}

    def mark_deleted(self, session_id: str, source_path: str) -> None:
        size, mtime_ns = _file_state(source_path)
        self._update(
            session_id,
            deleted_at=_now(),
            deleted_path=source_path,
            deleted_size=size,
            deleted_mtime_ns=mtime_ns,
        )

    def restore(self, session_id: str) -> bool:
        """Forget a deletion; True when there was one. The next index run brings it back."""
        if self.get(session_id).deleted is None:
            return False
        self._update(session_id, deleted_at=None, deleted_path=None, deleted_size=None, deleted_mtime_ns=None)
        return True

    def merge(self, incoming: Annotation) -> bool:
        """Lay an imported annotation (another machine's, core/archive/transfer.py) under
        this one: what was set here wins, stars and tags add up, and a deletion is taken
        only for a session this file knows nothing about. True when something changed."""
        with closing(self._connect()) as conn:
            row = conn.execute(f"SELECT {self._COLUMNS} FROM annotations WHERE session_id = ?", (incoming.session_id,)).fetchone()
        current = self._row_to_annotation(row) if row else Annotation(incoming.session_id)
        merged = replace(
            current,
            title=current.title or incoming.title,
            description=current.description or incoming.description,
            starred=current.starred or incoming.starred,
            tags=normalize_tags([*current.tags, *incoming.tags]),
            settings={**{k: v for k, v in incoming.settings.items() if k in SESSION_SETTINGS}, **current.settings},
            deleted=current.deleted if row is not None else incoming.deleted,
        )
        if merged == current:
            return False
        deletion = merged.deleted
        self._update(
            incoming.session_id,
            title=merged.title,
            description=merged.description,
            starred=int(merged.starred),
            tags=json.dumps(merged.tags, ensure_ascii=False),
            settings=json.dumps(merged.settings),
            deleted_at=deletion.at.isoformat() if deletion else None,
            deleted_path=deletion.path if deletion else None,
            deleted_size=deletion.size if deletion else None,
            deleted_mtime_ns=deletion.mtime_ns if deletion else None,
        )
        return True

    def is_suppressed(self, session_id: str, source_path: str | None = None) -> bool:
        """True while a deleted session's source file is as it was when deleted.

        The indexer asks this before writing a session: a changed (or
        re-created) file means new content the user has not rejected yet.
        """
        return self.suppressor()(session_id, source_path or "")

    def suppressor(self, file_state: Callable[[str], tuple[int | None, int | None]] = _file_state) -> Callable[[str, str], bool]:
        """`is_suppressed` over one snapshot of the deletions, for a whole index run.
        `file_state` may see past the disk: the archive answers for a file that is gone
        (core/archive/files.py), so a deleted session stays deleted when re-read from there."""
        deletions = {sid: a.deleted for sid, a in self.all().items() if a.deleted is not None}

        def suppressed(session_id: str, source_path: str) -> bool:
            deletion = deletions.get(session_id)
            if deletion is None:
                return False
            # The file whose state was recorded; another path's state says nothing about it.
            return file_state(deletion.path or source_path) == (deletion.size, deletion.mtime_ns)

        return suppressed


# -- laying the edits over what the index returns -----------------------------


def overlay_summary(summary: SessionSummary, note: Annotation | None) -> SessionSummary:
    """The summary as the user edited it (user title wins when set)."""
    if note is None:
        return summary
    return replace(
        summary,
        title=note.title or summary.title,
        description=note.description or summary.description,
        starred=note.starred,
        tags=list(note.tags),
    )


def overlay_session(session: Session, note: Annotation | None) -> Session:
    """User title on the session; the source's own title stays in meta["source_title"]."""
    if note is None:
        return session
    session.meta.setdefault("source_title", session.title)
    session.title = note.title or session.title
    session.meta.update(
        description=note.description, starred=note.starred, tags=list(note.tags), settings=note.effective_settings()
    )
    return session


def overlay_hits(hits: list[Hit], notes: dict[str, Annotation]) -> list[Hit]:
    for hit in hits:
        note = notes.get(hit.session_id)
        if note is not None and note.title:
            hit.session_title = note.title
    return hits


def tag_counts(notes: dict[str, Annotation], sessions: set[str]) -> list[tuple[str, int]]:
    """(tag, how many of `sessions` have it), most first: tags compare in any case (as
    `tag:` does), each shown as it was first written; deleted sessions not counted."""
    counts: dict[str, int] = {}
    spelled: dict[str, str] = {}
    for session_id, note in notes.items():
        if session_id not in sessions or note.deleted is not None:
            continue
        for tag in note.tags:
            key = tag_key(tag)
            spelled.setdefault(key, tag)
            counts[key] = counts.get(key, 0) + 1
    return sorted(((spelled[key], count) for key, count in counts.items()), key=lambda item: (-item[1], item[0].casefold()))
