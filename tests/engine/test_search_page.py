"""Meaning hits come with a few fields (core/search/page.py): the page must be
the one reading every hit's whole payload gives, card for card, and fewer
payloads must be read for it."""

from __future__ import annotations

import pytest
from convo_tui.core.search import pipeline

QUERIES = [
    "rotate the redis password",
    "qdrant collection",
    "make my unit checks finish quicker",
    "数据库连接池怎么配置",
    "向量索引",
    "checkout page loads slowly because images are not cached",
    "haiku about flaky tests",
    "session",
    "token project:vectordb",
    "redis role:user",
    "deploy after:2026-01-01",
]
PAGES = [(1, 0), (3, 0), (3, 2), (10, 0), (40, 0)]


@pytest.fixture(params=["demo", "relevance"])
def library(request):
    if request.param == "demo":
        return request.getfixturevalue("demo_index")[1]
    return request.getfixturevalue("relevance_index")


def pages(library, mode):
    return {
        (query, limit, offset): library.search(query, mode=mode, limit=limit, offset=offset)
        for query in QUERIES
        for limit, offset in PAGES
    }


@pytest.mark.parametrize("mode", ["hybrid", "semantic"])
def test_the_page_is_the_one_whole_payloads_give(library, mode, monkeypatch):
    light = pages(library, mode)
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "_light", lambda parsed, kind: False)
        whole = pages(library, mode)
    assert any(light.values())
    for key, hits in whole.items():
        assert light[key] == hits, key


def test_fewer_payloads_are_read_than_meaning_hits_found(library, monkeypatch):
    store = library.store
    read: list[int] = []
    found: list[int] = []
    real_payloads, real_query = store.payloads, store.query

    def payloads(ids):
        read.append(len(ids))
        return real_payloads(ids)

    def query(queries):
        answers = real_query(queries)
        found.append(sum(len(a) for q, a in zip(queries, answers, strict=True) if q.fields is not None and q.dense is not None))
        return answers

    monkeypatch.setattr(store, "payloads", payloads)
    monkeypatch.setattr(store, "query", query)
    shown = [library.search(query_text, limit=1) for query_text in QUERIES[:6]]
    assert sum(map(len, shown)) >= 4
    assert read and 0 < sum(read) < sum(found)
