"""One contract, two backends: Qdrant Edge in a temp folder and qdrant-client local mode.

Dense vectors here come from a hashed bag-of-words embedder written for these
tests only (deterministic, no model files); relevance with the real model is
tested elsewhere. Sparse vectors come from Qdrant's own BM25 (multilingual
tokenizer), as in the app.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re

import pytest
from convo_tui.core.errors import ConfigError, IndexUnavailable
from convo_tui.core.settings import Settings
from convo_tui.core.store import open_store
from convo_tui.core.store.base import Cond, Filter, Point, Query, SparseVec, Store, point_id
from convo_tui.core.store.edge import EdgeStore
from convo_tui.core.store.edge_facets import FOLDED_INDEXES, facet
from convo_tui.core.store.qdrant_server import ServerStore, connect_server
from qdrant_edge import Bm25, Bm25Config, TokenizerType

DIM = 64
BM25 = Bm25(Bm25Config(tokenizer=TokenizerType.Multilingual))


def hashed_bow_embed(text: str) -> list[float]:
    """TEST-ONLY embedder: each word adds 1 to a hashed slot, then L2-normalised."""
    vec = [0.0] * DIM
    for word in re.findall(r"\w+", text.lower()):
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def bm25_doc(text: str) -> SparseVec:
    sv = BM25.embed_document(text)
    return SparseVec(list(sv.indices), list(sv.values))


def bm25_query(text: str) -> SparseVec:
    sv = BM25.embed_query(text)
    return SparseVec(list(sv.indices), list(sv.values))


# key, text, payload (besides key)
CORPUS = [
    (
        "s1:turn-0",
        "how to configure the qdrant vector database index",
        dict(
            level="turn",
            session_id="s1",
            project="alpha",
            source="cursor",
            tools=["Read", "Edit"],
            has_tools=True,
            timestamp=1000.0,
            visible=True,
            starred=False,
        ),
    ),
    (
        "s1:msg-0",
        "configure qdrant please",
        dict(
            level="message",
            session_id="s1",
            project="alpha",
            source="cursor",
            role="user",
            tools=[],
            has_tools=False,
            timestamp=1000.0,
            visible=True,
            starred=False,
        ),
    ),
    (
        "s1:msg-1",
        "the answer uses hnsw graphs",
        dict(
            level="message",
            session_id="s1",
            project="alpha",
            source="cursor",
            role="ai",
            tools=["Read"],
            has_tools=True,
            timestamp=1010.0,
            visible=True,
            starred=False,
        ),
    ),
    (
        "s2:turn-0",
        "fix the flaky pytest fixture in ci",
        dict(
            level="turn",
            session_id="s2",
            project="beta",
            source="claude",
            tools=["Bash"],
            has_tools=True,
            timestamp=2000.0,
            visible=True,
            starred=False,
        ),
    ),
    (
        "s2:msg-0",
        "pytest fixture fails",
        dict(
            level="message",
            session_id="s2",
            project="beta",
            source="claude",
            role="user",
            tools=[],
            has_tools=False,
            timestamp=2000.0,
            visible=True,
            starred=False,
        ),
    ),
    (
        "s3:turn-0",
        "我们讨论了向量数据库的索引配置",
        dict(
            level="turn",
            session_id="s3",
            project="gamma",
            source="chatgpt",
            tools=[],
            has_tools=False,
            timestamp=3000.0,
            visible=True,
            starred=True,
        ),
    ),
    (
        "s3:msg-0",
        "今天天气很好",
        dict(
            level="message",
            session_id="s3",
            project="gamma",
            source="chatgpt",
            role="user",
            tools=[],
            has_tools=False,
            timestamp=3000.0,
            visible=False,
            starred=False,
        ),
    ),
]
ALL_KEYS = {key for key, _, _ in CORPUS}


GEN_OLD, GEN_NEW = 1_700_000_000_000_000_001, 1_700_000_000_000_000_002  # time_ns-sized


def corpus_points() -> list[Point]:
    return [
        Point(
            key,
            hashed_bow_embed(text),
            bm25_doc(text),
            {
                **payload,
                "text": text,
                "generation": GEN_OLD if key.startswith("s1") else GEN_NEW,
                "tool_keys": [t.lower() for t in payload["tools"]],
                "turn_index": int(key.rsplit("-", 1)[1]),
            },
        )
        for key, text, payload in CORPUS
    ]


def keys(scored) -> list[str]:
    return [s.payload["key"] for s in scored]


def in_memory_client():
    """qdrant-client's local mode. Imported here, not by every worker's collection: 2.4 s."""
    from qdrant_client import QdrantClient

    return QdrantClient(location=":memory:")


@pytest.fixture(params=["edge", "server"])
def store(request, tmp_path) -> Store:
    if request.param == "edge":
        s: Store = EdgeStore(tmp_path / "index")
    else:
        s = ServerStore(in_memory_client())
    s.ensure(DIM)
    yield s
    s.close()


@pytest.fixture
def filled(store) -> Store:
    store.upsert(corpus_points())
    return store


def test_upsert_is_idempotent_and_replaces_payload(store):
    store.upsert(corpus_points())
    store.upsert(corpus_points())
    assert store.count() == 7
    store.upsert([Point("s1:msg-0", hashed_bow_embed("x"), None, {"session_id": "s1", "title": "new"})])
    assert store.count() == 7
    [got] = store.retrieve(["s1:msg-0"])
    assert got.id == point_id("s1:msg-0")
    assert got.payload == {"session_id": "s1", "title": "new", "key": "s1:msg-0"}


def test_payload_round_trips_nested_values_exactly(store):
    payload = {
        "session_id": "s9",
        "turn_index": 3,
        "timestamp": 1700000000.5,
        "has_tools": True,
        "visible": False,
        "title": None,
        "messages": [{"role": "user", "text": "héllo 世界", "tool_calls": [{"name": "Read", "args": {"path": "/a"}}]}],
    }
    store.upsert([Point("s9:session", hashed_bow_embed("x"), None, payload)])
    [got] = store.retrieve(["s9:session"])
    assert got.payload == {**payload, "key": "s9:session"}
    assert type(got.payload["turn_index"]) is int and type(got.payload["has_tools"]) is bool


def test_retrieve_keeps_order_and_skips_missing(filled):
    got = filled.retrieve(["s2:msg-0", "nope:turn-9", "s1:turn-0"])
    assert keys(got) == ["s2:msg-0", "s1:turn-0"]
    assert got[1].payload["tools"] == ["Read", "Edit"]
    assert got[1].payload["has_tools"] is True
    assert got[0].payload["has_tools"] is False
    assert filled.retrieve([]) == []


def test_fusion_ranks_a_point_found_by_both_vectors_first(store):
    e = [[1.0 if i == j else 0.0 for i in range(DIM)] for j in range(3)]
    near = [0.9 * a + 0.436 * b for a, b in zip(e[0], e[1], strict=False)]
    store.upsert(
        [
            Point("dense-only", e[0], SparseVec([100], [1.0]), {}),
            Point("both", near, SparseVec([7], [2.0]), {}),
            Point("sparse-only", e[2], SparseVec([7], [1.0]), {}),
        ]
    )
    [got] = store.query([Query(dense=e[0], sparse=SparseVec([7], [1.0]), limit=3, prefetch_limit=2)])
    assert keys(got) == ["both", "dense-only", "sparse-only"]
    # RRF with k=60 over 0-based ranks: dense (a=0, both=1), sparse (both=0, c=1).
    assert [s.score for s in got] == pytest.approx([1 / 61 + 1 / 60, 1 / 60, 1 / 61], rel=1e-5)


def test_hybrid_text_query_finds_the_matching_turn(filled):
    text = "qdrant vector database index"
    [got] = filled.query([Query(dense=hashed_bow_embed(text), sparse=bm25_query(text), limit=3, with_dense=True)])
    assert keys(got)[0] == "s1:turn-0"
    assert got[0].dense == pytest.approx(hashed_bow_embed(CORPUS[0][1]), abs=1e-6)


def test_dense_only_query_returns_cosine_and_stored_vector(filled):
    vec = hashed_bow_embed("pytest fixture fails")
    [got] = filled.query([Query(dense=vec, limit=2, with_dense=True)])
    assert keys(got)[0] == "s2:msg-0"
    assert got[0].score == pytest.approx(1.0, abs=1e-5)
    assert got[0].dense == pytest.approx(vec, abs=1e-6)
    [plain] = filled.query([Query(dense=vec, limit=1)])
    assert plain[0].dense is None


def test_a_query_asking_for_some_fields_marks_its_hits_partial_and_payloads_reads_the_rest(filled):
    vec = hashed_bow_embed("pytest fixture fails")
    [whole] = filled.query([Query(dense=vec, limit=3, with_dense=True)])
    [light, worded] = filled.query(
        [
            Query(dense=vec, limit=3, with_dense=True, fields=("key", "session_id", "lang")),
            Query(sparse=bm25_query("pytest"), limit=10, fields=("key",)),
        ]
    )
    assert [p.id for p in light] == [p.id for p in whole]  # the same hits, ranked the same
    assert all(p.dense == pytest.approx(q.dense, abs=1e-6) for p, q in zip(light, whole, strict=True))
    assert all(p.partial and "text" not in p.payload for p in light)
    assert all(not p.partial and "text" in p.payload for p in whole)
    assert {p.payload["key"] for p in light} == {p.payload["key"] for p in whole}
    assert [p.payload["session_id"] for p in light] == [p.payload["session_id"] for p in whole]
    assert all(p.partial and p.payload.get("key") for p in worded)
    # The rest of each payload, by id; an id not there is left out.
    read = filled.payloads([p.id for p in light] + [point_id("nope:turn-9")])
    assert set(read) == {p.id for p in light}
    assert all(read[p.id] == q.payload for p, q in zip(light, whole, strict=True))
    assert filled.payloads([]) == {}


def test_sparse_only_query_finds_exact_words(filled):
    [got] = filled.query([Query(sparse=bm25_query("pytest"), limit=10)])
    assert set(keys(got)) == {"s2:turn-0", "s2:msg-0"}
    assert all(s.score > 0 for s in got)


def test_a_query_with_terms_returns_the_token_ids_each_point_was_indexed_with(filled):
    texts = {key: text for key, text, _ in CORPUS}
    [got] = filled.query([Query(sparse=bm25_query("pytest fixture"), limit=10, with_terms=True, with_dense=True)])
    assert got
    for point in got:
        assert point.terms == frozenset(bm25_doc(texts[point.payload["key"]]).indices)
        assert point.dense is not None
    [plain] = filled.query([Query(sparse=bm25_query("pytest fixture"), limit=10)])
    assert all(point.terms is None for point in plain)


def test_chinese_word_matches_through_multilingual_bm25(filled):
    [got] = filled.query([Query(sparse=bm25_query("数据库"), limit=10)])
    assert keys(got) == ["s3:turn-0"]
    [weather] = filled.query([Query(sparse=bm25_query("天气"), limit=10)])
    assert keys(weather) == ["s3:msg-0"]


def test_batch_keeps_slots_and_empty_queries_return_nothing(filled):
    got = filled.query(
        [
            Query(sparse=bm25_query("pytest"), filter=Filter((Cond("level", "turn"),))),
            Query(),
            Query(sparse=SparseVec([], [])),
            Query(sparse=bm25_query("hnsw")),
        ]
    )
    assert [keys(g) for g in got] == [["s2:turn-0"], [], [], ["s1:msg-1"]]


FILTERS = [
    ("value str", Filter((Cond("project", "alpha"),)), {"s1:turn-0", "s1:msg-0", "s1:msg-1"}),
    ("value bool true", Filter((Cond("has_tools", True),)), {"s1:turn-0", "s1:msg-1", "s2:turn-0"}),
    ("value bool false", Filter((Cond("has_tools", False), Cond("level", "message"))), {"s1:msg-0", "s2:msg-0", "s3:msg-0"}),
    ("list member", Filter((Cond("tool_keys", "read"),)), {"s1:turn-0", "s1:msg-1"}),
    ("any", Filter((Cond("source", any=("claude", "chatgpt")),)), {"s2:turn-0", "s2:msg-0", "s3:turn-0", "s3:msg-0"}),
    ("any list", Filter((Cond("tool_keys", any=("bash", "edit")),)), {"s1:turn-0", "s2:turn-0"}),
    ("range gte", Filter((Cond("timestamp", gte=2000.0),)), {"s2:turn-0", "s2:msg-0", "s3:turn-0", "s3:msg-0"}),
    ("range lte", Filter((Cond("timestamp", lte=1000.0),)), {"s1:turn-0", "s1:msg-0"}),
    ("range both", Filter((Cond("timestamp", gte=1005.0, lte=2000.0),)), {"s1:msg-1", "s2:turn-0", "s2:msg-0"}),
    ("role", Filter((Cond("role", "ai"),)), {"s1:msg-1"}),
    ("key", Filter((Cond("key", "s3:turn-0"),)), {"s3:turn-0"}),
    ("not indexed", Filter((Cond("turn_index", 1),)), {"s1:msg-1"}),
    ("must_not", Filter(must_not=(Cond("visible", False), Cond("session_id", "s1"))), {"s2:turn-0", "s2:msg-0", "s3:turn-0"}),
    ("and_", Filter((Cond("level", "turn"),)).and_(Cond("timestamp", gte=1500.0)), {"s2:turn-0", "s3:turn-0"}),
    ("integer", Filter((Cond("generation", GEN_OLD),)), {"s1:turn-0", "s1:msg-0", "s1:msg-1"}),
    ("integer must_not", Filter((Cond("session_id", "s1"),), must_not=(Cond("generation", GEN_OLD),)), set()),
    ("empty", Filter(), ALL_KEYS),
]


@pytest.mark.parametrize("flt,expected", [(f, e) for _, f, e in FILTERS], ids=[n for n, _, _ in FILTERS])
def test_every_filter_kind(filled, flt, expected):
    assert filled.count(flt) == len(expected)
    assert {s.payload["key"] for s in filled.scroll(flt)} == expected
    [got] = filled.query([Query(dense=hashed_bow_embed("qdrant pytest"), filter=flt, limit=20)])
    assert set(keys(got)) == expected


def test_a_condition_without_value_is_rejected(filled):
    with pytest.raises(ValueError):
        filled.count(Filter((Cond("project"),)))


def test_delete_by_filter(filled):
    filled.delete(Filter((Cond("session_id", "s1"),)))
    assert filled.count() == 4
    assert filled.count(Filter((Cond("session_id", "s1"),))) == 0
    filled.delete(Filter())
    assert filled.count() == 0


def test_set_payload_by_filter_merges(filled):
    filled.set_payload({"starred": True, "note": "keep"}, Filter((Cond("session_id", "s2"),)))
    starred = {s.payload["key"] for s in filled.scroll(fields=["key", "starred"]) if s.payload["starred"]}
    assert starred == {"s2:turn-0", "s2:msg-0", "s3:turn-0"}  # s3:turn-0 was starred when written
    [got] = filled.retrieve(["s2:turn-0"])
    assert got.payload["note"] == "keep"
    assert got.payload["starred"] is True
    assert got.payload["tools"] == ["Bash"] and got.payload["project"] == "beta"
    [other] = filled.retrieve(["s1:turn-0"])
    assert "note" not in other.payload and other.payload["starred"] is False


def test_scroll_pages_and_selects_fields(filled):
    got = list(filled.scroll(fields=["key", "session_id"], batch=2))
    assert {s.payload["key"] for s in got} == ALL_KEYS
    assert len(got) == 7
    assert all(set(s.payload) == {"key", "session_id"} and s.score == 0.0 for s in got)
    full = list(filled.scroll(Filter((Cond("key", "s1:msg-1"),))))
    assert full[0].payload["text"] == "the answer uses hnsw graphs"


def test_newest_reads_the_latest_points_through_the_timestamp_index(filled):
    """What a query of filters only lists: the newest matches first, `limit` of them."""
    got = filled.newest(Filter((Cond("visible", value=True),)), limit=3, fields=["key", "timestamp"])
    stamps = [p.payload["timestamp"] for p in got]
    assert len(got) == 3 and stamps == sorted(stamps, reverse=True)
    visible = [p for p in filled.scroll(Filter((Cond("visible", value=True),)), fields=["timestamp"])]
    assert stamps[0] == max(p.payload["timestamp"] for p in visible)
    assert all(set(p.payload) == {"key", "timestamp"} for p in got)
    assert filled.newest(Filter((Cond("project", value="nowhere"),)), limit=5) == []


def test_newest_lists_points_without_a_time_last(store):
    store.upsert(
        [
            Point("a", None, bm25_doc("one"), {"level": "turn", "timestamp": 5.0}),
            Point("b", None, bm25_doc("two"), {"level": "turn"}),
            Point("c", None, bm25_doc("three"), {"level": "turn", "timestamp": 9.0}),
        ]
    )
    assert keys(store.newest(Filter((Cond("level", value="turn"),)), limit=10, fields=["key"])) == ["c", "a", "b"]


def test_meta_round_trip_replaces(store):
    assert store.read_meta() == {}
    store.write_meta({"model": "m1", "dim": 64, "schema": 1, "note": "中文"})
    assert store.read_meta() == {"model": "m1", "dim": 64, "schema": 1, "note": "中文"}
    store.write_meta({"model": "m2"})
    assert store.read_meta() == {"model": "m2"}


def test_ensure_twice_is_fine_and_other_dimension_is_refused(filled):
    filled.ensure(DIM)
    assert filled.count() == 7
    with pytest.raises(IndexUnavailable, match=r"32-dimension|64-dimension"):
        filled.ensure(32)


def test_drop_starts_afresh(filled):
    filled.write_meta({"model": "m1"})
    filled.drop()
    assert filled.count() == 0
    assert filled.read_meta() == {}
    filled.ensure(32)
    filled.upsert([Point("a:turn-0", [1.0] + [0.0] * 31, None, {})])
    assert filled.count() == 1


def test_optimize_keeps_results(filled):
    before = filled.query([Query(sparse=bm25_query("pytest"), limit=10)])
    filled.optimize()
    assert [keys(g) for g in filled.query([Query(sparse=bm25_query("pytest"), limit=10)])] == [keys(g) for g in before]


# -- Edge only ----------------------------------------------------------------


def test_edge_reopen_keeps_points_meta_and_indexes(tmp_path):
    path = tmp_path / "index"
    with EdgeStore(path) as s:
        s.ensure(DIM)
        s.upsert(corpus_points())
        s.write_meta({"model": "m1"})
    with EdgeStore(path, read_only=True) as s:
        assert s.count() == 7
        assert s.read_meta() == {"model": "m1"}
        assert s.count(Filter((Cond("has_tools", True),))) == 3
        [got] = s.query([Query(sparse=bm25_query("数据库"))])
        assert keys(got) == ["s3:turn-0"]
        with pytest.raises(IndexUnavailable, match="read-only"):
            s.upsert(corpus_points())


def test_edge_read_only_needs_an_existing_index(tmp_path):
    with pytest.raises(IndexUnavailable, match=r"no index at .*convo-tui index"):
        EdgeStore(tmp_path / "missing", read_only=True)
    assert not (tmp_path / "missing").exists()


def test_edge_reads_before_ensure_are_empty(tmp_path):
    with EdgeStore(tmp_path / "index") as s:
        assert s.count() == 0
        assert list(s.scroll()) == []
        assert s.query([Query(dense=hashed_bow_embed("x"))]) == [[]]
        with pytest.raises(IndexUnavailable, match="not set up"):
            s.upsert(corpus_points())


def test_edge_folder_that_cannot_be_made_is_one_line(tmp_path):
    (tmp_path / "plain-file").write_text("x")
    with pytest.raises(IndexUnavailable, match=r"^index folder .*plain-file/index: "):
        EdgeStore(tmp_path / "plain-file" / "index")


def test_edge_recovers_from_a_create_cut_short(tmp_path):
    (tmp_path / "index" / "shard" / "segments").mkdir(parents=True)
    with EdgeStore(tmp_path / "index") as s:
        assert s.count() == 0
        s.ensure(DIM)
        s.upsert(corpus_points())
        assert s.count() == 7


def test_edge_folder_and_meta_are_private(tmp_path):
    path = tmp_path / "index"
    with EdgeStore(path) as s:
        s.ensure(DIM)
        s.write_meta({"model": "m1"})
    assert path.stat().st_mode & 0o777 == 0o700
    assert (path / "meta.json").stat().st_mode & 0o777 == 0o600
    assert (path / "lock").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in path.iterdir()) == ["dense", "lock", "meta.json", "shard"]


# -- factory and server connection ---------------------------------------------


def test_open_store_picks_edge_at_index_dir(tmp_path):
    settings = Settings(index_dir=tmp_path / "idx")
    with open_store(settings) as s:
        assert isinstance(s, EdgeStore)
        assert s.path == tmp_path / "idx"


def test_open_store_refuses_plain_http_to_another_machine(tmp_path):
    settings = Settings(index_dir=tmp_path / "idx", qdrant_url="http://qdrant.example.com:6333", qdrant_api_key="k")
    with pytest.raises(ConfigError, match=r"plain http .* API key in clear; use https://"):
        open_store(settings)


@pytest.mark.parametrize(
    "url", ["https://qdrant.example.com", "http://localhost:6333", "http://127.0.0.1:6333", "http://[::1]:6333"]
)
def test_connect_server_accepts_tls_and_loopback(url):
    client = connect_server(url, "secret")
    assert client.init_options["url"] == url
    client.close()


def test_connect_server_opt_in_and_bad_urls():
    connect_server("http://10.0.0.5:6333", "secret", allow_insecure=True).close()
    with pytest.raises(ConfigError, match="plain http"):
        connect_server("http://10.0.0.5:6333", None)
    with pytest.raises(ConfigError, match="expected http"):
        connect_server("ftp://x", None)


def test_server_unreachable_is_one_line():
    from qdrant_client import QdrantClient

    client = QdrantClient(url="http://127.0.0.1:9", timeout=1, check_compatibility=False)
    with pytest.raises(IndexUnavailable, match=r"^Qdrant at http://127.0.0.1:9 .*cannot be reached"):
        ServerStore(client)


def test_server_read_only_needs_a_collection():
    with pytest.raises(IndexUnavailable, match="no index in local Qdrant"):
        ServerStore(in_memory_client(), read_only=True)


def test_edge_new_index_keeps_vectors_int8_copies_payload_and_its_indexes_on_disk(tmp_path):
    """Opening a 144k-point index read the in-RAM parts whole: 55 MB of int8 copies, ~140 MB of payload indexes."""
    import qdrant_edge as qe

    with EdgeStore(tmp_path / "index") as s:
        s.ensure(DIM)
        schemas = [s._need().info().payload_schema, s._need_dense().info().payload_schema]
    main = json.loads((tmp_path / "index" / "shard" / "edge_config.json").read_text(encoding="utf-8"))
    dense = json.loads((tmp_path / "index" / "dense" / "edge_config.json").read_text(encoding="utf-8"))
    assert main["payload_memory"] == dense["payload_memory"] == "cold"
    assert main["sparse_vectors"]["bm25"]["memory"] == "cold"
    assert not main.get("vectors"), "no dense storage beside every point of the main shard"
    assert dense["vectors"]["dense"]["memory"] == "cold"
    assert dense["vectors"]["dense"]["quantization_config"] == {"scalar": {"type": "int8", "quantile": 0.99, "memory": "cold"}}
    for schema in schemas:
        assert set(schema) == set(FOLDED_INDEXES)
        assert all(info.params is not None and info.params.memory == qe.Memory.Cold for info in schema.values())


def test_edge_dense_points_carry_only_the_filter_fields(tmp_path):
    """The dense shard copies what filters read; the text stays in the main shard alone."""
    e0 = [1.0 if i == 0 else 0.0 for i in range(DIM)]
    with EdgeStore(tmp_path / "index") as store:
        store.ensure(DIM)
        store.upsert([Point("p", e0, SparseVec([7], [1.0]), {"session_id": "s", "text": "long " * 50, "project": "alpha"})])
        [record] = store._need_dense().retrieve([point_id("p")], with_payload=True, with_vector=False)
        facets = sorted([facet("key", "p"), facet("project", "alpha"), facet("session_id", "s")])
        assert {**record.payload, "facets": sorted(record.payload["facets"])} == {
            "session_id": "s",
            "project": "alpha",
            "key": "p",
            "facets": facets,
        }
        [got] = store.query([Query(dense=e0, limit=5)])
        assert got[0].payload["text"].startswith("long")
        assert "facets" not in got[0].payload, "the store's own field stays in the store"


def test_an_upsert_without_a_vector_drops_the_one_the_point_had(store):
    e0 = [1.0 if i == 0 else 0.0 for i in range(DIM)]
    store.upsert([Point("p", e0, SparseVec([7], [1.0]), {"session_id": "s"})])
    store.upsert([Point("p", None, SparseVec([7], [1.0]), {"session_id": "s"})])
    assert store.query([Query(dense=e0, limit=5)]) == [[]]
    assert keys(store.query([Query(sparse=SparseVec([7], [1.0]), limit=5)])[0]) == ["p"]


def test_edge_refuses_an_index_of_the_older_one_shard_layout_with_the_rebuild_line(tmp_path):
    import qdrant_edge as qe

    shard = qe.EdgeShard.create(
        str(tmp_path / "index" / "shard"),
        qe.EdgeConfig(
            vectors={"dense": qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)},
            sparse_vectors={"bm25": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        ),
    )
    shard.close()
    with pytest.raises(IndexUnavailable, match=r"written by an older convo-tui .*index --rebuild"):
        EdgeStore(tmp_path / "index")
    with EdgeStore(tmp_path / "index", repair=True) as s:  # what `index --rebuild` does
        assert s.damaged is not None
        s.drop()
        s.ensure(DIM)
        s.upsert(corpus_points())
    with EdgeStore(tmp_path / "index", read_only=True) as s:
        [got] = s.query([Query(dense=hashed_bow_embed("pytest fixture"), sparse=bm25_query("pytest fixture"), limit=2)])
        assert keys(got) == ["s2:msg-0", "s2:turn-0"]


def test_update_vectors_adds_dense_and_keeps_sparse_and_payload(store):
    """Phase 2 of indexing: points published with BM25 only get their dense vector."""
    e0 = [1.0 if i == 0 else 0.0 for i in range(DIM)]
    store.upsert([Point("late", None, SparseVec([7], [1.0]), {"session_id": "s", "dense_ready": False})])
    assert store.query([Query(dense=e0, limit=5)]) == [[]]
    store.update_vectors([(point_id("late"), e0)])
    [dense] = store.query([Query(dense=e0, limit=5, with_dense=True)])
    assert keys(dense) == ["late"] and dense[0].dense == pytest.approx(e0)
    [sparse] = store.query([Query(sparse=SparseVec([7], [1.0]), limit=5)])
    assert keys(sparse) == ["late"]
    assert sparse[0].payload == {"session_id": "s", "dense_ready": False, "key": "late"}
    store.update_vectors([])


def test_point_ids_come_from_the_keys_bytes():
    """A key made from a Latin-1 file name (surrogate escapes) has an id; others keep uuid5's."""
    import uuid

    from convo_tui.core.store.base import _ID_NAMESPACE

    assert point_id("s1:turn-0") == str(uuid.uuid5(_ID_NAMESPACE, "s1:turn-0"))
    assert point_id("héllo:turn-0") == str(uuid.uuid5(_ID_NAMESPACE, "héllo:turn-0"))
    latin1 = os.fsdecode(b"\xe9t\xe9-notes:turn-0")
    assert point_id(latin1) != point_id("été-notes:turn-0")


def test_what_phase_two_embeds_or_finds_nothing_to_embed_counts_as_embedded(store):
    """Whether a point is embedded is asked with `dense_ready` conditions: counts,
    scrolls and meaning searches answer it alike on both backends (the embedded
    one keeps the answer in its dense shard: core/store/edge_ready.py)."""
    e0 = [1.0 if i == 0 else 0.0 for i in range(DIM)]

    def published(key: str, dense: list[float] | None, flag: bool | None) -> Point:
        payload: dict = {"session_id": "s", "visible": True}
        if flag is not None:
            payload["dense_ready"] = flag
        return Point(key, dense, SparseVec([7], [1.0]), payload)

    store.upsert([published(k, None, False) for k in ("a", "b", "c")] + [published("d", e0, True), published("tool", None, None)])
    ready = Filter(must=(Cond("visible", value=True), Cond("dense_ready", value=True)))
    waiting = Filter(must=(Cond("visible", value=True), Cond("dense_ready", value=False)))
    assert (store.count(ready), store.count(waiting)) == (1, 3)
    store.update_vectors([(point_id("a"), e0)])
    store.set_payload({"dense_ready": True}, Filter(must=(Cond("key", any=("a", "b")),)))  # b: nothing to embed
    assert (store.count(ready), store.count(waiting)) == (3, 1)
    assert sorted(p.payload["key"] for p in store.scroll(ready)) == ["a", "b", "d"]
    assert [p.payload["key"] for p in store.scroll(waiting)] == ["c"]
    [hits] = store.query([Query(dense=e0, filter=ready, limit=10)])
    assert sorted(h.payload["key"] for h in hits) == ["a", "d"]  # b has no vector to be found by
    store.set_payload({"visible": False}, Filter(must=(Cond("key", any=("a", "b")),)))
    assert (store.count(ready), store.count(waiting)) == (1, 1)
    store.upsert([published("d", None, False)])  # published again, its vector not at hand: it waits
    assert (store.count(ready), store.count(waiting)) == (0, 2)
