"""Snapshots of the other screens at 80x24 and 120x40: the sessions browser, stats,
the help, the delete dialog, on the full demo index; and the search screen, the
browser and stats on an empty index (what a new user sees before indexing).

Same rules as tests/tui/test_snapshots.py; the stats screen on an index with
token usage and cost is tests/tui/test_share_screens.py's.
"""

from __future__ import annotations

import pytest
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.helpers.app import SNAPSHOT_SIZES, make_app, scene, size_id
from tests.helpers.demo_corpus import utc_clock

FULL = {
    "sessions_by_date": scene("", "f3", "down", "j"),
    "sessions_by_project": scene("", "f3", "down", "s", "s"),
    "sessions_filtered": scene("", "f3", *"redis"),
    "stats": scene("", "f7"),
    "help_on_sessions": scene("", "f3", "down", "f1"),
    "delete_dialog": scene("", "f3", "down", "delete"),
    "palette_on_sessions": scene("", "f3", "down", "ctrl+p", *"star"),
    "reader_from_sessions": scene("", "f3", "down", "enter"),
    "help_on_stats": scene("", "f7", "f1"),
}
EMPTY = {
    "search_placeholder": scene(""),
    "search_nothing_found": scene("qdrant"),
    "sessions": scene("", "f3"),
    "stats": scene("", "f7"),
}


@pytest.fixture(scope="module")
def corpus(demo_copy):
    """This module's own copy of the demo index (tests/conftest.py)."""
    return demo_copy


@pytest.fixture(scope="module")
def empty(tmp_path_factory):
    """An index with nothing in it yet, its model loaded."""
    folder = tmp_path_factory.mktemp("empty-index")
    library = Library.open(Settings(index_dir=folder / "index", discover_defaults=False, model=DEFAULT_MODEL))
    library.load_model()
    yield library.settings, library
    library.close()


@pytest.fixture
def utc():
    with utc_clock():
        yield


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=size_id)
@pytest.mark.parametrize("name", list(FULL))
def test_screens_on_the_full_index(snap_compare, corpus, utc, name, size):
    assert snap_compare(make_app(corpus), terminal_size=size, run_before=FULL[name])


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=size_id)
@pytest.mark.parametrize("name", list(EMPTY))
def test_screens_on_an_empty_index(snap_compare, empty, utc, name, size):
    assert snap_compare(make_app(empty), terminal_size=size, run_before=EMPTY[name])
