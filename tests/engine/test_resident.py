"""Releasing the index's mapped pages (core/store/resident.py): the memory goes,
the answers and the writes stay."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.resident import index_mappings, release_index_pages

from tests.conftest import build_demo, built_once, open_copy
from tests.helpers.resident import resident_kb

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page release is Linux-only")


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    built = built_once(tmp_path_factory, "demo-index", build_demo)
    settings = Settings(sources=[built / "corpus"], discover_defaults=False, model=DEFAULT_MODEL)
    library = open_copy(tmp_path_factory, built, settings)
    yield library
    library.close()


def test_opening_an_index_leaves_none_of_its_pages_resident(tmp_path_factory):
    """The load reads the WAL and the appendable segment's indexes whole; they are released right after."""
    from convo_tui.core.library import Library

    built = built_once(tmp_path_factory, "demo-index", build_demo)
    copy = open_copy(tmp_path_factory, built, Settings(model=DEFAULT_MODEL))
    index = Path(copy.settings.index_dir)
    copy.close()
    with Library.open(copy.settings, read_only=True) as library:
        assert index_mappings(index), "Edge maps its files: there is something to release"
        assert resident_kb(index) == 0
        assert library.search("qdrant hybrid search", limit=3)


def test_searches_and_writes_work_the_same_after_a_release(library):
    index = Path(library.settings.index_dir)
    before = [(h.session_id, h.turn_index, round(h.score, 6)) for h in library.search("qdrant hybrid search", limit=5)]
    assert before and resident_kb(index) > 0
    assert release_index_pages(index) > 0
    assert resident_kb(index) == 0
    after = [(h.session_id, h.turn_index, round(h.score, 6)) for h in library.search("qdrant hybrid search", limit=5)]
    assert after == before
    session = before[0][0]
    assert library.star_session(session).starred
    library.store.release_pages()
    assert library.session_summary(session).starred
    assert [s.id for s in library.sessions() if s.starred] == [session]


def test_an_index_run_releases_what_it_wrote(library):
    """A holder (the app, `serve`) lives on after a run: the pages the run touched are let go.
    (Edge may still touch a few tracker pages after the run returns; the bulk is gone.)"""
    index = Path(library.settings.index_dir)
    during: list[int] = []
    library.index(rebuild=True, progress=lambda p: during.append(resident_kb(index)) if p.phase == "done" else None)
    assert during and during[-1] > 1024
    assert resident_kb(index) < during[-1] / 4


def test_phase_two_starts_without_the_pages_phase_one_left_resident(library):
    """Phase 1's writes and the scroll for the points still waiting for a vector leave
    index pages mapped; they are let go before the model starts (at 100k messages the
    process went into phase 2 holding 381 MB of them)."""
    index = Path(library.settings.index_dir)
    seen: dict[str, list[int]] = {"index": [], "semantic": []}

    def progress(p) -> None:
        if p.phase in seen:
            seen[p.phase].append(resident_kb(index))

    library.index(rebuild=True, progress=progress)
    assert seen["semantic"], "the rebuild ran phase 2"
    assert max(seen["index"]) > 1024
    assert seen["semantic"][0] < max(seen["index"]) / 4


def test_private_mappings_and_other_folders_are_left_alone(tmp_path):
    import mmap

    inside = tmp_path / "index" / "data.bin"
    inside.parent.mkdir()
    inside.write_bytes(b"x" * 65536)
    elsewhere = tmp_path / "other.bin"
    elsewhere.write_bytes(b"y" * 65536)
    with inside.open("r+b") as a, elsewhere.open("r+b") as b:
        private = mmap.mmap(a.fileno(), 0, flags=mmap.MAP_PRIVATE)
        shared_elsewhere = mmap.mmap(b.fileno(), 0, flags=mmap.MAP_SHARED)
        private[:4] = b"kept"  # a private copy: dropping it would lose this
        shared_elsewhere[:4] = b"kept"
        assert index_mappings(tmp_path / "index") == []
        release_index_pages(tmp_path / "index")
        assert private[:4] == b"kept" and shared_elsewhere[:4] == b"kept"
        private.close()
        shared_elsewhere.close()
