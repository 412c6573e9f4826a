"""Toasts (issue 23): above the status line, never over the next screen."""

from __future__ import annotations

import pytest
from convo_tui.tui.screens.sessions import SessionsScreen
from textual.widgets._toast import Toast

from tests.helpers.app import make_app, run_async, settle

SIZE = (80, 24)


@pytest.fixture(scope="module")
def corpus(demo_copy):
    return demo_copy


@run_async
async def test_a_toast_leaves_the_status_line_visible_and_goes_with_its_screen(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        status = app.search_screen.status
        status.say("Indexing: reading files 3/10")  # the line a toast covered
        app.notify("Copied the session id to the clipboard", timeout=30)
        await pilot.pause()
        await pilot.pause()
        toasts = list(app.screen.query(Toast))
        assert toasts and status.region.height == 1
        assert all(toast.region.bottom <= status.region.y for toast in toasts), (toasts[0].region, status.region)
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert not list(app.screen.query(Toast)) and not app._notifications
        await pilot.press("escape", "f2")  # a toast said on the new screen stays
        await pilot.pause()
        assert any("Search mode" in str(n.message) for n in app._notifications)
