"""Readable default themes: headings and focused rows at least 4.5:1 (WCAG AA) against their background.

Measured on what the app really draws: the colours of the rendered segments
of each widget (theme variables, alpha and `auto` colours all resolved).
Also: the footer fits 80 columns and shows how to quit, on every screen.
"""

from __future__ import annotations

import dataclasses

import pytest
from convo_tui.tui.app import create_app
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.screens.sessions import SessionsScreen
from convo_tui.tui.screens.stats import StatsScreen
from textual.color import Color
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets._collapsible import CollapsibleTitle

from tests.helpers.app import run_async, search, settle

AA = 4.5
THEMES = ("textual-dark", "textual-light")


def luminance(color: Color) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""

    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def drawn_contrasts(widget: Widget) -> list[tuple[str, float]]:
    """(text, contrast) for every segment of text the widget draws (borders and bars left out)."""
    found = []
    for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height)):
        for segment in strip:
            style = segment.style
            if any(ch.isalnum() for ch in segment.text) and style is not None and style.color and style.bgcolor:
                fg, bg = Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)
                found.append((segment.text.strip(), contrast(fg, bg)))
    return found


def assert_readable(widget: Widget, what: str) -> None:
    measured = drawn_contrasts(widget)
    assert measured, f"{what}: nothing drawn"
    worst = min(measured, key=lambda item: item[1])
    assert worst[1] >= AA, f"{what}: {worst[0]!r} at {worst[1]:.2f}:1"


def test_the_ratio_is_wcags():
    assert contrast(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast(Color(118, 118, 118), Color(255, 255, 255)) == pytest.approx(4.54, abs=0.01)
    assert contrast(Color.parse("#004578"), Color.parse("#1B1B1B")) == pytest.approx(1.74, abs=0.01)  # the old heading


@pytest.fixture(scope="module")
def corpus(demo_copy):
    """This module's own copy of the demo index (tests/conftest.py)."""
    return demo_copy


def make_app(corpus, theme: str):
    settings, library = corpus
    # debounce 0: a query set by the test searches at once (settle then waits for it)
    return create_app(dataclasses.replace(settings, theme=theme, debounce_ms=0), library=library, index_on_start=False)


@pytest.mark.parametrize("theme", THEMES)
@run_async
async def test_section_titles_turn_headings_and_a_focused_tool_call_are_readable(corpus, theme):
    app = make_app(corpus, theme)
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "coupon registry flaky on CI")
        cards[0].focus()
        await pilot.press("enter")
        await pilot.pause()
        for title in app.screen.query(".section-title"):
            assert_readable(title, f"{theme} section title")
        cards[0].focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen)
        tool = app.screen.query(CollapsibleTitle).first()  # a call with long arguments
        tool.focus()
        await pilot.pause()
        assert_readable(tool, f"{theme} focused tool call")
        for heading in app.screen.query(".turn-title"):
            assert_readable(heading, f"{theme} turn heading")
        assert_readable(app.screen.query_one("#reader-head"), f"{theme} reader head")
        await pilot.press("escape", "f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert_readable(app.screen.query_one("#sessions-count"), f"{theme} sessions count")
        await pilot.press("down", "s", "s")  # by project: headers, then rows, one highlighted
        assert_readable(app.screen.query_one("#session-list"), f"{theme} sessions list")
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        assert_readable(app.screen.query_one("#stats-summary"), f"{theme} stats summary")
        assert_readable(app.screen.query_one("#stats-projects"), f"{theme} stats table")


def quit_key_in_view(app) -> bool:
    from textual.widgets._footer import FooterKey

    for key in app.screen.query(FooterKey):
        if key.action == "quit" or key.description == "Quit":
            return key.region.right <= app.size.width and key.region.width > 0
    return False


@run_async
async def test_the_footer_fits_80_columns_and_shows_how_to_quit(corpus):
    app = make_app(corpus, "textual-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screens = {}
        screens["search"] = quit_key_in_view(app)
        await search(pilot, "Decimal rounding")
        app.search_screen.cards()[0].focus()
        await pilot.pause()
        screens["card"] = quit_key_in_view(app)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen)
        screens["reader"] = quit_key_in_view(app)
        await pilot.press("escape", "f3")
        await settle(pilot)
        screens["sessions"] = quit_key_in_view(app)
        await pilot.press("f7")
        await settle(pilot)
        screens["stats"] = quit_key_in_view(app)
        assert all(screens.values()), screens


@pytest.mark.parametrize("theme", THEMES)
@run_async
async def test_the_query_placeholder_and_the_result_count_are_readable(corpus, theme):
    app = make_app(corpus, theme)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert_readable(app.search_screen.query_one("#query"), f"{theme} query placeholder")
        await search(pilot, "Decimal rounding")
        line = app.search_screen.query_one("#filter-line")
        counted = [item for item in drawn_contrasts(line) if "result" in item[0]]
        assert counted and min(c for _, c in counted) >= AA, counted
