"""Highlight spans: whole words and prefixes, no stopwords, CJK runs."""

from __future__ import annotations

from convo_tui.core.search.highlight import match_spans, query_terms


def marked(text: str, query: str, phrases=()) -> list[str]:
    return [text[a:b] for a, b in match_spans(text, query_terms(query, list(phrases)))]


def test_stopwords_are_not_terms():
    assert query_terms("why is the order total off by a cent") == ["order", "total", "off", "cent"]


def test_words_match_at_word_starts_only():
    text = "The registry is another order; orders and reorder totals"
    assert marked(text, "is order total") == ["order", "orders", "totals"]


def test_case_insensitive():
    assert marked("Qdrant and QDRANT_SNAPSHOT_TTL", "qdrant") == ["Qdrant", "QDRANT"]


def test_phrase_verbatim():
    assert marked("use keyset pagination here", "", phrases=["keyset pagination"]) == ["keyset pagination"]


def test_chinese_runs_match_longest_pieces():
    text = "我们讨论了数据库回滚和数据迁移"
    assert marked(text, "数据库回滚") == ["数据库回滚", "数据"]


def test_mixed_query():
    text = "RAG 分块 needs chunk overlap; 分块大小"
    assert marked(text, "RAG 分块 chunk") == ["RAG", "分块", "chunk", "分块"]


def test_overlapping_spans_merge():
    assert match_spans("abcdef", ["abcd", "cdef"]) == [(0, 6)]
