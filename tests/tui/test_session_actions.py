"""Every session action on every screen, by the same keys and in the palette (issue 23):
the search screen's current card, the sessions browser's highlighted row and the
reader's session answer resume, copy id, open, star, rename and export alike.
Also the palette's own commands (screenshot, project filter) and the reader's n/N."""

from __future__ import annotations

from pathlib import Path

import pytest
from convo_tui.tui.commands import ConvoCommands
from convo_tui.tui.dialogs import PromptScreen
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.screens.search import SearchScreen
from convo_tui.tui.screens.sessions import SessionsScreen
from textual.widgets import Input, Static

from tests.helpers.app import make_app, run_async, search, settle, until

SIZE = (100, 32)
SESSION_COMMANDS = {
    "Copy as Markdown",
    "Copy session id",
    "Resume in its tool",
    "Copy resume command",
    "Export LLM context",
    "Open the source file in $EDITOR",
    "Star / unstar the session",
    "Rename the session",
    "Delete the session from the index",
}


@pytest.fixture(scope="module")
def corpus(demo_copy):
    return demo_copy


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def palette_titles(app) -> set[str]:
    provider = ConvoCommands(app.screen)
    await provider.startup()
    return {title for title, _, _ in provider._commands()}


async def on_search(pilot):
    cards = await search(pilot, "Decimal rounding")
    cards[0].focus()
    await pilot.pause()
    return cards[0].hit.session_id


async def on_sessions(pilot):
    app = pilot.app
    app.set_query("")
    await pilot.press("f3")
    await settle(pilot)
    await pilot.press("down", "j")
    await pilot.pause()
    assert isinstance(app.screen, SessionsScreen)
    return app.screen.session_target().session_id


async def on_reader(pilot):
    app = pilot.app
    session_id = await on_search(pilot)
    await pilot.press("ctrl+o")
    await settle(pilot)
    assert isinstance(app.screen, ReaderScreen)
    return session_id


@pytest.mark.parametrize("where", ["search", "sessions", "reader"])
@run_async
async def test_each_screen_offers_every_session_action_by_the_same_keys_and_in_the_palette(corpus, where):
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session_id = await {"search": on_search, "sessions": on_sessions, "reader": on_reader}[where](pilot)
        titles = await palette_titles(app)
        assert titles >= SESSION_COMMANDS, SESSION_COMMANDS - titles
        assert ("Open in the reader" in titles) == (where != "reader")  # the reader is the session open
        await pilot.press("ctrl+g")  # copy the id
        await settle(pilot)
        assert app.clipboard == session_id
        try:
            await pilot.press("ctrl+b")  # star
            await settle(pilot)
            assert library.session_summary(session_id).starred
            await pilot.press("ctrl+l")  # rename: a prompt with the title
            await pilot.pause()
            assert isinstance(app.screen, PromptScreen)
            await pilot.press("ctrl+u", *f"Renamed on {where}", "enter")
            await settle(pilot)
            assert library.session_summary(session_id).title == f"Renamed on {where}"
            if where == "reader":
                head = str(app.screen.query_one("#reader-head", Static).render())
                assert "★" in head and f"Renamed on {where}" in head
        finally:
            library.star_session(session_id, False)
            library.rename_session(session_id, "")


@run_async
async def test_the_rename_box_offers_a_cut_title_without_its_ellipsis_and_enter_on_it_changes_nothing(corpus):
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "BM25 sparse vector collection")
        card = next(c for c in cards if c.hit.session_title.endswith("…"))
        card.focus()
        await pilot.press("ctrl+l")
        await pilot.pause()
        box = app.screen.query_one("#prompt-input", Input)
        assert box.value == card.hit.session_title.removesuffix("…").rstrip()
        try:
            await pilot.press("enter")
            await settle(pilot)
            # Nothing renamed: not the cut title without its "…", nor pinned as the user's.
            assert library.session_summary(card.hit.session_id).title == card.hit.session_title
            assert not [note for note in notes(app) if note.startswith("Renamed")]
        finally:
            library.rename_session(card.hit.session_id, "")


@run_async
async def test_letters_in_the_reader_do_not_rename_and_ctrl_keys_do_not_type_in_the_sessions_filter(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await on_reader(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReaderScreen)  # no prompt: rename is ctrl+l on every screen
        await pilot.press("escape", "f3")
        await settle(pilot)
        await pilot.press("x", "ctrl+g")  # types x in the filter; ctrl+g copies, it never types
        await settle(pilot)
        box = app.screen.query_one("#session-filter")
        assert box.value == "x"


@run_async
async def test_palette_has_no_maximize_names_the_screenshot_and_adds_the_project_filter(corpus, tmp_path):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "rounding after:2020-01-01")
        app.search_screen.query_box.focus()
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Maximize" not in commands and "Keys" not in commands
        app.take_screenshot()
        await settle(pilot)
        said = [n for n in notes(app) if n.startswith("Screenshot saved to ")]
        assert said, notes(app)
        saved = Path(said[0].removeprefix("Screenshot saved to "))
        assert saved.is_file() and saved.read_text(encoding="utf-8").startswith("<svg")
        saved.unlink()
        titles = await palette_titles(app)
        project = next(t for t in titles if t.startswith("Filter by project: shopfront"))
        callback = next(cb for t, cb, _ in ConvoCommands(app.screen)._commands() if t == project)
        callback()
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert app.search_screen.query_text == "rounding after:2020-01-01 project:shopfront "
        assert all(card.hit.project == "shopfront" for card in app.search_screen.cards())


@run_async
async def test_reader_n_says_where_it_is_and_what_to_do_without_a_query(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await on_sessions(pilot)
        await pilot.press("enter")  # opened from the list: no query
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen)
        await pilot.press("n")
        await pilot.pause()
        assert any("s searches this session" in n for n in notes(app)), notes(app)
        assert not any("No hits of the query" in n for n in notes(app))
        await pilot.press("escape", "escape")
        cards = await search(pilot, "test")  # a word with several turns in some session
        reader = None
        for card in cards:
            card.focus()
            await pilot.press("ctrl+o")
            await settle(pilot)
            reader = app.screen
            if len(reader.hit_turns) >= 2:
                break
            await pilot.press("escape")
            await settle(pilot)
        assert reader is not None and len(reader.hit_turns) >= 2
        await pilot.press("n")
        await pilot.pause()
        head = str(reader.query_one("#reader-head", Static).render())
        position = reader.hit_turns.index(reader.current_turn) + 1
        assert f"hit {position}/{len(reader.hit_turns)}" in head


@run_async
async def test_a_session_action_in_the_browser_before_any_row_is_highlighted_takes_the_first(corpus):
    """F3 then the palette's "Copy session id" said "No session highlighted": the
    filter box has the focus and no row is chosen until ↓."""
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert app.screen.listing.highlighted is None
        await pilot.press("ctrl+g")  # copy the id
        await settle(pilot)
        assert "No session highlighted" not in notes(app)
        first = app.screen.listing.highlighted
        assert first is not None
        await pilot.press("down", "up")  # ↓ from the filter box lands on the first session too
        await pilot.pause()
        assert app.screen.session_target().session_id == app.clipboard


@run_async
async def test_the_reader_says_it_counts_hits_until_it_knows_them(corpus):
    """Opened while the holder was busy, the reader said "hit 1/1" (the opened turn
    alone), then n went to "hit 27/40"."""
    import threading

    _, library = corpus
    gate = threading.Event()
    real = library.hits_in_session

    def slow_hits(*args, **kwargs):
        gate.wait(60)
        return real(*args, **kwargs)

    app = make_app(corpus)
    library.hits_in_session = slow_hits
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            cards = await search(pilot, "test")
            cards[0].focus()
            await pilot.press("ctrl+o")
            await until(pilot, lambda: isinstance(app.screen, ReaderScreen), "the reader")
            await pilot.pause()
            head = str(app.screen.query_one("#reader-head", Static).render())
            assert "counting hits" in head and "hit 1/1" not in head, head
            gate.set()
            reader = app.screen
            await until(pilot, lambda: reader.hits_counted, "the hits")
            await pilot.pause()
            head = str(reader.query_one("#reader-head", Static).render())
            assert f"hit {reader.hit_turns.index(reader.current_turn) + 1}/{len(reader.hit_turns)}" in head
    finally:
        gate.set()
        del library.hits_in_session


@run_async
async def test_the_readers_hit_position_stays_whole_beside_a_long_title_at_80_columns(corpus):
    """At 80x24 a long title pushed "hit 1/5 · n/N" over two lines ("hit" / "1/5 · n/N")."""
    app = make_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "coupon registry flaky on CI")
        cards[0].focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        reader = app.screen
        assert isinstance(reader, ReaderScreen) and reader.hits_counted
        box = reader.query_one("#reader-head", Static)
        first = str(box.render()).split("\n")[0]
        assert first.endswith("n/N") and "hit " in first, first
        assert len(first) <= box.content_region.width, (first, box.content_region.width)
