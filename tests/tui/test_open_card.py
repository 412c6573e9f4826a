"""A long open card can be read (issue 23): it opens at its matched line, ↓/↑ and
pgdn/pgup read through it before moving on, and leaving it closes it, so the card
the keys act on is the one on screen."""

from __future__ import annotations

import threading

import pytest
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings
from convo_tui.tui.screens.reader import ReaderScreen

from tests.helpers.app import make_app, run_async, search, settle, until

SIZE = (80, 24)
TERM = "zebracorn"


def long_answer() -> str:
    lines = [f"Step {n}: check the staging logs for the payment worker and note the time." for n in range(1, 41)]
    lines[33] = f"Step 34: the {TERM} flag must be off before the retry runs."
    return "\n".join(lines)


def transcript(user: str, answer: str) -> str:
    return f"user:\n{user}\n\nassistant:\n{answer}\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("long-card")
    folder = root / "src" / "Users-dev-code-payments" / "agent-transcripts"
    folder.mkdir(parents=True)
    (folder / "long.txt").write_text(transcript("why does the payment retry fail", long_answer()), encoding="utf-8")
    for n in range(3):
        short = transcript(f"short question {n} about the {TERM} flag", f"Short answer {n}: turn the {TERM} flag off.")
        (folder / f"short-{n}.txt").write_text(short, encoding="utf-8")
    settings = Settings(index_dir=root / "index", sources=[root / "src"], discover_defaults=False, search_mode="keyword")
    library = Library.open(settings)
    library.load_model()
    library.index()
    yield settings, library
    library.close()


def long_card(app):
    return next(c for c in app.search_screen.cards() if "payment retry" in c.hit.user_text)


def match_on_screen(app, card) -> bool:
    """The matched line is inside the results' visible rows."""
    widget, row = card.first_match()
    results = app.search_screen.query_one("#results")
    y = widget.region.y + row
    return results.content_region.y <= y < results.content_region.bottom


@run_async
async def test_a_long_card_opens_at_its_matched_line_and_the_arrows_read_through_it(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, TERM)
        card = long_card(app)
        card.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert card.expanded
        assert match_on_screen(app, card)  # line 34 of 40, far below the card's top
        results = app.search_screen.query_one("#results")
        before = results.scroll_y
        await pilot.press("up")  # reads up through the card: one row, same card
        await pilot.pause()
        assert results.scroll_y == before - 1 and app.search_screen.card_of(app.focused) is card
        await pilot.press("pageup")
        await pilot.pause()
        assert results.scroll_y < before - 1 and card.expanded
        for _ in range(30):  # down to the card's end, then on to the next card
            await pilot.press("pagedown")
            await pilot.pause()
            if not card.expanded:
                break
        assert not card.expanded
        cards = app.search_screen.cards()
        after = cards[min(cards.index(card) + 1, len(cards) - 1)]  # the next card (this one when it is the last)
        assert app.search_screen.card_of(app.focused) is after


@run_async
async def test_down_then_escape_leaves_no_card_open_and_ctrl_o_opens_the_marked_one(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, f"short {TERM}")
        first, second = cards[0], cards[1]
        assert "payment retry" not in first.hit.user_text  # a short card: it fits the screen
        first.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert first.expanded
        await pilot.press("down", "escape")
        await pilot.pause()
        assert not first.expanded  # leaving the open card closed it
        assert app.focused is app.search_screen.query_box
        assert second.has_class("-selected") and not first.has_class("-selected")
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen) and app.screen.session.id == second.hit.session_id


@run_async
async def test_a_card_replaced_while_its_session_is_read_does_not_open_or_crash(corpus):
    """The results change under an opening card when an index run publishes (found by
    tests/e2e/test_app.py): the session arrives for a card no longer on screen."""
    from convo_tui.tui.card_messages import CardExpand

    _settings, library = corpus
    gone = threading.Event()  # the read returns only once the card is off the screen
    real = library.session

    def read_after_removal(session_id: str):
        assert gone.wait(30)
        return real(session_id)

    app = make_app(corpus)
    library.session = read_after_removal
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await search(pilot, TERM)
            card = long_card(app)
            app.search_screen.post_message(CardExpand(card))  # as Enter on it does
            await card.remove()  # gone before the session is read
            gone.set()
            await settle(pilot)
            assert app.is_running and not card.expanded
            assert all(not c.expanded for c in app.search_screen.cards())
    finally:
        del library.session


@run_async
async def test_a_reader_read_after_the_user_moved_on_does_not_open(corpus):
    """ctrl+o, then F3 before the session is read: the reader opened over the sessions
    browser, and after escape it stood over the search screen (tmux, session 32)."""
    from convo_tui.tui.screens.sessions import SessionsScreen

    _settings, library = corpus
    moved_on = threading.Event()
    real = library.session

    def read_late(session_id: str):
        assert moved_on.wait(30)
        return real(session_id)

    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, TERM)
        library.session = read_late
        try:
            await pilot.press("ctrl+o")  # a slow read is said to be coming
            await until(pilot, lambda: "Opening the session…" in [str(n.message) for n in app._notifications], "the notice")
            await pilot.press("f3")
            await pilot.pause()
            assert isinstance(app.screen, SessionsScreen)
            moved_on.set()
            await settle(pilot)
        finally:
            del library.session
        assert isinstance(app.screen, SessionsScreen)
        assert not any(isinstance(screen, ReaderScreen) for screen in app.screen_stack)
        assert "Opening the session…" not in [str(n.message) for n in app._notifications]
        await pilot.press("escape", "ctrl+o")  # back where it was asked from, it opens
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen)
