"""The server store: one collection on a Qdrant server, through qdrant-client.

For corpora or teams that outgrow one machine. The index metadata lives in
the collection's own metadata (Qdrant >= 1.16), so it travels with the data.
Tests use qdrant-client's local mode (`QdrantClient(":memory:")`), which
speaks the same API.

qdrant-client is imported lazily: it pulls in httpx, and httpx pulls in Rich,
which core must not load unless the server backend is actually in use.
"""

from __future__ import annotations

import ipaddress
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from convo_tui.core.errors import ConfigError, IndexUnavailable
from convo_tui.core.store.base import (
    DENSE,
    HNSW_EF,
    PAYLOAD_INDEXES,
    RRF_K,
    SPARSE,
    Cond,
    Filter,
    Point,
    Query,
    Scored,
    SparseVec,
    Store,
)

if TYPE_CHECKING:
    from qdrant_client import QdrantClient
    from qdrant_client import models as m

DEFAULT_COLLECTION = "convo_tui"
_UPSERT_BATCH = 256


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def connect_server(url: str, api_key: str | None = None, allow_insecure: bool = False) -> QdrantClient:
    """A client for `url`, refusing plain http off this machine unless allowed.

    The API key (and the transcripts) would travel in clear over plain http,
    so only https or a loopback address is accepted by default.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ConfigError(f"Qdrant URL {url!r}: expected http(s)://host[:port]")
    if parts.scheme == "http" and not _is_loopback(parts.hostname) and not allow_insecure:
        raise ConfigError(
            f"Qdrant URL {url}: plain http to another machine would send your transcripts"
            f"{' and API key' if api_key else ''} in clear; use https://, or set"
            " qdrant_allow_insecure = true in the config if you accept that"
        )
    from qdrant_client import QdrantClient

    with warnings.catch_warnings():
        # qdrant-client warns about a key over http; the user opted in above.
        warnings.filterwarnings("ignore", message="Api key is used with an insecure connection")
        # No version probe here: nothing goes over the wire until the store is used.
        return QdrantClient(url=url, api_key=api_key or None, check_compatibility=False)


@contextmanager
def _reaching(where: str) -> Iterator[None]:
    """Turn a server that cannot be reached or refuses into one line."""
    import httpx
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    try:
        yield
    except UnexpectedResponse as exc:
        raise IndexUnavailable(f"Qdrant at {where} refused the request ({exc.status_code} {exc.reason_phrase})") from None
    except (ResponseHandlingException, httpx.HTTPError, ConnectionError) as exc:
        raise IndexUnavailable(f"Qdrant at {where} cannot be reached ({exc})") from None


class ServerStore(Store):
    """One collection of a Qdrant server (or of qdrant-client's local mode)."""

    def __init__(self, client: QdrantClient, collection: str = DEFAULT_COLLECTION, *, read_only: bool = False):
        self.client = client
        self.collection = collection
        self.read_only = read_only
        self._where = f"{_describe(client)} (collection {collection})"
        init = getattr(client, "init_options", None) or {}
        self._local = bool(init.get("location") == ":memory:" or init.get("path"))
        with _reaching(self._where):
            self._exists = client.collection_exists(collection)
        if read_only and not self._exists:
            raise IndexUnavailable(f"no index in {self._where} yet; run `convo-tui index` first")

    # -- lifecycle ---------------------------------------------------------

    def ensure(self, dim: int) -> None:
        from qdrant_client import models as m

        self._writable()
        with _reaching(self._where):
            if not self.client.collection_exists(self.collection):
                self.client.create_collection(
                    self.collection,
                    vectors_config={DENSE: m.VectorParams(size=dim, distance=m.Distance.COSINE)},
                    sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
                )
            info = self.client.get_collection(self.collection)
            vectors = info.config.params.vectors
            have = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
            if have != dim:
                raise IndexUnavailable(
                    f"{self._where} holds {have}-dimension vectors, not {dim}; "
                    "it was built with another model: re-index it from scratch"
                )
            known = set(info.payload_schema or {})
            with warnings.catch_warnings():
                # Local mode warns that it ignores payload indexes; a server builds them.
                warnings.filterwarnings("ignore", message="Payload indexes have no effect")
                for name, kind in PAYLOAD_INDEXES.items():
                    if name not in known:
                        schema = m.PayloadSchemaType(kind)  # "keyword", "bool", "integer", "float"
                        self.client.create_payload_index(self.collection, name, schema)
        self._exists = True

    def drop(self) -> None:
        self._writable()
        with _reaching(self._where):
            self.client.delete_collection(self.collection)
        self._exists = False

    def flush(self) -> None:
        """Writes wait for the server's acknowledgement; nothing is pending here."""

    def close(self) -> None:
        self.client.close()

    def _writable(self) -> None:
        if self.read_only:
            raise IndexUnavailable(f"{self._where} was opened read-only")

    def _need(self) -> None:
        if not self._exists:
            raise IndexUnavailable(f"{self._where} is not set up yet; run `convo-tui index` first")

    # -- writes ------------------------------------------------------------

    def upsert(self, points: Sequence[Point]) -> None:
        from qdrant_client import models as m

        self._writable()
        self._need()
        if not points:
            return
        structs = []
        for p in points:
            vector: dict[str, Any] = {}
            if p.dense is not None:
                vector[DENSE] = [float(x) for x in p.dense]
            if p.sparse is not None and p.sparse.indices:
                vector[SPARSE] = _sparse(p.sparse)
            structs.append(m.PointStruct(id=p.id, vector=vector, payload={**p.payload, "key": p.key}))
        # Requests stay well under the server's 32 MB body limit even with long texts.
        for start in range(0, len(structs), _UPSERT_BATCH):
            with _reaching(self._where):
                self.client.upsert(self.collection, structs[start : start + _UPSERT_BATCH], wait=True)

    def update_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None:
        from qdrant_client import models as m

        self._writable()
        self._need()
        if not vectors:
            return
        structs = [m.PointVectors(id=pid, vector={DENSE: [float(x) for x in dense]}) for pid, dense in vectors]
        for start in range(0, len(structs), _UPSERT_BATCH):
            with _reaching(self._where):
                self.client.update_vectors(self.collection, structs[start : start + _UPSERT_BATCH], wait=True)

    def delete(self, flt: Filter) -> None:
        from qdrant_client import models as m

        self._writable()
        if self._exists:
            with _reaching(self._where):
                self.client.delete(self.collection, m.FilterSelector(filter=_filter(flt) or m.Filter()), wait=True)

    def set_payload(self, values: dict[str, Any], flt: Filter) -> None:
        from qdrant_client import models as m

        self._writable()
        if self._exists:
            with _reaching(self._where):
                self.client.set_payload(self.collection, values, _filter(flt) or m.Filter(), wait=True)

    # -- reads -------------------------------------------------------------

    def query(self, queries: Sequence[Query]) -> list[list[Scored]]:
        results: list[list[Scored]] = [[] for _ in queries]
        if not self._exists:
            return results
        requests, slots = [], []
        for i, q in enumerate(queries):
            req = _request(q, tune=not self._local)
            if req is not None:
                requests.append(req)
                slots.append(i)
        if requests:
            with _reaching(self._where):
                batch = self.client.query_batch_points(self.collection, requests)
            for i, response in zip(slots, batch, strict=False):
                results[i] = [_scored(p, partial=queries[i].fields is not None) for p in response.points]
        return results

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not self._exists or not ids:
            return {}
        with _reaching(self._where):
            records = self.client.retrieve(self.collection, list(ids), with_payload=True, with_vectors=False)
        return {str(r.id): dict(r.payload or {}) for r in records}

    def scroll(self, flt: Filter | None = None, *, fields: Sequence[str] | None = None, batch: int = 512) -> Iterator[Scored]:
        if not self._exists:
            return
        with_payload: Any = list(fields) if fields is not None else True
        offset = None
        while True:
            with _reaching(self._where):
                records, offset = self.client.scroll(
                    self.collection,
                    scroll_filter=_filter(flt),
                    limit=batch,
                    offset=offset,
                    with_payload=with_payload,
                    with_vectors=False,
                )
            for r in records:
                yield Scored(id=str(r.id), score=0.0, payload=dict(r.payload or {}))
            if offset is None:
                return

    def newest(self, flt: Filter | None, *, limit: int, fields: Sequence[str] | None = None) -> list[Scored]:
        """Ordered by the server through the `timestamp` index (local mode sorts in memory)."""
        if not self._exists or limit <= 0:
            return []
        from qdrant_client import models

        with_payload: Any = [*fields, "timestamp"] if fields is not None else True
        with _reaching(self._where):
            records, _ = self.client.scroll(
                self.collection,
                scroll_filter=_filter(flt),
                limit=limit,
                with_payload=with_payload,
                with_vectors=False,
                order_by=models.OrderBy(key="timestamp", direction=models.Direction.DESC),
            )
        found = [Scored(id=str(r.id), score=0.0, payload=dict(r.payload or {})) for r in records]
        if len(found) < limit:
            seen = {p.id for p in found}
            rest = [p for p in self.scroll(flt, fields=with_payload if fields is not None else None) if p.id not in seen]
            found += [p for p in rest if p.payload.get("timestamp") is None][: limit - len(found)]
        return found

    def count(self, flt: Filter | None = None) -> int:
        if not self._exists:
            return 0
        with _reaching(self._where):
            return self.client.count(self.collection, count_filter=_filter(flt), exact=True).count

    # -- meta --------------------------------------------------------------

    def read_meta(self) -> dict[str, Any]:
        if not self._exists:
            return {}
        with _reaching(self._where):
            return dict(self.client.get_collection(self.collection).config.metadata or {})

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Replace the metadata (Qdrant merges, so stale keys are set to null)."""
        self._writable()
        self._need()
        stale = {k: None for k in self.read_meta() if k not in meta}
        with _reaching(self._where):
            self.client.update_collection(self.collection, metadata={**stale, **meta})


# -- translation to qdrant-client models -------------------------------------


def _describe(client: QdrantClient) -> str:
    init = getattr(client, "init_options", None) or {}
    if init.get("url"):
        return str(init["url"])
    if init.get("location") == ":memory:":
        return "local Qdrant (memory)"
    if init.get("path"):
        return f"local Qdrant ({init['path']})"
    return "Qdrant"


def _condition(c: Cond) -> m.FieldCondition:
    from qdrant_client import models as m

    if c.value is not None:
        return m.FieldCondition(key=c.key, match=m.MatchValue(value=c.value))
    if c.any:
        # One kind of value per condition (ids or indexes), as qdrant-client requires.
        return m.FieldCondition(key=c.key, match=m.MatchAny(any=cast("list[str] | list[int]", list(c.any))))
    if c.gte is not None or c.lte is not None:
        return m.FieldCondition(key=c.key, range=m.Range(gte=c.gte, lte=c.lte))
    raise ValueError(f"condition on {c.key!r} has no value, any or range")


def _filter(flt: Filter | None) -> m.Filter | None:
    from qdrant_client import models as m

    if flt is None or not (flt.must or flt.must_not):
        return None
    return m.Filter(
        must=[_condition(c) for c in flt.must] or None,
        must_not=[_condition(c) for c in flt.must_not] or None,
    )


def _sparse(v: SparseVec) -> m.SparseVector:
    from qdrant_client import models as m

    return m.SparseVector(indices=list(v.indices), values=[float(x) for x in v.values])


def _request(q: Query, tune: bool) -> m.QueryRequest | None:
    """`tune` adds HNSW search params (local mode searches exactly and warns about them)."""
    from qdrant_client import models as m

    flt = _filter(q.filter)
    sparse = q.sparse if q.sparse is not None and q.sparse.indices else None
    with_vector: Any = q.stored_vectors() or False
    payload: Any = list(q.fields) if q.fields is not None else True
    dense_params = m.SearchParams(hnsw_ef=HNSW_EF) if tune else None
    if q.dense is not None and sparse is not None:
        pre = q.prefetch_limit or q.limit * 2
        return m.QueryRequest(
            prefetch=[
                m.Prefetch(query=list(q.dense), using=DENSE, limit=pre, filter=flt, params=dense_params),
                m.Prefetch(query=_sparse(sparse), using=SPARSE, limit=pre, filter=flt),
            ],
            query=m.RrfQuery(rrf=m.Rrf(k=RRF_K)),
            filter=flt,
            limit=q.limit,
            with_payload=payload,
            with_vector=with_vector,
        )
    if q.dense is not None:
        query: Any = list(q.dense)
        using, params = DENSE, dense_params
    elif sparse is not None:
        query, using, params = _sparse(sparse), SPARSE, None
    else:
        return None
    return m.QueryRequest(
        query=query, using=using, filter=flt, params=params, limit=q.limit, with_payload=payload, with_vector=with_vector
    )


def _scored(p: m.ScoredPoint, *, partial: bool = False) -> Scored:
    from qdrant_client import models as m

    dense, terms = None, None
    if isinstance(p.vector, dict):
        if DENSE in p.vector:
            dense = [float(x) for x in cast("list[float]", p.vector[DENSE])]  # the named dense vector, never sparse or multi
        stored = p.vector.get(SPARSE)
        if isinstance(stored, m.SparseVector):
            terms = frozenset(stored.indices)
    return Scored(id=str(p.id), score=float(p.score), payload=dict(p.payload or {}), dense=dense, terms=terms, partial=partial)
