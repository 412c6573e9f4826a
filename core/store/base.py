"""The index store contract: the little that indexing and search need from Qdrant.

Two backends implement it (embedded Qdrant Edge, and a Qdrant server through
qdrant-client); one contract test suite runs against both. Vectors are named:
`dense` (cosine) and `bm25` (sparse, IDF modifier). Filters are backend-neutral
so search builds them once.

Semantics both backends share (the contract tests pin them):
- `upsert` stores `payload["key"] = point.key`, so `Cond("key", ...)` works and
  every returned payload carries its key.
- `scroll` yields Scored with score 0.0; `retrieve` (built on scroll) returns
  the points that exist, in the order of `keys`.
- A Query with neither a dense nor a non-empty sparse vector returns [].
- A Filter with no conditions matches every point (so `delete(Filter())`
  empties the index).
- Reads on an index that ensure() never set up return nothing (count 0);
  writes raise IndexUnavailable. Every expected failure (index held by another
  process, read-only, other dimension, server unreachable) is IndexUnavailable
  with a one-line message; a Cond with no value/any/range is a ValueError.
- Fused scores are RRF with k=RRF_K on both backends; `Scored.dense` is the
  stored vector when `with_dense` (cosine = dot product, vectors normalised).
- Also (docs/ARCHITECTURE.md, "The store contract"): PAYLOAD_INDEXES, RRF_K, `optimize()` (call it
  once after a bulk write: on Edge it builds the HNSW graphs synchronously,
  minutes for 100k points; a no-op on the server) and `drop()` (start afresh,
  e.g. when the model changes). Open stores with core.store.open_store().
- Added for two-phase indexing: `update_vectors` sets the dense vector of
  points that exist (found by id), keeping their sparse vector and payload;
  ids of points that do not exist are ignored.
- Added for model switches: `begin_dense_switch(dim)` starts a copy of the
  visible points (same ids, payloads and BM25 vectors) whose dense vectors
  may have another size; `DenseSwitch.commit` makes the copy the index in one
  step. Backends that cannot do it raise IndexUnavailable (rebuild instead).
"""

from __future__ import annotations

import hashlib
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from convo_tui.core.errors import IndexUnavailable

DENSE = "dense"
SPARSE = "bm25"
# Reciprocal-rank-fusion constant, the same on both backends so scores agree:
# a point ranked r (0-based) by a prefetch gets 1 / (RRF_K + r) from it.
RRF_K = 60
# Candidates HNSW explores per dense search. Measured on 20k clustered 384-d
# points with a 50% filter: recall@20 0.86 at Qdrant's default, 0.96 at 256,
# for under 1 ms more.
HNSW_EF = 256

# Payload fields that filters use, and the index each backend builds for them.
# Kinds: "keyword" (str, or a list of str such as `tool_keys`), "bool", "integer",
# "float" (`timestamp`, epoch seconds, range filters and newest-first order).
# Filters read these fields and `turn_index` (stored, not indexed): the embedded
# store packs every other field into one value, and refuses a filter on one
# (edge_packing.py). Every index costs on each point written and when segments
# are built (payload indexes were most of Edge's optimize time): only fields that
# searches and the indexer filter on are indexed (`tools`, `path` and
# `starred` were, unused).
PAYLOAD_INDEXES: dict[str, str] = {
    "key": "keyword",
    "session_id": "keyword",
    "level": "keyword",  # "turn" | "message" | "session" | "record"
    "project": "keyword",
    "source": "keyword",
    "role": "keyword",
    "tool_keys": "keyword",  # lower-cased tool names, for `tool:` filters
    "generation": "integer",  # the indexer's write generation (time_ns)
    "machine": "keyword",  # set only on sessions read from another machine (core/remote/)
    "has_tools": "bool",
    "visible": "bool",
    # On points that get a dense vector: False until phase 2 of indexing has set it.
    "dense_ready": "bool",
    "timestamp": "float",
    "lang": "keyword",  # "cjk" | "latin" on text points (core/index/points.py)
}
# Boolean payload fields, indexed or not (Edge stores them as 0/1: edge_schema.py).
BOOL_PAYLOAD = frozenset({*(k for k, kind in PAYLOAD_INDEXES.items() if kind == "bool"), "starred"})

# Point ids are uuid5 of the point's key, so re-indexing is an idempotent upsert.
_ID_NAMESPACE = uuid.UUID("6f1c2a52-3e0b-4b8e-9a57-2f6d0f3c7a10")


def point_id(key: str) -> str:
    """uuid5 of the key's bytes. A key made from a file name that is not valid
    UTF-8 holds surrogate escapes: it is encoded back to the name's own bytes
    (as os.fsencode does) instead of failing; for any other key this is
    exactly uuid.uuid5(_ID_NAMESPACE, key)."""
    data = key.encode("utf-8", "surrogateescape") if not key.isascii() else key.encode("ascii")
    digest = hashlib.sha1(_ID_NAMESPACE.bytes + data, usedforsecurity=False).digest()
    return str(uuid.UUID(bytes=digest[:16], version=5))


@dataclass
class SparseVec:
    indices: list[int]
    values: list[float]


@dataclass
class Point:
    key: str  # "<session>:turn-3", "<session>:msg-4#1" (chunk 1), "<session>:session"
    dense: Sequence[float] | None
    sparse: SparseVec | None
    payload: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return point_id(self.key)


@dataclass(frozen=True)
class Cond:
    """One condition on a payload field.

    Exactly one of: `value` (equals), `any` (equals one of), or a range
    (`gte`/`lte`, numbers; timestamps are stored as epoch seconds).
    """

    key: str
    value: str | int | bool | None = None
    any: tuple[str | int, ...] = ()
    gte: float | None = None
    lte: float | None = None


@dataclass(frozen=True)
class Filter:
    must: tuple[Cond, ...] = ()
    must_not: tuple[Cond, ...] = ()

    def and_(self, *conds: Cond) -> Filter:
        return Filter(must=self.must + tuple(conds), must_not=self.must_not)


@dataclass
class Query:
    """One search: dense and/or sparse; both means fusion (RRF) inside Qdrant."""

    dense: Sequence[float] | None = None
    sparse: SparseVec | None = None
    filter: Filter | None = None
    limit: int = 10
    # Candidates each vector contributes before fusion.
    prefetch_limit: int | None = None
    # Return the stored dense vector (to compute the cosine similarity a card shows).
    with_dense: bool = False
    # Return the token ids of the stored sparse vector: which query terms a text
    # holds as indexed (re-tokenizing the candidates' texts cost 24 ms a search).
    with_terms: bool = False
    # Only these payload fields on each hit (None: the whole payload), its `partial`
    # set. A meaning query asking only for indexed fields (PAYLOAD_INDEXES) is
    # answered by Edge's dense shard alone, without reading the main shard's
    # payloads by id (58 us a hit at a million messages): search reads whole
    # payloads afterwards (`Store.payloads`) for the hits that can reach the page.
    fields: Sequence[str] | None = None

    def stored_vectors(self) -> list[str]:
        """The stored vectors a hit should carry back (`with_dense`, `with_terms`)."""
        return [name for name, wanted in ((DENSE, self.with_dense), (SPARSE, self.with_terms)) if wanted]


@dataclass
class Scored:
    id: str
    score: float
    payload: dict[str, Any]
    dense: list[float] | None = None
    terms: frozenset[int] | None = None  # with_terms: the stored sparse vector's token ids
    # Set by search (core/search/fusion.py): which stage placed the point.
    stage: str = ""
    # Set by search (core/search/meaning.py): `dense`'s cosine to the query, measured
    # once per search (merge reads it again for the card's similarity).
    cosine: float | None = None
    # The payload holds only the fields the query asked for (`Query.fields`).
    partial: bool = False


# Given a page of payloads, the payload and dense vector (or None) each copy gets.
Restage = Callable[[list[dict[str, Any]]], list[tuple[dict[str, Any], Sequence[float] | None]]]


class DenseSwitch(ABC):
    """A copy of the index being filled for another dense model, page by page.

    The index itself is untouched (and searchable) until `commit`; `abort`, or a
    crash before the commit, leaves it as it was."""

    @abstractmethod
    def copy(self, restage: Restage, batch: int = 512) -> int:
        """Copy the next page of visible points; 0 when every point is copied."""

    @abstractmethod
    def commit(self, meta: dict[str, Any]) -> None:
        """Replace the index with the copy and its meta with `meta`, atomically."""

    @abstractmethod
    def abort(self) -> None:
        """Drop the copy (the index stays as it was)."""


class Store(ABC):
    """An open index. Not thread-safe for writes; reads may run alongside."""

    # Set when a store opened for repair (`index --rebuild`) cannot be read:
    # nothing may be read from it; drop() and a rebuild are the way out.
    damaged: IndexUnavailable | None = None

    @abstractmethod
    def ensure(self, dim: int) -> None:
        """Create the collection (vectors, BM25 with IDF, payload indexes) if absent."""

    @abstractmethod
    def upsert(self, points: Sequence[Point]) -> None: ...

    @abstractmethod
    def update_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None:
        """Set the dense vector of existing points, given as (point id, vector).

        The sparse vector and the payload stay as they are; phase 2 of indexing
        uses it to add dense vectors to points already published with BM25 only."""

    @abstractmethod
    def delete(self, flt: Filter) -> None: ...

    @abstractmethod
    def set_payload(self, values: dict[str, Any], flt: Filter) -> None:
        """Merge `values` into the payload of every point matching `flt`."""

    @abstractmethod
    def query(self, queries: Sequence[Query]) -> list[list[Scored]]:
        """Run several searches in one round trip (turn and message levels)."""

    @abstractmethod
    def scroll(self, flt: Filter | None = None, *, fields: Sequence[str] | None = None, batch: int = 512) -> Iterator[Scored]:
        """Every matching point (payload only, or only `fields` of it)."""

    @abstractmethod
    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The whole payload of each of these points, by id (a point not there is left out)."""

    def newest(self, flt: Filter | None, *, limit: int, fields: Sequence[str] | None = None) -> list[Scored]:
        """The `limit` matching points with the latest `timestamp`, latest first
        (points without one last). Backends read them through the timestamp
        index; this fallback reads every match (what a listing at a million
        messages must not do)."""
        points = list(self.scroll(flt, fields=fields))
        points.sort(key=lambda p: p.payload.get("timestamp") or 0.0, reverse=True)
        return points[:limit]

    def retrieve(self, keys: Sequence[str]) -> list[Scored]:
        """The points stored under these keys, in the order of `keys`; found by the
        payload `key`, not by point_id(key), because the indexer derives its ids from
        key and generation. Of several generations of one key, the newest."""
        if not keys:
            return []
        newest: dict[str, Scored] = {}
        for point in self.scroll(Filter(must=(Cond("key", any=tuple(dict.fromkeys(keys))),))):
            key = point.payload.get("key", "")
            kept = newest.get(key)
            if kept is None or point.payload.get("generation", 0) > kept.payload.get("generation", 0):
                newest[key] = point
        return [newest[k] for k in keys if k in newest]

    @abstractmethod
    def count(self, flt: Filter | None = None) -> int: ...

    @abstractmethod
    def read_meta(self) -> dict[str, Any]:
        """The index's own metadata (model, dimension, schema version, ...)."""

    @abstractmethod
    def write_meta(self, meta: dict[str, Any]) -> None: ...

    def begin_dense_switch(self, dim: int) -> DenseSwitch:
        """Start copying the index for a dense model of `dim` dimensions (see DenseSwitch)."""
        raise IndexUnavailable(
            "this index cannot change its embedding model in place; run `convo-tui index --rebuild` to re-index"
        )

    @abstractmethod
    def drop(self) -> None:
        """Delete every point, payload index and the meta; ensure() starts afresh."""

    def optimize(self) -> None:
        """Build search indexes for what was written (call after a bulk write).

        A no-op where the backend indexes as it writes."""
        return None

    def release_pages(self) -> None:
        """Let go of the index pages this process has mapped but no longer needs
        (after opening, after an index run). A no-op where the index is not mapped here."""
        return None

    def writes(self) -> int | None:
        """A count this process's writes to the index change, when no other process
        writes it meanwhile (it holds the lock, or reads a copy); None where others
        may (a server collection): then nothing read may be kept for a later call."""
        return None

    def rebuild_note(self) -> str | None:
        """One line on what `index --rebuild` would bring this index that it lacks
        (a layout made by an older version), or None."""
        return None

    @abstractmethod
    def flush(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def let_go(self) -> None:
        """Close at the end of this process's use of the index (Library.close): a
        store may keep what the next process will read (EdgeStore: parking.py).
        Any other close, such as one after a failed open, is `close()`."""
        self.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
