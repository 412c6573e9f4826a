"""A reader loads the dense shard when a search first needs it (core/store/edge.py,
`lazy_dense`): a cold keyword search or listing never pays for that load, and
what it answers, or writes for the others, is what an eager open gives."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.resident import index_mappings

from tests.conftest import build_demo, built_once, open_copy

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")

QUERY = "qdrant hybrid search"


def _mapped(folder: Path) -> bool:
    """Whether this process maps any file under `folder` (Edge maps what it loads)."""
    return bool(index_mappings(folder))


def _ranked(hits) -> list[tuple[str, int, float]]:  # type: ignore[no-untyped-def]
    return [(h.session_id, h.turn_index, round(h.score, 6)) for h in hits]


@pytest.fixture
def settings(tmp_path_factory) -> Settings:
    built = built_once(tmp_path_factory, "demo-index", build_demo)
    copy = open_copy(tmp_path_factory, built, Settings(model=DEFAULT_MODEL))
    copy.close()
    return copy.settings


def test_keyword_search_and_listing_leave_the_dense_shard_unloaded(settings):
    dense = Path(settings.index_dir) / "dense"
    with Library.open(settings, read_only=True) as library:
        assert library.search(QUERY, mode="keyword", limit=3)
        assert library.sessions()
        assert not _mapped(dense), "a keyword search loaded the dense shard"
        library.load_model()
        lazy = _ranked(library.search(QUERY, limit=5))
        assert _mapped(dense), "a hybrid search needs the dense shard"
    with Library.open(settings) as library:  # a writer loads both shards at open
        assert _mapped(dense)
        library.load_model()
        assert _ranked(library.search(QUERY, limit=5)) == lazy


def test_two_first_searches_at_once_load_it_once(settings):
    """The holder answers several clients at once: a second load of the same shard
    would fail on Edge's own lock of its write-ahead log."""
    with Library.open(settings, read_only=True) as library:
        library.load_model()
        start = threading.Barrier(2)
        results: list[object] = [None, None]

        def search(slot: int) -> None:
            start.wait()
            try:
                results[slot] = _ranked(library.search(QUERY, limit=5))
            except Exception as exc:  # reported by the assertion below
                results[slot] = exc

        threads = [threading.Thread(target=search, args=(slot,)) for slot in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results[0] == results[1] and isinstance(results[0], list) and results[0]


def test_an_edit_served_by_a_reader_reaches_the_dense_copies(settings):
    """A reader opens a built index writable to serve the others' edits (core/holder/access.py);
    deleting a session changes `visible`, which the dense shard's points copy for its filters."""
    with Library.open(settings, reading=True) as library:
        library.load_model()
        hits = library.search(QUERY, mode="semantic", limit=5)
        assert hits
        gone = hits[0].session_id
        library.delete_session(gone)
        assert gone not in {h.session_id for h in library.search(QUERY, mode="semantic", limit=20)}
    with Library.open(settings) as library:
        library.load_model()
        assert gone not in {h.session_id for h in library.search(QUERY, mode="semantic", limit=20)}
