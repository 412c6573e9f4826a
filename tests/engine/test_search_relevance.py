"""Relevance on the small English + Chinese corpus in fixtures/relevance (one index per module)."""

import pytest

from tests.paths import FIXTURES

RELEVANCE = FIXTURES / "relevance"


@pytest.fixture
def lib(relevance_index):
    """The run's shared relevance index (tests/conftest.py; dated by RELEVANCE_MTIMES)."""
    return relevance_index


def top(lib, query, mode="hybrid", limit=3):
    return [(h.session_id, h.kind, h.turn_index) for h in lib.search(query, limit=limit, mode=mode)]


def test_exact_identifier_found_by_bm25(lib):
    assert top(lib, "QDRANT_SNAPSHOT_TTL", "keyword") == [("qdrant-setup", "turn", 1), ("qdrant-setup", "turn", 0)]
    assert top(lib, "QDRANT_SNAPSHOT_TTL")[0] == ("qdrant-setup", "turn", 1)


def test_paraphrase_found_only_by_dense(lib):
    query = "make my unit checks finish quicker"
    assert lib.search(query, mode="keyword") == []
    assert top(lib, query, "semantic")[0] in {("slow-tests", "turn", 0), ("slow-tests", "message", 0)}
    hit = lib.search(query)[0]
    assert hit.session_id == "slow-tests" and hit.turn_index == 0
    assert 0.2 < hit.similarity < 1.0


@pytest.mark.parametrize("query, turn", [("RAG 分块", 0), ("数据库回滚", 1)])
def test_chinese_queries_rank_the_right_turn_first(lib, query, turn):
    assert top(lib, query)[0] == ("rag-chunking", "turn", turn)
    assert top(lib, query, "keyword")[0] == ("rag-chunking", "turn", turn)


def test_turn_bonus_and_message_folding(lib):
    hits = lib.search("rotate the redis password", limit=10)
    hit = hits[0]
    assert (hit.kind, hit.session_id) == ("turn", "redis-password")
    # Both identical turns collapsed into one card; their matched messages folded in.
    assert [h.session_id for h in hits].count("redis-password") == 1
    assert {"msg-0", "msg-2"} <= set(hit.matched_message_ids)
    # First in both the dense and the BM25 ranking: full relevance, well above the next card.
    assert 0.0 < hit.score <= 1.0
    assert all(hit.score > other.score for other in hits[1:])


def test_filters(lib):
    # Unfiltered, "session" reaches two projects; the filter keeps exactly the vectordb one.
    assert {h.project for h in lib.search("session", limit=10)} == {"vectordb", "webapp"}
    scoped = lib.search("session project:vectordb", limit=10)
    assert {(h.project, h.session_id) for h in scoped} == {("vectordb", "qdrant-setup")}
    assert {h.session_id for h in lib.search("token project:vectordb", limit=10)} == {"auth-middleware"}
    assert top(lib, "has:tools", limit=10) == [("auth-middleware", "turn", 0), ("qdrant-setup", "turn", 1)] or top(
        lib, "has:tools", limit=10
    ) == [("qdrant-setup", "turn", 1), ("auth-middleware", "turn", 0)]
    assert {h.session_id for h in lib.search("key tool:read", limit=10)} == {"auth-middleware"}
    roles = lib.search("redis role:user", limit=10)
    assert roles and all(h.kind == "message" and h.ai_text == "" for h in roles)
    assert {h.session_id for h in lib.search("数据库 after:2026-01-01 before:2026-01-10", limit=10)} == {"rag-chunking"}
    assert {h.session_id for h in lib.search("collection after:2026-01-10 before:2026-02-01", limit=10)} == {"qdrant-setup"}
    assert [h.session_id for h in lib.search('"kid mismatch"', limit=10)] == ["auth-middleware"]
    assert lib.search('"kid mismatch" project:webapp') == []


@pytest.mark.parametrize("role", ["user", "assistant"])
def test_role_filter_by_meaning_finds_messages_their_turn_vector_reads(lib, role):
    """A short turn's messages have no vector of their own (EMBED_SELECTION):
    a `role:` search by meaning reaches them through their turn's."""
    hits = lib.search(f"change the redis password role:{role}", limit=5, mode="semantic")
    assert hits and all(h.kind == "message" for h in hits)
    assert hits[0].session_id == "redis-password"
    assert 0.0 < hits[0].similarity < 1.0


def test_fuzzy_tolerates_typos(lib):
    assert top(lib, "qdrnat colection", "fuzzy")[0][0] == "qdrant-setup"
    assert lib.search("qdrant collection", mode="keyword")[0].session_id == "qdrant-setup"
    assert lib.search("qdrnat colection", mode="keyword") == []


def test_hits_in_session_in_reading_order(lib):
    hits = lib.hits_in_session("password", "redis-password")
    assert [h.turn_index for h in hits] == sorted(h.turn_index for h in hits)
    assert all(h.session_id == "redis-password" for h in hits) and hits


def test_sessions_projects_and_session_record(lib):
    assert lib.projects() == [("webapp", 3), ("vectordb", 2), ("ragdocs", 1)]
    ids = [s.id for s in lib.sessions()]
    assert ids[-2:] == ["qdrant-setup", "rag-chunking"]  # oldest mtimes last
    assert [s.id for s in lib.sessions("ragdocs")] == ["rag-chunking"]
    session = lib.session("qdrant-setup")
    assert [t.name for m in session.messages for t in m.tools] == ["Shell"]
    assert session.messages[3].tools[0].args == {"command": "export QDRANT_SNAPSHOT_TTL=86400"}


def test_fuzzy_matches_chinese_by_characters(lib):
    # Chinese has no spaces: matched by the best-aligned run of characters, one wrong character tolerated.
    assert top(lib, "数据库回滚", "fuzzy")[0] == ("rag-chunking", "turn", 1)
    assert top(lib, "数据裤迁移", "fuzzy")[0] == ("rag-chunking", "turn", 1)
    assert top(lib, "文档分块", "fuzzy")[0] == ("rag-chunking", "turn", 0)
    assert lib.search("向量索引压缩", mode="fuzzy") == []
