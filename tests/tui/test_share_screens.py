"""Issue 29 in the app: export from the search, sessions and reader screens, and the stats
screen's cost and charts on sessions with known token usage (snapshots at 80x24 and 120x40)."""

from __future__ import annotations

import dataclasses

import pytest
from convo_tui.core.export import export_file_name
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.tui.app import create_app
from convo_tui.tui.commands import SCREEN_COMMANDS
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.screens.sessions import SessionsScreen

from tests.helpers.app import make_app, run_async, search, settle
from tests.helpers.cost_corpus import cost_corpus
from tests.helpers.demo_corpus import utc_clock

OPUS_SESSION = "7d2f4a10-3b6c-4e8d-9f01-a2b3c4d5e6f7"
OPUS_TITLE = "Roll back the last deploy if the health check fails."


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """(settings, open Library) over tests/fixtures/tokens and tests/fixtures/cost, dates in UTC."""
    from convo_tui.core.library import Library

    root = tmp_path_factory.mktemp("share-app")
    source = cost_corpus(root / "corpus")
    with utc_clock():
        settings = Settings(index_dir=root / "index", sources=[source], discover_defaults=False, model=DEFAULT_MODEL)
        library = Library.open(settings)
        library.load_model()
        assert library.index().sessions == 6
        yield settings, library
        library.close()


def exported(settings: Settings, name: str):
    return settings.index_dir.parent / "exports" / name


@run_async
async def test_ctrl_s_saves_the_current_result_as_a_page(corpus):
    settings, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "health check")
        assert cards[0].hit.session_id == OPUS_SESSION
        await pilot.press("ctrl+s")
        await settle(pilot)
    page = exported(settings, export_file_name(library.session(OPUS_SESSION), "html"))
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and f"<h1>{OPUS_TITLE}</h1>" in text
    assert page.stat().st_mode & 0o777 == 0o600


@run_async
async def test_the_sessions_browser_and_the_reader_export_too(corpus):
    settings, library = corpus
    app = make_app(corpus)
    session = library.session(OPUS_SESSION)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, SessionsScreen)
        await pilot.press("down")  # the list; the newest session (the Codex one of 03-11) first
        await pilot.press("down")
        await settle(pilot)
        assert browser.shown()[1].id == OPUS_SESSION
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert exported(settings, export_file_name(session, "html")).exists()
        exported(settings, export_file_name(session, "html")).unlink()
        await pilot.press("enter")
        await settle(pilot)
        reader = app.screen
        assert isinstance(reader, ReaderScreen) and reader.session.id == OPUS_SESSION
        head = str(reader.query_one("#reader-head").render())
        assert "24.5k tokens · $0.05" in head  # the session's usage, priced (tests/unit/test_cost.py)
        await pilot.press("ctrl+s")
        await settle(pilot)
        reader.action_export_markdown()  # the palette's "Export session as Markdown"
        await settle(pilot)
    assert exported(settings, export_file_name(session, "html")).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert exported(settings, export_file_name(session, "md")).read_text(encoding="utf-8").startswith(f"# {OPUS_TITLE}")


def test_the_palette_offers_export_on_every_screen_with_sessions():
    from convo_tui.tui.screens.search import SearchScreen

    actions = {action for _, action, _ in SCREEN_COMMANDS}
    assert {"action_export_page", "action_export_markdown"} <= actions
    for screen in (SearchScreen, SessionsScreen, ReaderScreen):
        assert callable(getattr(screen, "action_export_page", None)) and callable(getattr(screen, "action_export_markdown", None))


def stats_app(corpus):
    settings, library = corpus
    return create_app(dataclasses.replace(settings), library=library, index_on_start=False)


def pressed(*keys: str):
    async def run_before(pilot):
        for key in keys:
            await settle(pilot)
            await pilot.press(key)
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_stats_charts_and_cost(snap_compare, corpus, size):
    with utc_clock():
        assert snap_compare(stats_app(corpus), terminal_size=size, run_before=pressed("f7"))


def test_stats_cost_tables_at_80x24(snap_compare, corpus):
    with utc_clock():
        assert snap_compare(stats_app(corpus), terminal_size=(80, 24), run_before=pressed("f7", "end"))
