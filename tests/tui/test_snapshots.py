"""Snapshots of the main screens (pytest-textual-snapshot); update with --snapshot-update.

Stable across runs: fixed size, no animations (conftest), UTC clock, fixed
mtimes on the corpus copy, absolute dates, and every worker finished before
the picture is taken.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tests.helpers.app import make_app as make_any_app
from tests.helpers.app import settle
from tests.helpers.demo_corpus import utc_clock

SIZE = (100, 32)


@pytest.fixture(scope="module")
def corpus(demo_index):
    """The run's shared demo index (tests/conftest.py; debounce_ms = 0), dates shown in UTC."""
    with utc_clock():
        yield demo_index


@pytest.fixture
def utc():
    with utc_clock():
        yield


def make_app(corpus, **changes):
    # Four results: the engine orders exact score ties arbitrarily further down.
    changes.setdefault("search_limit", 4)
    return make_any_app(corpus, **changes)


def searched(query: str, *keys: str):
    async def run_before(pilot):
        await settle(pilot)
        if query:
            pilot.app.search_screen.set_query(query)
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        # Notifications time out and cursors blink on a clock: keep both still.
        pilot.app.clear_notifications()
        for box in pilot.app.screen.query(Input):
            box.cursor_blink = False
        await pilot.pause()

    return run_before


SMALL, LARGE = (80, 24), (120, 36)


def test_search_placeholder_80x24(snap_compare, corpus, utc):
    assert snap_compare(make_app(corpus), terminal_size=SMALL, run_before=searched(""))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x36"])
def test_search_results(snap_compare, corpus, utc, size):
    app = make_app(corpus, search_limit=6)
    assert snap_compare(app, terminal_size=size, run_before=searched("Decimal rounding off by a cent", "down", "down"))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x36"])
def test_compact_list_with_preview(snap_compare, corpus, utc, size):
    app = make_app(corpus, search_limit=6)
    assert snap_compare(app, terminal_size=size, run_before=searched("Decimal rounding off by a cent", "f4", "down", "down"))


def test_expanded_card_with_tool_calls(snap_compare, corpus, utc):
    assert snap_compare(
        make_app(corpus), terminal_size=LARGE, run_before=searched("coupon registry flaky on CI", "down", "enter")
    )


def test_session_reader(snap_compare, corpus, utc):
    assert snap_compare(
        make_app(corpus), terminal_size=SIZE, run_before=searched("test it without a real token in the repo", "down", "ctrl+o")
    )


def test_search_results_light_theme_80x24(snap_compare, corpus, utc):
    app = make_app(corpus, theme="textual-light")
    assert snap_compare(app, terminal_size=(80, 24), run_before=searched("Redis 缓存击穿"))
