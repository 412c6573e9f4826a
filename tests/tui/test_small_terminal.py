"""80x24 is a first-class size (issue 23): six cards or sixteen compact rows fit, the
compact rows keep project and date, nothing in the footer or the status line is cut."""

from __future__ import annotations

import pytest
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.screens.sessions import SessionsScreen
from convo_tui.tui.screens.stats import StatsScreen
from convo_tui.tui.widgets.index_status import progress_label
from textual.widgets import Label

from tests.helpers.app import make_app, run_async, search, settle

SIZE = (80, 24)


@pytest.fixture(scope="module")
def corpus(demo_copy):
    return demo_copy


def whole_cards(app) -> list:
    results = app.search_screen.query_one("#results").content_region
    return [
        c for c in app.search_screen.cards() if c.region.height and c.region.y >= results.y and c.region.bottom <= results.bottom
    ]


def footer_fits(app) -> bool:
    """Every key of the footer whole, left of the palette's key."""
    from textual.widgets._footer import FooterKey

    keys = [k for k in app.screen.query(FooterKey) if k.region.width]
    palette = [k for k in keys if k.action == "app.command_palette" or "palette" in k.description]
    edge = min((k.region.x for k in palette), default=app.size.width)
    shown = [k for k in keys if k not in palette]
    return bool(shown) and all(k.region.right <= edge for k in shown)


@run_async
async def test_six_cards_or_sixteen_compact_rows_and_the_footer_whole_at_80x24(corpus):
    app = make_app(corpus, search_limit=10)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.search_screen.status.say(progress_label("semantic", 1234, 3528, 15, 425.0))  # the status line shown
        await search(pilot, "test")
        assert len(app.search_screen.cards()) >= 6
        assert len(whole_cards(app)) >= 6
        assert footer_fits(app)
        label = app.search_screen.query_one("#index-label", Label)
        text = str(label.render())
        assert "about 7 min 05 s left" in text and len(text) <= label.region.width, (text, label.region)
        await pilot.press("f4")  # the compact list
        await settle(pilot)
        assert app.search_screen.query_one("#results").content_region.height >= 16
        for card in app.search_screen.cards():
            header = str(card._header.render())
            # Which cards the demo's hybrid results hold moves with the CPU's
            # kernels; a card of an undated message shows a dash for its date.
            date = "· 20" if card.hit.timestamp else "· —"
            assert card.hit.project in header and date in header, header
            assert header.split("  ")[0].rstrip("…") in card.hit.session_title
        assert not app.search_screen.query_one("#preview").display  # no pane taking half of 80 columns
        await pilot.press("f4", "down")
        await settle(pilot)
        assert footer_fits(app)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen) and footer_fits(app)
        await pilot.press("escape", "f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen) and footer_fits(app)
        await pilot.press("down")  # the list focused: its own keys (s, f) join the footer
        await settle(pilot)
        assert app.focused is app.screen.listing and footer_fits(app)
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen) and footer_fits(app)
