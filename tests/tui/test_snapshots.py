"""Snapshots of the search screen and what opens from it, at 80x24 and 120x40, on
the full demo index (pytest-textual-snapshot; update with --snapshot-update).

Stable across runs: fixed sizes, no animations (conftest), UTC clock, fixed
mtimes on the corpus copy, absolute dates, every worker finished and no cursor
blinking before the picture (tests/helpers/app.py `scene`), and keyword mode:
hybrid scores move with the CPU's float and int8 kernels (an AVX2 machine and a
VNNI one gave 0.01-0.04 apart on e5's scale, and a card in or out), while BM25's
are the same everywhere. Hybrid's ranking is the engine tests' to check.
"""

from __future__ import annotations

import pytest

from tests.helpers.app import SNAPSHOT_SIZES, make_app, scene, size_id
from tests.helpers.demo_corpus import utc_clock

SCENES = {
    "search_placeholder": scene(""),
    "search_results": scene("Decimal rounding off by a cent", "down", "down"),
    "expanded_card": scene("coupon registry flaky on CI", "down", "enter"),
    "compact_list": scene("Decimal rounding off by a cent", "f4", "down", "down"),
    "reader": scene("test it without a real token in the repo", "down", "ctrl+o"),
    "reader_next_hit": scene("token", "down", "ctrl+o", "n"),
    "help_on_search": scene("Decimal rounding", "f1"),
    "rename_prompt": scene("Decimal rounding", "down", "ctrl+l"),
    # The palette filtered: unfiltered, its providers answer in any order and the
    # screenshot command names the run's temporary folder.
    "palette_filtered": scene("Decimal rounding", "down", "ctrl+p", *"sessi"),
}


@pytest.fixture(scope="module")
def corpus(demo_index):
    """The run's shared demo index (tests/conftest.py; debounce_ms = 0), dates shown in UTC."""
    with utc_clock():
        yield demo_index


@pytest.fixture
def utc():
    with utc_clock():
        yield


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=size_id)
@pytest.mark.parametrize("name", list(SCENES))
def test_search_screens(snap_compare, corpus, utc, name, size):
    # Six results: the engine orders exact score ties arbitrarily further down.
    app = make_app(corpus, search_limit=6, search_mode="keyword")
    assert snap_compare(app, terminal_size=size, run_before=SCENES[name])


def test_search_results_light_theme_80x24(snap_compare, corpus, utc):
    app = make_app(corpus, theme="textual-light", search_limit=6)
    assert snap_compare(app, terminal_size=(80, 24), run_before=scene("Redis 缓存击穿"))
