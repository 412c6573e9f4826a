"""Index health: notice a damaged index at open, and let `index` repair what it can.

A damaged index used to go unnoticed: with its shard folder gone, `index`
said "46 unchanged" and searches found nothing; truncated vector files only
showed as a raw engine error at search time; a dimension changed in meta.json
was accepted. Every open now runs cheap checks (no model, a few stats and one
scroll of the session points):

- the index path is a folder;
- the store's vector dimension is the one meta.json records;
- every segment's storage files have the sizes its metadata gives (payload and
  BM25 pages, dense vector chunks, flags), core/store/files.py;
- every session the manifest lists for an unchanged file is in the store.

The first three need `convo-tui index --rebuild`. `index` and `sources` go
further (`FilesCheck`): every segment's payload, BM25 and dense storage
against its metadata, and a read of every page. Lost sessions are re-indexed
by a plain `convo-tui index`: `forget_lost` drops their files' manifest entries
so the run parses them again instead of reporting them unchanged.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from convo_tui.core.annotations import Annotations
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.visible import count_visible
from convo_tui.core.store.base import Cond, Filter, Store
from convo_tui.core.store.deep_check import PendingCheck
from convo_tui.core.store.deep_check import start as start_deep_check
from convo_tui.core.store.files import REBUILD, SHARD, check_files, damaged, store_missing

T = TypeVar("T")


@dataclass
class Health:
    problems: list[str] = field(default_factory=list)  # each needs a rebuild
    lost: dict[str, list[str]] = field(default_factory=dict)  # manifest file key -> session ids the store lacks

    @property
    def lost_sessions(self) -> int:
        return sum(len(ids) for ids in self.lost.values())


# (size, mtime) of the source a gone file's archived copy came from (core/archive/files.py).
ArchivedState = Callable[[str], tuple[int, int] | None]


def _unchanged(key: str, size: int, mtime_ns: int, archived: ArchivedState | None = None) -> bool:
    try:
        stat = os.stat(key)
    except OSError:
        # Gone: prune's business, not damage; unless the archive holds this very version.
        return archived is not None and archived(key) == (size, mtime_ns)
    return stat.st_size == size and stat.st_mtime_ns == mtime_ns


def lost_sessions(
    store: Store, manifest: Manifest, annotations: Annotations | None = None, archived: ArchivedState | None = None
) -> dict[str, list[str]]:
    """Sessions the manifest records for files that did not change, that the
    store no longer has (deleted ones aside). Changed or vanished files are
    left out (a vanished one the archive holds counts as unchanged: the run
    re-indexes it from there): the next run re-indexes or prunes them anyway,
    and a run killed between publishing and saving the manifest leaves exactly
    such files."""
    deleted = {sid for sid, note in annotations.all().items() if note.deleted is not None} if annotations else set()
    expected = manifest.session_count() - manifest.held(deleted)
    if expected <= 0:
        return {}
    published = Filter(must=(Cond("visible", value=True), Cond("level", value="session")))
    # Fast path (an exact count on indexed fields, no manifest read): as many sessions
    # as the manifest lists, or more (a run killed before saving it), means nothing was lost.
    if count_visible(store, "level", "session") >= expected:
        return {}
    stored = {str(p.payload.get("session_id", "")) for p in store.scroll(published, fields=["session_id"], batch=4096)}
    lost: dict[str, list[str]] = {}
    for key, entry in manifest.entries():
        missing = [sid for sid in entry.sessions if sid not in stored and sid not in deleted]
        if missing and _unchanged(key, entry.size, entry.mtime_ns, archived):
            lost[key] = missing
    return lost


def check(store: Store, index_dir: Path | None, manifest_dir: Path, *, read_only: bool) -> Health:
    """Run the checks; raise IndexUnavailable (one line) for what a read cannot
    live with: files damaged (rebuild), or, when read-only, sessions lost."""
    health = Health()
    if read_only and index_dir is not None and not (index_dir / SHARD / "edge_config.json").is_file():
        missing = store_missing(index_dir)  # a reader opened writable (to serve edits) finds no store
        if missing:
            raise IndexUnavailable(missing)
    if index_dir is not None:
        health.problems = check_files(index_dir, store.read_meta())
    if health.problems:
        raise IndexUnavailable(damaged(index_dir or manifest_dir, health.problems[0]))
    if not read_only:
        return health  # a writer is about to index: Library.index repairs (forget_lost)
    manifest = Manifest.load(manifest_dir, read_only=True)
    try:
        health.lost = lost_sessions(store, manifest, Annotations(manifest_dir))
        total = manifest.session_count()
    finally:
        manifest.close()
    if health.lost:
        raise IndexUnavailable(
            f"the index at {index_dir or manifest_dir} has lost {health.lost_sessions} of {total} sessions; "
            f"run `convo-tui index` to re-index them, or {REBUILD}"
        )
    return health


def _raise_for(index_dir: Path, problems: list[str]) -> None:
    """IndexUnavailable, one line with the way out, for the first problem."""
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise IndexUnavailable(damaged(index_dir, problems[0] + more))


class FilesCheck:
    """The deep check `index`, `sources`, `sessions` and `stats` run before they
    report (every segment's storage against its metadata, every page read:
    core/store/files.py; in a child process for a large index:
    core/store/deep_check.py), once per open, shared by what asks for it (an
    index run, readiness): a holder re-indexes often and answers readiness after
    every search, and at a million messages the check took 0.4 s warm, 2-3 s cold.

    `begin` starts it (in its own process for a large index) so that what the
    caller reads meanwhile overlaps it; `ensure` waits for it."""

    def __init__(self, store: Store, index_dir: Path, *, needed: bool):
        self.store, self.index_dir = store, index_dir
        self._done = not needed  # a server collection has no files here
        self._pending: PendingCheck | None = None
        self._lock = threading.Lock()

    def begin(self) -> None:
        """Start the check now, unless it has run or is running."""
        with self._lock:
            if not self._done and self._pending is None:
                self._pending = start_deep_check(self.index_dir, self.store.read_meta())

    def ensure(self) -> None:
        """IndexUnavailable (one line, the way out) for the first problem, the first time."""
        with self._lock:
            if self._done:
                return
            pending, self._pending = self._pending, None
            if pending is None:
                pending = start_deep_check(self.index_dir, self.store.read_meta())
            _raise_for(self.index_dir, pending.result())
            self._done = True

    def overlapping(self, read: Callable[[], T]) -> T:
        """`read()` while the check runs beside it; the check's verdict first. A
        damaged index is named as such, not by what reading it broke."""
        self.begin()
        try:
            value = read()
        except Exception:
            self.ensure()
            raise
        self.ensure()
        return value


def forget_lost(
    store: Store, manifest: Manifest, annotations: Annotations | None = None, archived: ArchivedState | None = None
) -> int:
    """Drop the manifest entries of files whose sessions the store lost, so the
    coming run parses and publishes them again. Returns how many sessions."""
    lost = lost_sessions(store, manifest, annotations, archived)
    for key in lost:
        manifest.remove(key)
    return sum(len(ids) for ids in lost.values())
