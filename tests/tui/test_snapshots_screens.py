"""Snapshots of the sessions browser and the stats screen at 80x24 and 120x36.

Same rules as tests/tui/test_snapshots.py: fixed size, no animations, UTC clock,
fixed mtimes on the corpus copy, every worker finished before the picture.
"""

from __future__ import annotations

import dataclasses

import pytest
from convo_tui.tui.app import create_app
from textual.widgets import Input

from tests.helpers.demo_corpus import utc_clock

SIZES = [(80, 24), (120, 36)]


@pytest.fixture(scope="module")
def corpus(demo_copy):
    """This module's own copy of the demo index (tests/conftest.py)."""
    return demo_copy


@pytest.fixture
def utc():
    with utc_clock():
        yield


def make_app(corpus):
    settings, library = corpus
    return create_app(dataclasses.replace(settings), library=library, index_on_start=False)


def pressed(*keys: str):
    async def run_before(pilot):
        for key in keys:
            await pilot.pause()
            await pilot.app.workers.wait_for_complete()
            await pilot.press(key)
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.clear_notifications()
        for box in pilot.app.screen.query(Input):
            box.cursor_blink = False
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sessions_browser_by_date(snap_compare, corpus, utc, size):
    assert snap_compare(make_app(corpus), terminal_size=size, run_before=pressed("f3", "down", "j"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sessions_browser_by_project(snap_compare, corpus, utc, size):
    assert snap_compare(make_app(corpus), terminal_size=size, run_before=pressed("f3", "down", "s", "s"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_stats_screen(snap_compare, corpus, utc, size):
    assert snap_compare(make_app(corpus), terminal_size=size, run_before=pressed("f7"))
