"""How our points look to Qdrant Edge: the shard's config, its payload index
schema, filters, queries and payloads translated both ways, and Edge's bare
exceptions turned into one line. Shared by the store (edge.py) and the model
switch's staged shard (edge_switch.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from convo_tui.core.errors import IndexBusy, IndexUnavailable
from convo_tui.core.store import space
from convo_tui.core.store.base import (
    BOOL_PAYLOAD,
    DENSE,
    HNSW_EF,
    PAYLOAD_INDEXES,
    SPARSE,
    Filter,
    Point,
    Scored,
    SparseVec,
)
from convo_tui.core.store.edge_facets import FACETS, facets_of
from convo_tui.core.store.edge_packing import PackedUnreadable, pack, unpack
from convo_tui.core.store.files import damaged

# qdrant-edge-py 0.9 turns a bool in MatchValue into 0/1, which never matches a
# stored JSON bool; so bool fields are stored as 0/1 here and turned back on read.
BOOL_FIELDS = BOOL_PAYLOAD
# Payload indexes stay on disk (mmap, pages read when a filter needs them):
# held in RAM they cost ~140 MB at 144k points and opening the index read them
# all, though a search filters on a few small fields (measured: BENCHMARKS.md, "Search-time memory").
INDEX_SCHEMA: dict[str, Any] = {
    "keyword": qe.KeywordIndexParams(memory=qe.Memory.Cold),
    "bool": qe.IntegerIndexParams(lookup=True, range=True, memory=qe.Memory.Cold),
    "integer": qe.IntegerIndexParams(lookup=True, range=True, memory=qe.Memory.Cold),
    "float": qe.FloatIndexParams(memory=qe.Memory.Cold),
    "facet": qe.IntegerIndexParams(lookup=True, range=False, memory=qe.Memory.Cold),  # edge_facets.py: matched, never ranged
}
# m=16 / ef_construct=100 are Qdrant's defaults and give >0.95 recall on
# sentence embeddings; segments under full_scan_threshold KB are brute-forced.
HNSW = qe.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=10_000)
DENSE_PARAMS = qe.SearchParams(hnsw_ef=HNSW_EF)
# Memory: a search reads the int8 copies of the dense vectors (a quarter of the
# float32 size) and rescores its few candidates against the originals; both
# stay on disk (mmap, read on demand: an HNSW search touches a few thousand of
# the int8 rows, so pinning them all in RAM cost 55 MB at 144k points for no
# measurable speed). Payloads are read only for the hits, so they stay on disk
# too. Indexes created before this keep their own persisted config and their
# in-RAM payload indexes (loading passes no config): `index --rebuild` moves
# them to disk (rebuilding the payload indexes in place took 275 s at 144k
# points, too long to do unasked).
DENSE_QUANTIZATION = qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Cold)


# Segments: Edge's merge optimizer, left to its defaults, folded every rolled
# segment into one ever larger one, so each roll rewrote and mapped the whole
# index: at 100k messages phase 1 peaked at 4.5 GB and slowed with the square of
# the history (one 1.8 GB segment). Sixteen segments keep each merge to a
# sixteenth of the index: 100k messages indexed (phase 1) in 161 s at 831 MB
# instead of 1,262 MB with eight, keyword search as fast (bench/scale.py,
# BENCHMARKS.md "Huge transcripts and scale"). Edge measures max_segment_size
# by vector storage, not payload, so the count is what bounds a merge here.
#
# Vacuum at half the points deleted, not Edge's fifth: phase 2 gives every text
# point its vector once, and Edge moves an updated point out of its optimized
# segment, leaving a deleted copy behind. Where texts are over a fifth of a
# segment's points, the default rewrote every segment in the run's last
# optimize, all mapped at once: a 200 MB transcript's phase 2 peaked at 1,066
# MB there, 476 MB at 0.5 (bench/measure_vacuum.py), for 16% more on disk (413
# against 355 MB) until a segment is half dead and vacuumed on its own.
OPTIMIZERS = qe.EdgeOptimizersConfig(default_segment_number=16, max_segment_size=32 * 1024, deleted_threshold=0.5)
# The main shard's appendable segment becomes an on-disk one at every optimize()
# (the rolls and the end of a run that wrote OPTIMIZE_MIN_POINTS), whatever its
# size. With Edge's default threshold (10 MB of BM25 storage, about 25k points)
# a run left up to that many points there, whose indexes every process that
# opens the index rebuilt in RAM: at 10k messages 0.1 s and 60 MB of each cold
# search, the app and `serve` (BENCHMARKS.md, "Eleventh session"). Its unit is KB.
MAIN_OPTIMIZERS = qe.EdgeOptimizersConfig(
    default_segment_number=16, max_segment_size=32 * 1024, deleted_threshold=0.5, indexing_threshold=1
)


def main_config() -> qe.EdgeConfig:
    """The main shard: every point's payload and BM25 vector, no dense vector.

    Dense vectors live in a shard of their own (dense_config): Edge gives every
    point of a shard a slot in each dense vector's storage, so when they shared
    one shard, 3.9M points at a million messages carried 5.96 GB of float32
    slots (and 1.5 GB of int8 copies) for 445k vectors, 89% of them empty,
    rewritten by every merge of phase 1."""
    return qe.EdgeConfig(
        # On disk too: in RAM the sparse index grew with the history (270 bytes a
        # point: 1.1 GB at a million messages) in every process that searches.
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, memory=qe.Memory.Cold)},
        payload_memory=qe.Memory.Cold,
        optimizers=MAIN_OPTIMIZERS,
    )


def optimizers_behind(shard: Path) -> bool:
    """The main shard at `shard` was made with other optimizer settings than MAIN_OPTIMIZERS."""
    try:
        stored = json.loads((shard / "edge_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False  # unreadable: the load says what is wrong
    optimizers = stored.get("optimizers") if isinstance(stored, dict) else None
    if not isinstance(optimizers, dict):
        return False
    return optimizers.get("indexing_threshold") != MAIN_OPTIMIZERS.indexing_threshold


def load_with_main_optimizers(shard: Path) -> qe.EdgeShard | None:
    """The main shard at `shard`, loaded with MAIN_OPTIMIZERS if it was made with
    others (Edge writes its config anew). None when it has them already, or when
    Edge refuses: the caller's plain load then opens it as it was, or names what
    is damaged."""
    if not optimizers_behind(shard):
        return None
    try:
        return qe.EdgeShard.load(str(shard), main_config())
    except BaseException as exc:
        if type(exc) is not Exception and not is_engine_panic(exc):
            raise
        return None


def dense_config(dim: int) -> qe.EdgeConfig:
    """The dense shard: the points that have a dense vector, with that vector and
    a copy of the payload fields filters use (FILTER_FIELDS), nothing else."""
    return qe.EdgeConfig(
        vectors={
            DENSE: qe.EdgeVectorParams(
                size=dim,
                distance=qe.Distance.Cosine,
                memory=qe.Memory.Cold,
                quantization_config=DENSE_QUANTIZATION,
            )
        },
        hnsw_config=HNSW,
        payload_memory=qe.Memory.Cold,
        optimizers=OPTIMIZERS,
    )


# What a dense point carries of its payload: the indexed fields (and their
# `facets`, edge_facets.py), so that a dense search filters exactly as a keyword one
# does. The rest (text, title, ...) is read from the main shard for the hits only.
FILTER_FIELDS = frozenset({*PAYLOAD_INDEXES, FACETS})


# A whole payload as the rest of the program knows it: all but `facets`, which
# Edge would otherwise hand over with every hit (a list costs microseconds to convert).
WHOLE_PAYLOAD = qe.PayloadSelector.Exclude([FACETS])


def filter_fields(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k in FILTER_FIELDS}


def dense_payload(stored: dict[str, Any], facet_fields: frozenset[str]) -> dict[str, Any]:
    """A dense point's payload made from its stored one: the filter fields, and
    the facets of `facet_fields` (the shards' layout: edge_facets.py)."""
    out = filter_fields(stored)
    if facet_fields:
        out[FACETS] = facets_of(stored, facet_fields)
    return out


def filter_keys(flt: Filter | None) -> set[str]:
    """The payload fields a filter reads."""
    if flt is None:
        return set()
    return {c.key for c in (*flt.must, *flt.must_not)}


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


# What each step of edge_errors is, as the disk-full line says it ("free some space to ...").
_DOING = {
    "opening": "open the index",
    "creating": "create the index",
    "writing": "write the index",
    "optimizing": "optimize the index",
    "flushing": "write the index",
    "closing": "close the index",
    "searching": "search the index",
    "reading": "read the index",
}
# Steps whose failure means damaged files: loading the shard, and reads of a shard that loaded.
_READS = frozenset({"opening", "searching", "reading"})


# Edge's words for a file it could not parse, at the end of a chain of causes.
_UNPARSED = re.compile(r"Failed to deserialize (/.+?): (.+)$")


def _what_failed(path: Path, doing: str, exc: BaseException) -> str:
    """The damaged file and why, when Edge names one; else the step and Edge's own words."""
    said = one_line(exc)
    found = _UNPARSED.search(said)
    if found is None:
        return f"{doing} failed ({said})"
    name, why = found.groups()
    with suppress(ValueError):
        name = str(Path(name).relative_to(path))
    return f"{name} is unreadable ({why})"


def is_engine_panic(exc: BaseException) -> bool:
    """A Rust panic inside Edge (pyo3's PanicException derives from BaseException):
    a file that held what its metadata promised would not have caused it."""
    return type(exc).__name__ == "PanicException"


@contextmanager
def edge_errors(path: Path, doing: str) -> Iterator[None]:
    """Edge reports I/O and storage failures as bare Exception, and damaged
    files sometimes as a Rust panic: make each one line.

    A full disk gets its own line (DiskFull, with the free space); a failed
    read or a panic means damaged files, named with the way out."""
    try:
        yield
    except BaseException as exc:
        if isinstance(exc, PackedUnreadable):
            raise IndexUnavailable(damaged(path, str(exc))) from None
        panic = is_engine_panic(exc)
        if not panic and type(exc) is not Exception:
            raise  # programming errors (TypeError, ValueError, ...) and KeyboardInterrupt stay loud
        if space.is_disk_full(exc):
            raise space.disk_full(path, _DOING.get(doing, "")) from None
        if not panic and wal_busy(exc):
            # Edge's own lock on its WAL, still held by a process that let the index go
            # and is ending (core/store/parking.py): busy for a moment, not damaged.
            raise IndexBusy(f"index {path} is in use by another process that is letting it go; try again", None) from None
        if panic or doing in _READS:
            raise IndexUnavailable(damaged(path, _what_failed(path, doing, exc))) from None
        raise IndexUnavailable(f"index {path}: {doing} failed ({one_line(exc)})") from None


def wal_busy(exc: BaseException) -> bool:
    """Edge could not lock its write-ahead log: another process holds it."""
    text = str(exc)
    return "Can't init WAL" in text and "WouldBlock" in text


# -- translation to qdrant_edge ---------------------------------------------


def to_stored(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: int(v) if k in BOOL_FIELDS and isinstance(v, bool) else v for k, v in payload.items()}


def from_stored(payload: dict[str, Any] | None, fields: Sequence[str] | None = None) -> dict[str, Any]:
    """A stored payload as the rest of the program knows it: unpacked (only
    `fields` of it when they are given), bools back, no `facets`."""
    if not payload:
        return {}
    return {
        k: bool(v) if k in BOOL_FIELDS and isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in unpack(payload, fields).items()
        if k != FACETS
    }


def match_value(key: str, value: Any) -> Any:
    return int(value) if key in BOOL_FIELDS and isinstance(value, bool) else value


def condition(c: Any) -> qe.FieldCondition:
    if c.value is not None:
        return qe.FieldCondition(c.key, match=qe.MatchValue(match_value(c.key, c.value)))
    if c.any:
        return qe.FieldCondition(c.key, match=qe.MatchAny([match_value(c.key, v) for v in c.any]))
    if c.gte is not None or c.lte is not None:
        return qe.FieldCondition(c.key, range=qe.RangeFloat(gte=c.gte, lte=c.lte))
    raise ValueError(f"condition on {c.key!r} has no value, any or range")


def to_filter(flt: Filter | None) -> qe.Filter | None:
    if flt is None or not (flt.must or flt.must_not):
        return None
    return qe.Filter(
        must=[condition(c) for c in flt.must] or None,
        must_not=[condition(c) for c in flt.must_not] or None,
    )


def to_sparse(v: SparseVec) -> qe.SparseVector:
    return qe.SparseVector(list(v.indices), [float(x) for x in v.values])


def to_scored(p: Any, *, fields: Sequence[str] | None = None) -> Scored:
    """A hit as Edge returned it; `fields`: the payload fields its query asked for (partial), or all."""
    dense, terms = None, None
    if isinstance(p.vector, dict):
        if DENSE in p.vector:
            dense = list(p.vector[DENSE])
        if SPARSE in p.vector:
            terms = frozenset(p.vector[SPARSE].indices)
    return Scored(
        id=str(p.id),
        score=float(p.score),
        payload=from_stored(p.payload, fields),
        dense=dense,
        terms=terms,
        partial=fields is not None,
    )


def edge_points(points: Sequence[Point], facet_fields: frozenset[str]) -> tuple[list[qe.Point], list[qe.Point], list[qe.PointId]]:
    """Our points as Edge's: each one for the main shard (payload and BM25 vector),
    those with a dense vector for the dense shard (the vector and the filter
    fields), and the ids of those without one. `facet_fields`: the fields whose
    values the shards keep in `facets` too (edge_facets.py)."""
    main: list[qe.Point] = []
    dense: list[qe.Point] = []
    plain: list[qe.PointId] = []
    for p in points:
        vector: dict[str, Any] = {}
        if p.sparse is not None and p.sparse.indices:
            vector[SPARSE] = qe.SparseVector(list(p.sparse.indices), [float(v) for v in p.sparse.values])
        payload = to_stored({**p.payload, "key": p.key})
        if facet_fields:
            payload[FACETS] = facets_of(payload, facet_fields)
        pid = p.id  # a hash of the key: once a point
        main.append(qe.Point(pid, vector, pack(payload, bool(facet_fields))))
        if p.dense is not None:
            dense.append(qe.Point(pid, {DENSE: [float(x) for x in p.dense]}, filter_fields(payload)))
        else:
            plain.append(pid)
    return main, dense, plain
