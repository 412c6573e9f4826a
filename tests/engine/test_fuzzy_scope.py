"""Fuzzy mode with a kept scope (core/search/fuzzy_scope.py) answers as the
scan that reads every turn did, reads the scope once while the index is
unchanged, and again after a write."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from convo_tui.core.search import fuzzy
from convo_tui.core.search.fuzzy_scope import SCOPES, Scopes
from convo_tui.core.settings import Settings

from tests.conftest import open_copy

QUERIES = [
    "qdrnat colection",
    "flaky login tst",
    "deploy kubernetes",
    "retry",
    "chunking sze",
    "the",
    "zzzz qqqq",
    "login role:user",
    "test role:assistant",
    "数据库回滚",  # Chinese: matched on runs of characters, no scope
    '"flaky login" test',  # a phrase: checked in the text, no scope
]


def _answers(library, queries=QUERIES, limit=10):
    return {q: [asdict(h) for h in library.search(q, mode="fuzzy", limit=limit)] for q in queries}


@pytest.fixture(params=["demo_index", "relevance_index"])
def library(request):
    index = request.getfixturevalue(request.param)
    return index[1] if isinstance(index, tuple) else index


def test_fuzzy_answers_with_a_kept_scope_as_the_scan_did(library, monkeypatch):
    kept = _answers(library) | {f"{q} (3)": a for q, a in _answers(library, QUERIES[:4], limit=3).items()}
    monkeypatch.setattr(SCOPES, "get", lambda store, flt: None)
    scanned = _answers(library) | {f"{q} (3)": a for q, a in _answers(library, QUERIES[:4], limit=3).items()}
    assert kept == scanned
    assert sum(1 for hits in kept.values() if hits) >= 5


def test_the_scope_is_read_once_and_again_after_a_write(demo_built, tmp_path_factory, monkeypatch):
    library = open_copy(tmp_path_factory, demo_built, Settings(discover_defaults=False))
    scopes = Scopes()
    monkeypatch.setattr(fuzzy, "SCOPES", scopes)
    reads = []
    scroll = library.store.scroll

    def counted(flt=None, **kw):
        reads.append(kw.get("fields"))
        return scroll(flt, **kw)

    monkeypatch.setattr(library.store, "scroll", counted)
    try:
        first = library.search("flaky login tst", mode="fuzzy")
        for query in ("flaky logn", "flaky login tst", "qdrnat"):
            library.search(query, mode="fuzzy")
        scope_reads = [f for f in reads if f is not None and "user_text" in f and "key" not in f]
        assert len(scope_reads) == 1, reads
        victim = first[0].session_id
        library.delete_session(victim)  # a write: the scope is read again, without it
        again = library.search("flaky login tst", mode="fuzzy")
        scope_reads = [f for f in reads if f is not None and "user_text" in f and "key" not in f]
        assert len(scope_reads) == 2
        assert victim not in {h.session_id for h in again}
    finally:
        library.close()
