"""The embedded store: one Qdrant Edge shard in a private folder.

Layout of the index folder (mode 0700): `lock` (who holds it, see lock.py),
`meta.json` (0600, replaced atomically) and `shard/` (Edge's own files).
Edge has no background optimizer: the indexer calls `optimize()` after a bulk
write so searches run on HNSW segments rather than brute force.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.heap import return_freed_memory
from convo_tui.core.store import readonly, space
from convo_tui.core.store.base import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    Filter,
    Point,
    Query,
    Scored,
    Store,
)
from convo_tui.core.store.edge_schema import (
    INDEX_SCHEMA,
    edge_errors,
    from_stored,
    shard_config,
    to_filter,
    to_request,
    to_scored,
    to_stored,
)
from convo_tui.core.store.edge_switch import EdgeDenseSwitch, recover
from convo_tui.core.store.files import SHARD, check_index_path, damaged, missing_before_load, store_missing
from convo_tui.core.store.lock import IndexLock
from convo_tui.core.store.resident import release_index_pages

META_NAME = "meta.json"
# Edge keeps its appendable segment's indexes in memory (2-8 KB a point, and
# phase 2 moves every point it gives a vector back into that segment): after
# this many points written it is optimized into an on-disk segment, so the
# memory of a writer stays bounded however large the run. Building a segment
# maps its source and the new one (about 10 KB a point of RSS while it runs,
# page cache the kernel may drop): at 41k points an indexing run peaked at
# 841 MB, at this size under 700. Each roll holds the process (Edge keeps the
# GIL) for about 6 s of CPU; more, smaller segments cost searches a little.
ROLL_POINTS = 25_000


def _private_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)
    except OSError as exc:
        if space.is_disk_full(exc):
            raise space.disk_full(path.parent, "create the index folder") from None
        raise IndexUnavailable(f"index folder {path}: {exc.strerror or exc}") from None


class EdgeStore(Store):
    """An index folder opened by this process alone (others get IndexUnavailable)."""

    def __init__(self, path: Path, read_only: bool = False, repair: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._shard: qe.EdgeShard | None = None
        self._since_roll = 0  # points written since the appendable segment was last rolled
        self._wrote = False  # anything written by this process (a search that held the index need not flush)
        check_index_path(self.path)
        # Set when `repair` (index --rebuild) opened a shard that cannot be loaded:
        # nothing may be read from it; drop() and a rebuild are the way out.
        self.damaged: IndexUnavailable | None = None
        if read_only and not self._has_shard():
            raise IndexUnavailable(store_missing(self.path) or f"no index at {self.path} yet; run `convo-tui index` first")
        # A folder this process may not write is read from a private copy (core/store/readonly.py).
        self._copy: Path | None = None
        if read_only and not readonly.writable(self.path):
            self._lock: IndexLock | readonly.SharedLock = readonly.SharedLock(self.path / "lock")
        else:
            _private_dir(self.path)
            self._lock = IndexLock(self.path)
        self._lock.acquire()
        try:
            if not read_only:
                recover(self)  # a model switch a crash cut short (edge_switch.py)
            if self._has_shard():
                # Edge maps its files even to read them: on a full disk that is a SIGBUS.
                space.require(self.path, space.open_reserve(self.path, self.path / SHARD), "open the index")
                missing = missing_before_load(self.path)  # Edge would make them anew, empty
                if missing:
                    raise IndexUnavailable(damaged(self.path, missing[0]))
                if isinstance(self._lock, readonly.SharedLock):
                    self._copy = readonly.copy_shard(self.path / SHARD)
                self._shard = self._load(None)
                self.release_pages()  # the WAL and the appendable segment's indexes, read whole by the load
        except IndexUnavailable as exc:
            if not repair or read_only:
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
        copy, self._copy = self._copy, None
        if copy is not None:
            shutil.rmtree(copy.parent, ignore_errors=True)

    def _load(self, config: qe.EdgeConfig | None) -> qe.EdgeShard:
        with edge_errors(self.path, "opening"):  # a shard Edge cannot load is damaged: the rebuild line
            return qe.EdgeShard.load(str(self._copy or self.path / SHARD), config)

    def ensure(self, dim: int) -> None:
        self._writable()
        space.require(self.path, space.WRITE_RESERVE, "write the index")
        if self._shard is None:
            # A shard folder without its config is a create() cut short: nothing in it is usable.
            shutil.rmtree(self.path / SHARD, ignore_errors=True)
            with edge_errors(self.path, "creating"):
                self._shard = qe.EdgeShard.create(str(self.path / SHARD), shard_config(dim))
        elif self._dim() != dim:
            raise IndexUnavailable(
                f"index {self.path} holds {self._dim()}-dimension vectors, not {dim}; "
                "it was built with another model: re-index it from scratch"
            )
        known = set(self._shard.info().payload_schema)
        for name, kind in PAYLOAD_INDEXES.items():
            if name not in known:
                self._update(qe.UpdateOperation.create_field_index(name, INDEX_SCHEMA[kind]))

    def _update(self, operation: qe.UpdateOperation) -> None:
        # Checked before every write: running out inside Edge's mapped files kills the process.
        space.require(self.path, space.WRITE_RESERVE, "write the index")
        self._wrote = True
        with edge_errors(self.path, "writing"):
            self._need().update(operation)

    def _dim(self) -> int:
        config = json.loads((self.path / SHARD / "edge_config.json").read_text(encoding="utf-8"))
        return int(config["vectors"][DENSE]["size"])

    # -- for the model switch (edge_switch.py), which swaps the shard folder ------

    def require_writable(self) -> None:
        self._writable()

    def live_shard(self) -> qe.EdgeShard:
        return self._need()

    def release_shard(self) -> qe.EdgeShard | None:
        """Hand the open shard to the caller (who closes it); the store holds none."""
        live, self._shard = self._shard, None
        return live

    def reload_shard(self) -> None:
        self._shard = self._load(None)

    def _writable(self) -> None:
        if self.read_only:
            raise IndexUnavailable(f"index {self.path} was opened read-only")

    def _need(self) -> qe.EdgeShard:
        if self._shard is None:
            raise IndexUnavailable(f"index {self.path} is not set up yet; run `convo-tui index` first")
        return self._shard

    def drop(self) -> None:
        self._writable()
        if self._shard is not None:
            self._shard.close()
            self._shard = None
        shutil.rmtree(self.path / SHARD, ignore_errors=True)
        (self.path / META_NAME).unlink(missing_ok=True)

    def begin_dense_switch(self, dim: int) -> EdgeDenseSwitch:
        """A copy of the visible points in `shard.next/`, for a model of `dim` dimensions."""
        return EdgeDenseSwitch(self, dim)

    def optimize(self) -> None:
        self._since_roll = 0
        if self._shard is not None and not self.read_only:
            self._wrote = True
            space.require(self.path, space.optimize_reserve(self.path / SHARD / "segments"), "optimize the index")
            # What the writes left resident is not needed to build the new segment (it
            # reads its source again): a peak of RSS the size of the segment less.
            self.release_pages()
            with edge_errors(self.path, "optimizing"):
                self._shard.optimize()
            self.release_pages()

    def release_pages(self) -> None:
        if self._shard is not None:
            release_index_pages(self._copy.parent if self._copy else self.path)

    def flush(self) -> None:
        if self._shard is not None and not self.read_only:
            with edge_errors(self.path, "flushing"):
                self._shard.flush()

    def close(self) -> None:
        shard, self._shard = self._shard, None
        try:
            if shard is not None:
                with edge_errors(self.path, "closing"):
                    if not self.read_only and self._wrote:
                        shard.flush()
                    shard.close()
        finally:
            self._drop_copy()
            self._lock.release()  # only after Edge let go of its own WAL lock

    # -- writes ------------------------------------------------------------

    def upsert(self, points: Sequence[Point]) -> None:
        self._writable()
        if not points:
            return
        out = []
        for p in points:
            vector: dict[str, Any] = {}
            if p.dense is not None:
                vector[DENSE] = [float(x) for x in p.dense]
            if p.sparse is not None and p.sparse.indices:
                vector[SPARSE] = qe.SparseVector(list(p.sparse.indices), [float(v) for v in p.sparse.values])
            payload = to_stored({**p.payload, "key": p.key})
            out.append(qe.Point(p.id, vector, payload))
        self._update(qe.UpdateOperation.upsert_points(out))
        self._rolled(len(out))

    def update_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None:
        self._writable()
        if not vectors:
            return
        self._need()
        out = [qe.PointVectors(pid, {DENSE: [float(x) for x in dense]}) for pid, dense in vectors]
        self._update(qe.UpdateOperation.update_vectors(out))
        self._rolled(len(out))

    def _rolled(self, written: int) -> None:
        """Roll the appendable segment once ROLL_POINTS points were written to it."""
        self._since_roll += written
        if self._since_roll >= ROLL_POINTS:
            self.optimize()
            self.release_pages()
            return_freed_memory()

    def delete(self, flt: Filter) -> None:
        self._writable()
        if self._shard is not None:
            self._update(qe.UpdateOperation.delete_points_by_filter(to_filter(flt) or qe.Filter()))

    def set_payload(self, values: dict[str, Any], flt: Filter) -> None:
        self._writable()
        if self._shard is not None:
            self._update(qe.UpdateOperation.set_payload_by_filter(to_filter(flt) or qe.Filter(), to_stored(values)))

    # -- reads -------------------------------------------------------------

    def query(self, queries: Sequence[Query]) -> list[list[Scored]]:
        if self._shard is None:
            return [[] for _ in queries]
        requests, slots = [], []
        for i, q in enumerate(queries):
            req = to_request(q)
            if req is not None:
                requests.append(req)
                slots.append(i)
        results: list[list[Scored]] = [[] for _ in queries]
        if requests:
            with edge_errors(self.path, "searching"):
                batch = self._shard.query_batch(qe.QueryBatchRequest(requests))
            for i, points in zip(slots, batch, strict=False):
                results[i] = [to_scored(p) for p in points]
        return results

    def scroll(self, flt: Filter | None = None, *, fields: Sequence[str] | None = None, batch: int = 512) -> Iterator[Scored]:
        if self._shard is None:
            return
        with_payload: Any = qe.PayloadSelector.Include(list(fields)) if fields is not None else True
        offset = None
        while True:
            with edge_errors(self.path, "reading"):
                records, offset = self._shard.scroll(
                    qe.ScrollRequest(offset=offset, limit=batch, filter=to_filter(flt), with_payload=with_payload)
                )
            for r in records:
                yield Scored(id=str(r.id), score=0.0, payload=from_stored(r.payload))
            if offset is None:
                return

    def newest(self, flt: Filter | None, *, limit: int, fields: Sequence[str] | None = None) -> list[Scored]:
        """Ordered by the `timestamp` payload index: reads `limit` points, not every match."""
        if self._shard is None or limit <= 0:
            return []
        with_payload: Any = qe.PayloadSelector.Include([*fields, "timestamp"]) if fields is not None else True
        records, _ = self._shard.scroll(
            qe.ScrollRequest(
                limit=limit,
                filter=to_filter(flt),
                with_payload=with_payload,
                order_by=qe.OrderBy("timestamp", direction=qe.Direction.Desc),
            )
        )
        found = [Scored(id=str(r.id), score=0.0, payload=from_stored(r.payload)) for r in records]
        if len(found) < limit:  # order_by skips points without a timestamp: they come last
            found += self._untimed(flt, limit - len(found), fields)
        return found

    def _untimed(self, flt: Filter | None, limit: int, fields: Sequence[str] | None) -> list[Scored]:
        out: list[Scored] = []
        for point in self.scroll(flt, fields=[*fields, "timestamp"] if fields is not None else None):
            if point.payload.get("timestamp") is None:
                out.append(point)
                if len(out) >= limit:
                    break
        return out

    def count(self, flt: Filter | None = None) -> int:
        if self._shard is None:
            return 0
        with edge_errors(self.path, "reading"):
            return self._shard.count(qe.CountRequest(exact=True, filter=to_filter(flt)))

    # -- meta --------------------------------------------------------------

    def read_meta(self) -> dict[str, Any]:
        try:
            meta: dict[str, Any] = json.loads((self.path / META_NAME).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(damaged(self.path, f"{META_NAME} is unreadable ({exc})")) from None
        return meta

    def write_meta(self, meta: dict[str, Any]) -> None:
        self._writable()
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".meta-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:  # mkstemp creates it 0600
                json.dump(meta, fh, ensure_ascii=False, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path / META_NAME)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            if space.is_disk_full(exc):
                raise space.disk_full(self.path, "write the index") from None
            raise
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
