"""The search screen's keyboard model, palette and copy, driven as a user would (issue 14)."""

from __future__ import annotations

import inspect

import pytest
from convo_tui.tui.screens.help import HelpScreen
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.screens.search import SearchScreen
from convo_tui.tui.widgets.card import ResultCard
from convo_tui.tui.widgets.turn_detail import TurnDetail
from textual.widgets import Input

from tests.helpers.app import focus_card, make_app, run_async, search, settle

SIZE = (100, 32)


@pytest.fixture(scope="module")
def corpus(demo_copy):
    """This module's own copy of the demo index (tests/conftest.py)."""
    return demo_copy


def query_box(app) -> Input:
    return app.search_screen.query_one("#query", Input)


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@run_async
async def test_typing_on_a_result_card_extends_the_query_and_runs_no_card_action(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "qdrant")
        assert cards
        await pilot.press("down")
        assert app.focused is cards[0]
        clipboard_before = app.clipboard
        await pilot.press(*" collection")
        await settle(pilot)
        assert query_box(app).value == "qdrant collection"
        assert app.focused is query_box(app)
        assert isinstance(app.screen, SearchScreen)  # no reader opened (o), no editor (e)
        assert app.clipboard == clipboard_before  # no copy (c)
        assert not any(card.expanded for card in app.search_screen.cards())  # no expand (space)
        assert notes(app) == []
        assert app.search_screen.query_text == "qdrant collection"


@run_async
async def test_erasing_keys_on_a_card_erase_in_the_query(corpus):
    """A letter typed on a card lands in the query; Backspace, ctrl+w and ctrl+u there did nothing."""
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "qdrant")
        await pilot.press("down")
        assert app.focused is cards[0]
        await pilot.press("backspace")
        assert query_box(app).value == "qdran"
        assert app.focused is query_box(app)
        await search(pilot, "qdrant collection")
        await pilot.press("down", "ctrl+w")  # a word
        assert query_box(app).value == "qdrant "
        await pilot.press("down", "ctrl+u")  # all of it
        assert query_box(app).value == ""


@run_async
async def test_printable_keys_reach_the_query_from_inside_an_expanded_card(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "coupon registry flaky")
        await pilot.press("down", "down", "enter", "tab")  # the second card has a long tool call
        card = app.search_screen.cards()[1]
        assert card.expanded and app.focused is not card and card in app.focused.ancestors
        await pilot.press(*" on CI?")
        assert query_box(app).value == "coupon registry flaky on CI?"
        assert not isinstance(app.screen, HelpScreen)  # "?" typed, not the help key


@run_async
async def test_moving_through_results_uses_keys_that_never_type(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "Postgres index concurrently without locking")
        assert len(cards) >= 3
        await pilot.press("ctrl+n")
        assert app.focused is cards[0]
        await pilot.press("ctrl+j", "down")
        assert app.focused is cards[2]
        await pilot.press("ctrl+k", "up")
        assert app.focused is cards[0]
        await pilot.press("up")
        assert app.focused is query_box(app)
        assert query_box(app).value == "Postgres index concurrently without locking"


@run_async
async def test_card_actions_act_on_the_current_card_from_the_card_or_the_query(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "Postgres index concurrently without locking")
        await pilot.press("down", "down", "escape")  # second card, then back to the query
        assert app.focused is query_box(app)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen)
        assert app.screen.session.id == cards[1].hit.session_id


@run_async
async def test_escape_steps_back_and_a_cleared_query_comes_back(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "coupon registry flaky")
        box = query_box(app)
        await pilot.press("down", "enter")
        assert cards[0].expanded
        await pilot.press("escape")
        assert not cards[0].expanded and app.focused is cards[0]
        await pilot.press("escape")
        assert app.focused is box and box.value == "coupon registry flaky"
        assert box.selection.is_empty and box.cursor_position == len(box.value)  # never selected on return
        await pilot.press("escape")
        assert box.value == ""
        assert any("ctrl+z" in note for note in notes(app))
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert box.value == "coupon registry flaky"
        assert app.search_screen.cards()


@run_async
async def test_up_on_an_empty_query_walks_the_query_history(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        box = query_box(app)
        for text in ("Decimal rounding", "Redis cache"):
            await search(pilot, text)
            await pilot.press("enter")  # a query the user settled on
            await pilot.press("escape")
        await pilot.press("escape")
        assert box.value == ""
        await pilot.press("up")
        assert box.value == "Redis cache"
        await pilot.press("up")
        assert box.value == "Decimal rounding"
        await pilot.press("x")
        assert box.value == "Decimal roundingx"
        await pilot.press("up")  # typing ended the walk: up now does nothing to the query
        assert box.value == "Decimal roundingx"


@run_async
async def test_more_than_one_page_of_results_past_the_last_card(corpus):
    _settings, library = corpus
    ranking = [(h.session_id, h.turn_index) for h in library.search("test", limit=50)]
    assert len(ranking) > 4  # more than one page of four
    app = make_app(corpus, search_limit=4)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "test")
        assert len(cards) == 4
        first_page = [(c.hit.session_id, c.hit.turn_index) for c in cards]
        cards[-1].focus()
        await pilot.press("down")
        await settle(pilot)
        more = app.search_screen.cards()
        assert [(c.hit.session_id, c.hit.turn_index) for c in more] == ranking[:8]  # the next page, in order
        assert [(c.hit.session_id, c.hit.turn_index) for c in more[:4]] == first_page  # a longer list
        assert app.focused is more[4]


@run_async
async def test_after_more_results_in_date_order_f6_shows_them_by_relevance_again(corpus):
    app = make_app(corpus, search_limit=4)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "test")
        await pilot.press("f6")  # newest first
        await settle(pilot)
        app.search_screen.cards()[-1].focus()
        await pilot.press("down")  # past the last card: more
        await settle(pilot)
        await pilot.press("f6")  # by relevance
        await settle(pilot)
        scores = [card.hit.score for card in app.search_screen.cards()]
        assert len(scores) > 4 and scores == sorted(scores, reverse=True)
        await pilot.press("f6")  # the view is remembered: put it back as it was
        await settle(pilot)


@run_async
async def test_more_results_in_date_order_go_where_their_dates_put_them(corpus, monkeypatch):
    """They were put after the cards read: the list was no longer newest first."""
    from convo_tui.tui.screens import search_view

    monkeypatch.setattr(search_view, "DATE_POOL", 3)
    app = make_app(corpus, search_limit=3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "test")
        await pilot.press("f6")  # newest first
        await settle(pilot)
        read = app.search_screen.cards()
        assert len(read) == 3
        seen = {search_view.hit_key(card.hit) for card in read}  # the cards are used again for the new page
        read[-1].focus()
        await pilot.press("down")  # past the last card: more
        await settle(pilot)
        cards = app.search_screen.cards()
        stamps = [card.hit.timestamp for card in cards]
        assert len(cards) > 3 and stamps == sorted(stamps, reverse=True)
        assert app.focused is next(card for card in cards if search_view.hit_key(card.hit) not in seen)
        await pilot.press("f6")  # the view is remembered: put it back as it was
        await settle(pilot)


def test_more_results_come_after_the_cards_read_even_when_they_rank_above(corpus):
    """A bigger page is a deeper search, which may rank a result it reaches only now
    above cards already on screen: those stay where they were, it comes after them."""
    from convo_tui.tui.screens.search_view import hit_key, shown_then_new

    _settings, library = corpus
    page = library.search("test", limit=7)
    assert len(page) == 7
    shown, deeper = page[:4], [page[5], *page[:4], page[4], *page[6:]]  # page[5] now ranks first
    merged = shown_then_new(shown, deeper)
    assert [hit_key(h) for h in merged] == [hit_key(h) for h in [*page[:4], page[5], page[4], *page[6:]]]
    assert [hit_key(h) for h in shown_then_new([], deeper)] == [hit_key(h) for h in deeper]  # a new search: as ranked


def test_after_more_results_the_cursor_skips_results_shown_before_in_another_shape(corpus):
    """↓ past the last card (newest first: the list is re-ordered) lands on the first
    result not shown before. A deeper search can bring a result back with other
    message ids, or as its whole turn: it was read, the cursor must not land on it."""
    import dataclasses

    from convo_tui.tui.screens.search_view import first_unseen

    _settings, library = corpus
    page = library.search("test", limit=7)
    assert len(page) == 7
    shown = page[:4]
    again = [
        dataclasses.replace(shown[2], message_ids=[*shown[2].message_ids, "another-part"]),
        dataclasses.replace(shown[0], kind="message" if shown[0].kind == "turn" else "turn"),
        page[5],
        *shown[1::2],
        page[4],
    ]
    assert first_unseen(shown, again) == 2
    assert first_unseen(shown, shown) is None
    assert first_unseen([], again) == 0


@run_async
async def test_palette_copy_from_the_query_box_does_not_crash(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "Postgres index concurrently without locking")
        assert app.focused is query_box(app)
        await pilot.press("ctrl+p", *"Copy as Markdown")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, SearchScreen)
        assert app.clipboard.startswith("# Postgres index for order search\n")


PALETTE_SCREENS = ("search", "card", "reader", "sessions", "help")


# One test per screen, so the suite's workers share the load (all five in one test took a minute).
@pytest.mark.parametrize("where", PALETTE_SCREENS)
@run_async
async def test_every_palette_command_works_from_every_screen(corpus, where):
    from convo_tui.tui.commands import ConvoCommands

    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        async def to_search():
            app.set_query("Decimal rounding")
            await settle(pilot)

        async def to_card():
            await to_search()
            app.search_screen.cards()[0].focus()
            await settle(pilot)  # focus() lands on the next message: the start state is the card's

        async def to_reader():
            await to_card()
            await pilot.press("ctrl+o")
            await settle(pilot)

        async def to_sessions():
            await to_search()
            await pilot.press("f3")
            await settle(pilot)

        async def to_help():
            await to_search()
            await pilot.press("f1")
            await settle(pilot)

        go = {"search": to_search, "card": to_card, "reader": to_reader, "sessions": to_sessions, "help": to_help}[where]

        def state() -> tuple[object, ...]:
            """What a command starts from: the screen (the same one, not another of its
            kind), the focused widget, the query and the mode."""
            return (id(app.screen), id(app.focused), app.search_screen.query_text, app.mode, len(app.screen_stack))

        async def back_to(start: tuple[object, ...]) -> None:
            """Close what the last command opened over the starting screen (reopening it all took most of the test)."""
            while len(app.screen_stack) > start[-1] and any(id(screen) == start[0] for screen in app.screen_stack):
                app.pop_screen()
                await settle(pilot)

        ran: set[str] = set()
        await go()
        start = state()
        provider = ConvoCommands(app.screen)
        await provider.startup()
        titles = [title for title, _, _ in provider._commands()]
        for title in titles:
            if title.startswith(("Re-index", "Open the source file", "Resume in its tool")):
                continue  # indexing, an editor and the tool's own program need a real terminal
            if title.startswith(("Star", "Rename", "Delete")):
                continue  # they change the shared index: tests/tui/test_session_actions.py runs them
            if state() != start:  # the last command left the screen, or changed what it shows
                await back_to(start)
            if state() != start:
                await go()
                start = state()
            provider = ConvoCommands(app.screen)
            await provider.startup()
            callback = next(cb for t, cb, _ in provider._commands() if t == title)
            result = callback()
            if inspect.isawaitable(result):
                await result
            await settle(pilot)
            assert app.is_running, (where, title)
            ran.add(title)
        assert "Mode: keyword" in ran
        if where in ("search", "card", "reader"):
            assert "Copy as Markdown" in ran
        if where == "search":
            assert any(t.startswith("Filter by project") for t in ran)
    assert app.return_code in (None, 0)


@run_async
async def test_copy_without_a_clipboard_says_where_the_text_went(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_card(pilot, "Postgres index concurrently without locking", "Postgres index for order search")
        await pilot.press("ctrl+y")
        await settle(pilot)
        said = notes(app)
        assert said and not any(note.startswith("Copied") for note in said)
        path = said[-1].split(" saved to ")[1].split(" (")[0]
        with open(path, encoding="utf-8") as saved:
            assert saved.read().startswith("# Postgres index for order search\n")


@run_async
async def test_copy_session_id_and_resume_without_a_command(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        card = await focus_card(pilot, "Docker image multi-stage build smaller", "Docker image size")
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert app.clipboard == card.hit.session_id
        session = app.library.session(card.hit.session_id)
        await pilot.press("ctrl+r")
        await settle(pilot)
        if session.resume is None:
            assert f"No resume command for {session.source}" in notes(app)
        assert isinstance(app.screen, SearchScreen) and app.is_running


def test_card_has_no_printable_bindings():
    for binding in ResultCard.BINDINGS:
        assert all(len(key) > 1 for key in binding.key.split(",")), binding
    for binding in SearchScreen.BINDINGS:
        assert all(len(key) > 1 for key in binding.key.split(",")), binding


@run_async
async def test_help_names_the_result_keys(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "Decimal rounding")
        await pilot.press("f1")
        await pilot.pause()
        rows = app.screen._rows(app.screen.under)
        actions = {row[1] for row in rows}
        assert {"Next", "Previous", "Open", "Copy", "Resume", "Copy id", "Back"} <= actions
        assert not app.search_screen.query(TurnDetail)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)


@run_async
async def test_ctrl_c_says_in_plain_words_which_key_quits(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert await search(pilot, "qdrant")
        await pilot.press("down", "ctrl+c")  # on a card: nothing to copy, so it is the reflex to quit
        await settle(pilot)
        assert notes(app) == ["Press ctrl+q to quit the app"]
        assert app.is_running


@run_async
async def test_ctrl_o_right_after_typing_opens_the_top_result_once_it_is_found(corpus):
    app = make_app(corpus, debounce_ms=600_000)  # the search waits for the typing to pause: here, until ctrl+o
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"qdrant", "ctrl+o")
        await settle(pilot)
        assert notes(app) == []
        assert isinstance(app.screen, ReaderScreen)
        top = app.search_screen.hits[0]
        assert app.screen.session.id == top.session_id
        # Again over the cards of that query: the new query's top result opens, not the old card.
        await pilot.press("escape", "ctrl+u", *"redis", "ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen)
        assert app.search_screen.query_text == "redis"
        assert app.screen.session.id == app.search_screen.hits[0].session_id != top.session_id


@run_async
async def test_a_ctrl_o_waiting_for_results_opens_nothing_over_another_screen(corpus):
    from convo_tui.tui.screens.sessions import SessionsScreen
    from textual import events

    app = make_app(corpus, debounce_ms=600_000)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"qdrant")
        # Both at once, as a terminal sends them: the search starts, then F3 covers it.
        app.post_message(events.Key("ctrl+o", None))
        app.post_message(events.Key("f3", None))
        await settle(pilot)
        await settle(pilot)
        assert app.search_screen.cards()  # the results came
        assert isinstance(app.screen, SessionsScreen)
        assert not any(isinstance(screen, ReaderScreen) for screen in app.screen_stack)
