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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.store import space
from convo_tui.core.store.base import (
    DENSE,
    HNSW_EF,
    PAYLOAD_INDEXES,
    RRF_K,
    SPARSE,
    Filter,
    Point,
    Query,
    Scored,
    SparseVec,
    Store,
)
from convo_tui.core.store.edge_switch import EdgeDenseSwitch, recover
from convo_tui.core.store.lock import IndexLock
from convo_tui.core.store.resident import release_index_pages

META_NAME = "meta.json"
SHARD_NAME = "shard"

# qdrant-edge-py 0.9 turns a bool in MatchValue into 0/1, which never matches a
# stored JSON bool; so bool fields are stored as 0/1 here and turned back on read.
_BOOL_FIELDS = frozenset(k for k, kind in PAYLOAD_INDEXES.items() if kind == "bool")
# Payload indexes stay on disk (mmap, pages read when a filter needs them):
# held in RAM they cost ~140 MB at 144k points and opening the index read them
# all, though a search filters on a few small fields (measured: BENCHMARKS.md, "Search-time memory").
_INDEX_SCHEMA: dict[str, Any] = {
    "keyword": qe.KeywordIndexParams(memory=qe.Memory.Cold),
    "bool": qe.IntegerIndexParams(lookup=True, range=True, memory=qe.Memory.Cold),
    "integer": qe.IntegerIndexParams(lookup=True, range=True, memory=qe.Memory.Cold),
    "float": qe.FloatIndexParams(memory=qe.Memory.Cold),
}
# m=16 / ef_construct=100 are Qdrant's defaults and give >0.95 recall on
# sentence embeddings; segments under full_scan_threshold KB are brute-forced.
_HNSW = qe.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=10_000)
_DENSE_PARAMS = qe.SearchParams(hnsw_ef=HNSW_EF)
# Memory: a search reads the int8 copies of the dense vectors (a quarter of the
# float32 size) and rescores its few candidates against the originals; both
# stay on disk (mmap, read on demand: an HNSW search touches a few thousand of
# the int8 rows, so pinning them all in RAM cost 55 MB at 144k points for no
# measurable speed). Payloads are read only for the hits, so they stay on disk
# too. Indexes created before this keep their own persisted config and their
# in-RAM payload indexes (loading passes no config): `index --rebuild` moves
# them to disk (rebuilding the payload indexes in place took 275 s at 144k
# points, too long to do unasked).
_DENSE_QUANTIZATION = qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Cold)


def _private_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)
    except OSError as exc:
        if space.is_disk_full(exc):
            raise space.disk_full(path.parent, "create the index folder") from None
        raise IndexUnavailable(f"index folder {path}: {exc.strerror or exc}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


@contextmanager
def _edge_errors(path: Path, doing: str) -> Iterator[None]:
    """Edge reports I/O and storage failures as bare Exception: make them one line.

    A full disk gets its own line (DiskFull, with the free space); other read
    failures name the way out, since a search that fails on a readable index
    means damaged files."""
    try:
        yield
    except Exception as exc:
        if type(exc) is not Exception:
            raise  # programming errors (TypeError, ValueError, ...) stay loud
        if space.is_disk_full(exc):
            raise space.disk_full(path, doing) from None
        hint = "; if it happens again, rebuild the index with `convo-tui index --rebuild`" if doing == "searching" else ""
        raise IndexUnavailable(f"index {path}: {doing} failed ({_one_line(exc)}){hint}") from None


class EdgeStore(Store):
    """An index folder opened by this process alone (others get IndexUnavailable)."""

    def __init__(self, path: Path, read_only: bool = False, repair: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._shard: qe.EdgeShard | None = None
        from convo_tui.core.health import check_index_path, store_missing

        check_index_path(self.path)
        # Set when `repair` (index --rebuild) opened a shard that cannot be loaded:
        # nothing may be read from it; drop() and a rebuild are the way out.
        self.damaged: IndexUnavailable | None = None
        if read_only and not self._has_shard():
            raise IndexUnavailable(store_missing(self.path) or f"no index at {self.path} yet; run `convo-tui index` first")
        _private_dir(self.path)
        self._lock = IndexLock(self.path)
        self._lock.acquire()
        try:
            if not read_only:
                recover(self)  # a model switch a crash cut short (edge_switch.py)
            if self._has_shard():
                # Edge maps its files even to read them: on a full disk that is a SIGBUS.
                space.require(self.path, space.open_reserve(self.path, self.path / SHARD_NAME), "open the index")
                self._shard = self._load(None)
                self.release_pages()  # the WAL and the appendable segment's indexes, read whole by the load
        except IndexUnavailable as exc:
            if not repair or read_only:
                self._lock.release()
                raise
            self.damaged = exc
        except BaseException:
            self._lock.release()
            raise

    # -- lifecycle ---------------------------------------------------------

    def _has_shard(self) -> bool:
        return (self.path / SHARD_NAME / "edge_config.json").is_file()

    def _load(self, config: qe.EdgeConfig | None) -> qe.EdgeShard:
        try:
            with _edge_errors(self.path, "opening"):
                shard = qe.EdgeShard.load(str(self.path / SHARD_NAME), config)
        except IndexUnavailable as exc:
            raise IndexUnavailable(
                f"{exc}; your transcripts are not affected: rebuild the index with `convo-tui index --rebuild`"
            ) from None
        return shard

    def _config(self, dim: int) -> qe.EdgeConfig:
        return qe.EdgeConfig(
            vectors={
                DENSE: qe.EdgeVectorParams(
                    size=dim,
                    distance=qe.Distance.Cosine,
                    memory=qe.Memory.Cold,
                    quantization_config=_DENSE_QUANTIZATION,
                )
            },
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            hnsw_config=_HNSW,
            payload_memory=qe.Memory.Cold,
        )

    def ensure(self, dim: int) -> None:
        self._writable()
        space.require(self.path, space.WRITE_RESERVE, "write the index")
        if self._shard is None:
            # A shard folder without its config is a create() cut short: nothing in it is usable.
            shutil.rmtree(self.path / SHARD_NAME, ignore_errors=True)
            with _edge_errors(self.path, "creating"):
                self._shard = qe.EdgeShard.create(str(self.path / SHARD_NAME), self._config(dim))
        elif self._dim() != dim:
            raise IndexUnavailable(
                f"index {self.path} holds {self._dim()}-dimension vectors, not {dim}; "
                "it was built with another model: re-index it from scratch"
            )
        known = set(self._shard.info().payload_schema)
        for name, kind in PAYLOAD_INDEXES.items():
            if name not in known:
                self._update(qe.UpdateOperation.create_field_index(name, _INDEX_SCHEMA[kind]))

    def _update(self, operation: qe.UpdateOperation) -> None:
        # Checked before every write: running out inside Edge's mapped files kills the process.
        space.require(self.path, space.WRITE_RESERVE, "write the index")
        with _edge_errors(self.path, "writing"):
            self._need().update(operation)

    def _dim(self) -> int:
        config = json.loads((self.path / SHARD_NAME / "edge_config.json").read_text(encoding="utf-8"))
        return int(config["vectors"][DENSE]["size"])

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
        shutil.rmtree(self.path / SHARD_NAME, ignore_errors=True)
        (self.path / META_NAME).unlink(missing_ok=True)

    def begin_dense_switch(self, dim: int) -> EdgeDenseSwitch:
        """A copy of the visible points in `shard.next/`, for a model of `dim` dimensions."""
        return EdgeDenseSwitch(self, dim)

    def optimize(self) -> None:
        if self._shard is not None and not self.read_only:
            space.require(self.path, space.optimize_reserve(self.path / SHARD_NAME / "segments"), "optimize the index")
            with _edge_errors(self.path, "optimizing"):
                self._shard.optimize()

    def release_pages(self) -> None:
        if self._shard is not None:
            release_index_pages(self.path)

    def flush(self) -> None:
        if self._shard is not None and not self.read_only:
            with _edge_errors(self.path, "flushing"):
                self._shard.flush()

    def close(self) -> None:
        shard, self._shard = self._shard, None
        try:
            if shard is not None:
                with _edge_errors(self.path, "closing"):
                    if not self.read_only:
                        shard.flush()
                    shard.close()
        finally:
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
            payload = _to_stored({**p.payload, "key": p.key})
            out.append(qe.Point(p.id, vector, payload))
        self._update(qe.UpdateOperation.upsert_points(out))

    def update_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None:
        self._writable()
        if not vectors:
            return
        self._need()
        out = [qe.PointVectors(pid, {DENSE: [float(x) for x in dense]}) for pid, dense in vectors]
        self._update(qe.UpdateOperation.update_vectors(out))

    def delete(self, flt: Filter) -> None:
        self._writable()
        if self._shard is not None:
            self._update(qe.UpdateOperation.delete_points_by_filter(_filter(flt) or qe.Filter()))

    def set_payload(self, values: dict[str, Any], flt: Filter) -> None:
        self._writable()
        if self._shard is not None:
            self._update(qe.UpdateOperation.set_payload_by_filter(_filter(flt) or qe.Filter(), _to_stored(values)))

    # -- reads -------------------------------------------------------------

    def query(self, queries: Sequence[Query]) -> list[list[Scored]]:
        if self._shard is None:
            return [[] for _ in queries]
        requests, slots = [], []
        for i, q in enumerate(queries):
            req = _request(q)
            if req is not None:
                requests.append(req)
                slots.append(i)
        results: list[list[Scored]] = [[] for _ in queries]
        if requests:
            with _edge_errors(self.path, "searching"):
                batch = self._shard.query_batch(qe.QueryBatchRequest(requests))
            for i, points in zip(slots, batch, strict=False):
                results[i] = [_scored(p) for p in points]
        return results

    def scroll(self, flt: Filter | None = None, *, fields: Sequence[str] | None = None, batch: int = 512) -> Iterator[Scored]:
        if self._shard is None:
            return
        with_payload: Any = qe.PayloadSelector.Include(list(fields)) if fields is not None else True
        offset = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(offset=offset, limit=batch, filter=_filter(flt), with_payload=with_payload)
            )
            for r in records:
                yield Scored(id=str(r.id), score=0.0, payload=_from_stored(r.payload))
            if offset is None:
                return

    def count(self, flt: Filter | None = None) -> int:
        if self._shard is None:
            return 0
        return self._shard.count(qe.CountRequest(exact=True, filter=_filter(flt)))

    # -- meta --------------------------------------------------------------

    def read_meta(self) -> dict[str, Any]:
        try:
            meta: dict[str, Any] = json.loads((self.path / META_NAME).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(
                f"{self.path / META_NAME}: unreadable index metadata ({exc}); rebuild the index with `convo-tui index --rebuild`"
            ) from None
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


# -- translation to qdrant_edge ---------------------------------------------


def _to_stored(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: int(v) if k in _BOOL_FIELDS and isinstance(v, bool) else v for k, v in payload.items()}


def _from_stored(payload: dict[str, Any] | None) -> dict[str, Any]:
    if not payload:
        return {}
    return {k: bool(v) if k in _BOOL_FIELDS and isinstance(v, int) and not isinstance(v, bool) else v for k, v in payload.items()}


def _match_value(key: str, value: Any) -> Any:
    return int(value) if key in _BOOL_FIELDS and isinstance(value, bool) else value


def _condition(c: Any) -> qe.FieldCondition:
    if c.value is not None:
        return qe.FieldCondition(c.key, match=qe.MatchValue(_match_value(c.key, c.value)))
    if c.any:
        return qe.FieldCondition(c.key, match=qe.MatchAny([_match_value(c.key, v) for v in c.any]))
    if c.gte is not None or c.lte is not None:
        return qe.FieldCondition(c.key, range=qe.RangeFloat(gte=c.gte, lte=c.lte))
    raise ValueError(f"condition on {c.key!r} has no value, any or range")


def _filter(flt: Filter | None) -> qe.Filter | None:
    if flt is None or not (flt.must or flt.must_not):
        return None
    return qe.Filter(
        must=[_condition(c) for c in flt.must] or None,
        must_not=[_condition(c) for c in flt.must_not] or None,
    )


def _request(q: Query) -> qe.QueryRequest | None:
    flt = _filter(q.filter)
    sparse = q.sparse if q.sparse is not None and q.sparse.indices else None
    with_vector: Any = [DENSE] if q.with_dense else False
    if q.dense is not None and sparse is not None:
        pre = q.prefetch_limit or q.limit * 2
        return qe.QueryRequest(
            limit=q.limit,
            prefetches=[
                qe.Prefetch(limit=pre, query=qe.Query.Nearest(list(q.dense), using=DENSE), filter=flt, params=_DENSE_PARAMS),
                qe.Prefetch(limit=pre, query=qe.Query.Nearest(_sparse(sparse), using=SPARSE), filter=flt),
            ],
            # The stub declares Fusion.Rrf as a class nested in Fusion; at run time it is a Fusion.
            query=qe.Fusion.Rrf(k=RRF_K),  # type: ignore[arg-type]
            filter=flt,
            with_payload=True,
            with_vector=with_vector,
        )
    if q.dense is not None:
        vector: Any = list(q.dense)
        using, params = DENSE, _DENSE_PARAMS
    elif sparse is not None:
        vector, using, params = _sparse(sparse), SPARSE, None
    else:
        return None
    return qe.QueryRequest(
        limit=q.limit,
        query=qe.Query.Nearest(vector, using=using),
        filter=flt,
        params=params,
        with_payload=True,
        with_vector=with_vector,
    )


def _sparse(v: SparseVec) -> qe.SparseVector:
    return qe.SparseVector(list(v.indices), [float(x) for x in v.values])


def _scored(p: Any) -> Scored:
    dense = None
    if isinstance(p.vector, dict) and DENSE in p.vector:
        dense = list(p.vector[DENSE])
    return Scored(id=str(p.id), score=float(p.score), payload=_from_stored(p.payload), dense=dense)
