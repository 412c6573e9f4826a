"""The embedded store: two Qdrant Edge shards in a private folder.

Layout of the index folder (mode 0700): `lock` (who holds it, see lock.py),
`meta.json` (0600, replaced atomically), `shard/` (every point: payload and
BM25 vector) and `dense/` (the points that have a dense vector: that vector and
a copy of the fields filters use). Edge gives every point of a shard a slot in
its dense storage, so one shard for both held (and rewrote at every merge)
room for a vector on each of the millions of points that never get one
(edge_schema.main_config). Queries across the two: edge_query.py; the reads
and the writes are mixins of their own (edge_reads.py, edge_writes.py).
Edge has no background optimizer: the indexer calls `optimize()` after a bulk
write so searches run on HNSW segments rather than brute force.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from convo_tui.core.errors import IndexBusy, IndexUnavailable
from convo_tui.core.process import is_ending
from convo_tui.core.store import meta_file, parking, readonly, space
from convo_tui.core.store.base import (
    DENSE,
    Filter,
    Store,
)
from convo_tui.core.store.edge_facets import FOLDED, REBUILD_GAIN, faceted_filter, indexes, layout
from convo_tui.core.store.edge_packing import packed_keys
from convo_tui.core.store.edge_reads import EdgeReads
from convo_tui.core.store.edge_rolls import Rolls
from convo_tui.core.store.edge_schema import (
    INDEX_SCHEMA,
    dense_config,
    edge_errors,
    filter_keys,
    load_with_main_optimizers,
    main_config,
)
from convo_tui.core.store.edge_switch import EdgeDenseSwitch, finish, recover
from convo_tui.core.store.edge_writes import EdgeWrites
from convo_tui.core.store.files import (
    DENSE_SHARD,
    SHARD,
    check_index_path,
    damaged,
    private_dir,
    refuse_unloadable,
    store_missing,
)
from convo_tui.core.store.lock import IndexLock
from convo_tui.core.store.resident import release_index_pages


class EdgeStore(EdgeReads, EdgeWrites, Store):
    """An index folder opened by this process alone (others get IndexUnavailable)."""

    def __init__(self, path: Path, read_only: bool = False, repair: bool = False, lazy_dense: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._shard: qe.EdgeShard | None = None
        self._dense: qe.EdgeShard | None = None
        # With `lazy_dense` the dense shard is loaded by the first call that needs it
        # (`_dense_shard`): a keyword search or a listing never does. Its load walks
        # every payload index of every segment as the main shard's does (0.2-0.45 s
        # of a 0.6-1.2 s open at 10k messages, fully embedded).
        self._dense_deferred = False
        self._dense_lock = threading.Lock()
        self._rolls = Rolls()  # when to roll the appendable segment and trim the heap
        self._wrote = False  # anything written by this process (a search that held the index need not flush)
        self._writes = 0  # every write, drop and shard swap (`writes`)
        self._parked = False  # closed by leaving its shards open to the process's end (parking.py)
        # The fields the shards keep in one index, `facets` (edge_facets.py): a new index
        # keeps FOLDED there, one made before its own layout's until it is rebuilt.
        self.facet_fields = FOLDED
        check_index_path(self.path)
        parking.unpark(self.path)  # this process let it go and keeps it to its end: close it, free the lock
        # Set when `repair` (index --rebuild) opened a shard that cannot be loaded:
        # nothing may be read from it; drop() and a rebuild are the way out.
        self.damaged: IndexUnavailable | None = None
        if read_only and not self._has_shard():
            raise IndexUnavailable(store_missing(self.path) or f"no index at {self.path} yet; run `convo-tui index` first")
        # A folder this process may not write is read from a private copy (core/store/readonly.py).
        self._copies: dict[str, Path] = {}
        if read_only and not readonly.writable(self.path):
            self._lock: IndexLock | readonly.SharedLock = readonly.SharedLock(self.path / "lock")
        else:
            private_dir(self.path)
            self._lock = IndexLock(self.path)
        self._lock.acquire()
        try:
            if not read_only:
                recover(self)  # a model switch a crash cut short (edge_switch.py)
            if self._has_shard():
                # Edge maps its files even to read them: on a full disk that is a SIGBUS.
                space.require(self.path, space.open_reserve(self.path), "open the index")
                refuse_unloadable(self.path)
                if isinstance(self._lock, readonly.SharedLock):
                    self._copies = {name: readonly.copy_shard(self.path / name) for name in (SHARD, DENSE_SHARD)}
                if lazy_dense:
                    self._dense_deferred = True
                else:
                    self._dense = self._load(DENSE_SHARD)
                self._shard = self._load(SHARD)
                self.facet_fields = layout(self._shard.info().payload_schema)
                if not read_only:
                    finish(self)  # the flags of a switch swapped just before a crash
                self.release_pages()  # the WAL and the appendable segment's indexes, read whole by the load
        except IndexUnavailable as exc:
            if not repair or read_only or isinstance(exc, IndexBusy):  # busy is no damage to repair
                self._drop_copy()
                self._lock.release()
                raise
            self.damaged = exc
        except BaseException:
            self._drop_copy()
            self._lock.release()
            raise

    # -- lifecycle ---------------------------------------------------------

    def _has_shard(self) -> bool:
        return (self.path / SHARD / "edge_config.json").is_file()

    def _drop_copy(self) -> None:
        copies, self._copies = self._copies, {}
        for copy in copies.values():
            shutil.rmtree(copy.parent, ignore_errors=True)

    def _load(self, name: str) -> qe.EdgeShard:
        folder = self._copies.get(name) or self.path / name
        taken = load_with_main_optimizers(folder) if name == SHARD and not self.read_only else None
        if taken is not None:
            return taken
        with edge_errors(self.path, "opening"):  # a shard Edge cannot load is damaged: the rebuild line
            return qe.EdgeShard.load(str(folder), None)

    def _dense_shard(self) -> qe.EdgeShard | None:
        """The dense shard, loaded now if its load was deferred (`lazy_dense`)."""
        if self._dense_deferred:
            with self._dense_lock:
                if self._dense_deferred:
                    loaded = self._load(DENSE_SHARD)
                    # Its WAL and appendable indexes, read whole by the load. Only its own
                    # mappings, and before any other thread can use it (see release_pages).
                    release_index_pages(self._copies.get(DENSE_SHARD) or self.path / DENSE_SHARD)
                    self._dense, self._dense_deferred = loaded, False
        return self._dense

    def ensure(self, dim: int) -> None:
        self._writable()
        space.require(self.path, space.WRITE_RESERVE, "write the index")
        if self._shard is None:
            # A shard folder without its config is a create() cut short: nothing in it is usable.
            # The dense shard is made first: a main shard on disk says both are there.
            shutil.rmtree(self.path / DENSE_SHARD, ignore_errors=True)
            shutil.rmtree(self.path / SHARD, ignore_errors=True)
            with edge_errors(self.path, "creating"):
                self._dense = qe.EdgeShard.create(str(self.path / DENSE_SHARD), dense_config(dim))
                self._shard = qe.EdgeShard.create(str(self.path / SHARD), main_config())
            self.facet_fields = FOLDED
        elif self._dim() != dim:
            raise IndexUnavailable(
                f"index {self.path} holds {self._dim()}-dimension vectors, not {dim}; "
                "it was built with another model: re-index it from scratch"
            )
        for shard in (self._shard, self._need_dense()):
            known = set(shard.info().payload_schema)
            for name, kind in self.index_schema().items():
                if name not in known:
                    self._update(qe.UpdateOperation.create_field_index(name, INDEX_SCHEMA[kind]), shard)

    def index_schema(self) -> dict[str, str]:
        """The payload indexes of this index's shards (the kinds of base.PAYLOAD_INDEXES)."""
        return indexes(self.facet_fields)

    def writes(self) -> int:
        return self._writes  # this process holds the index's lock, or reads a private copy

    def rebuild_note(self) -> str | None:
        if self.facet_fields == FOLDED or self._shard is None:
            return None
        kept = "an index for each filter field" if not self.faceted else "indexes of its own for `key` and `session_id`"
        return (
            f"the index at {self.path} keeps {kept} (made by an older convo-tui): "
            f"`convo-tui index --rebuild` opens it about {REBUILD_GAIN[self.faceted]} faster "
            "(the vectors already computed are kept)"
        )

    def _filter(self, flt: Filter | None) -> Filter | None:
        """`flt` as this index's shards hold the fields it reads."""
        out = faceted_filter(flt, self.facet_fields) if self.faceted else flt
        hidden = packed_keys(filter_keys(out), self.faceted)
        if hidden:
            raise ValueError(f"a filter on {sorted(hidden)}: packed fields match nothing (edge_packing.py)")
        return out

    def _update(self, operation: qe.UpdateOperation, shard: qe.EdgeShard | None = None) -> None:
        # Checked before every write: running out inside Edge's mapped files kills the process.
        space.require(self.path, space.WRITE_RESERVE, "write the index")
        self._wrote = True
        self._writes += 1
        with edge_errors(self.path, "writing"):
            (shard or self._need()).update(operation)

    def _dim(self) -> int:
        config = json.loads((self.path / DENSE_SHARD / "edge_config.json").read_text(encoding="utf-8"))
        return int(config["vectors"][DENSE]["size"])

    # -- for the model switch (edge_switch.py), which swaps the shard folder ------

    def require_writable(self) -> None:
        self._writable()

    def live_shard(self) -> qe.EdgeShard:
        return self._need()

    def live_dense(self) -> qe.EdgeShard:
        return self._need_dense()

    def write_main(self, operation: qe.UpdateOperation) -> None:
        self._update(operation)

    def write_dense(self, operation: qe.UpdateOperation) -> None:
        self._update(operation, self._need_dense())

    def release_dense(self) -> qe.EdgeShard | None:
        """Hand the open dense shard to the caller (who closes it); the store holds none."""
        live, self._dense = self._dense_shard(), None
        return live

    def reload_dense(self) -> None:
        self._writes += 1
        self._dense = self._load(DENSE_SHARD)

    def _writable(self) -> None:
        if self.read_only:
            raise IndexUnavailable(f"index {self.path} was opened read-only")

    def _need(self) -> qe.EdgeShard:
        if self._shard is None:
            raise IndexUnavailable(f"index {self.path} is not set up yet; run `convo-tui index` first")
        return self._shard

    def _need_dense(self) -> qe.EdgeShard:
        self._need()
        dense = self._dense_shard()
        if dense is None:
            raise IndexUnavailable(damaged(self.path, f"{DENSE_SHARD}/ is not open"))
        return dense

    def _shards(self) -> list[tuple[str, qe.EdgeShard]]:
        return [(name, shard) for name, shard in ((SHARD, self._shard), (DENSE_SHARD, self._dense)) if shard is not None]

    def drop(self) -> None:
        self._writable()
        for _name, shard in self._shards():
            shard.close()
        self._shard = self._dense = None
        self._dense_deferred = False
        self._writes += 1
        shutil.rmtree(self.path / SHARD, ignore_errors=True)
        shutil.rmtree(self.path / DENSE_SHARD, ignore_errors=True)
        (self.path / meta_file.META_NAME).unlink(missing_ok=True)

    def begin_dense_switch(self, dim: int) -> EdgeDenseSwitch:
        """A dense shard in `dense.next/` for a model of `dim` dimensions."""
        return EdgeDenseSwitch(self, dim)

    def optimize(self) -> None:
        self._rolls.rolled()
        if self.read_only:
            return
        for name, shard in self._shards():
            self._wrote = True
            space.require(self.path, space.optimize_reserve(self.path / name / "segments"), "optimize the index")
            # What the writes left resident is not needed to build the new segment (it
            # reads its source again): a peak of RSS the size of the segment less.
            self.release_pages()
            with edge_errors(self.path, "optimizing"):
                shard.optimize()
        self.release_pages()

    def release_pages(self) -> None:
        if self._shard is not None:
            for folder in {copy.parent for copy in self._copies.values()} or {self.path}:
                release_index_pages(folder)

    def flush(self) -> None:
        if not self.read_only:
            for _name, shard in self._shards():
                with edge_errors(self.path, "flushing"):
                    shard.flush()

    def close(self) -> None:
        if self._parked:
            return  # its shards and lock are the process's to the end, or closed by parking.unpark
        shards, self._shard, self._dense, self._dense_deferred = self._shards(), None, None, False
        self._close(shards)

    def let_go(self) -> None:
        """Close at the end of the process's use of the index: in a process that ends
        with its command, park it instead (parking.py), so that its files stay in the
        page cache for the next process."""
        if self._parked:
            return
        shards = self._shards()
        if not (shards and self._may_park() and self._flushed(shards)):
            self.close()  # a flush that failed fails there again, and the lock is released
            return
        self._shard, self._dense, self._dense_deferred = None, None, False
        self._parked = True
        parking.park(parking.Parked(self.path, [shard for _name, shard in shards], lambda: self._close(shards)))

    def _flushed(self, shards: list[tuple[str, qe.EdgeShard]]) -> bool:
        """What a close does besides the eviction (Edge's drop is a flush), for a store that wrote."""
        if not self._wrote:
            return True
        try:
            for _name, shard in shards:
                shard.flush()
        except Exception:  # Edge raises plain Exception: _close flushes again and reports it
            return False
        return True

    def _may_park(self) -> bool:
        """Whether closing may leave the shards open to the process's end: it ends
        soon, and the store is the index's own (a private copy is deleted at close)."""
        return is_ending() and not self._copies and isinstance(self._lock, IndexLock)

    def _close(self, shards: list[tuple[str, qe.EdgeShard]]) -> None:
        try:
            for _name, shard in shards:
                with edge_errors(self.path, "closing"):
                    if not self.read_only and self._wrote:
                        shard.flush()
                    shard.close()
        finally:
            self._drop_copy()
            self._lock.release()  # only after Edge let go of its own WAL lock

    # -- meta ---------------------------------------------------------------

    def read_meta(self) -> dict[str, Any]:
        return meta_file.read(self.path)

    def write_meta(self, meta: dict[str, Any]) -> None:
        self._writable()
        meta_file.write(self.path, meta)
