"""Results follow the index (issue 23): a search shown while sessions are published
or vectors added runs again by itself, keeps the reader's place when the results it
shows still lead, and says what search by meaning covers; "wait" is said only when
waiting can help."""

from __future__ import annotations

import threading

import pytest
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings
from convo_tui.tui.app import create_app
from convo_tui.tui.screens.sessions import SessionsScreen
from textual.widgets import Static

from tests.helpers.app import make_app, run_async, search, settle, until
from tests.helpers.demo_corpus import copy_demo, utc_clock

SIZE = (100, 32)


class PausedLibrary(Library):
    """A real library whose indexing stops at the start of phase 2 (every session
    published, no vector added yet) until the test lets it go on."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.paused = threading.Event()
        self.go_on = threading.Event()

    def index(self, paths=None, *, progress=None, cancel=None, rebuild=False, semantic=True):
        def told(event) -> None:
            if progress is not None:
                progress(event)
            if event.phase == "semantic" and not self.go_on.is_set():
                self.paused.set()
                self.go_on.wait(120)

        return super().index(paths, progress=told, cancel=cancel, rebuild=rebuild, semantic=semantic)


@pytest.fixture
def paused(tmp_path):
    with utc_clock():
        corpus = copy_demo(tmp_path)
        settings = Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False, debounce_ms=0)
        library = PausedLibrary.open(settings)
        library.load_model()
        try:
            yield settings, library
        finally:
            library.go_on.set()
            library.close()


def note_text(app) -> str:
    return str(app.search_screen.query_one("#results-note", Static).render())


def filter_line(app) -> str:
    return str(app.search_screen.query_one("#filter-line", Static).render())


@run_async
async def test_a_query_typed_before_its_sessions_are_published_shows_them_while_indexing_runs(paused):
    settings, library = paused
    app = create_app(settings, library=library)
    async with app.run_test(size=SIZE) as pilot:
        app.search_screen.set_query("qdrant")  # the index is still empty
        await pilot.pause()
        await until(pilot, lambda: library.paused.is_set(), "phase 2 to start")
        assert app.indexing
        # Every session is published, no vector yet: the results come without a key pressed.
        await until(pilot, lambda: bool(app.search_screen.cards()), "the results to refresh")
        assert app.indexing and not library.go_on.is_set()
        titles = [card.hit.session_title for card in app.search_screen.cards()]
        assert any("Qdrant" in title for title in titles), titles
        # What the results cover: keyword, and meaning on none of the texts yet.
        await until(pilot, lambda: "meaning on 0% of texts" in filter_line(app), "the coverage note")
        assert "keyword; meaning on 0% of texts" in filter_line(app)
        # Filters that match nothing are not "still indexing": every file has been read.
        app.search_screen.set_query("webhook after:2w")
        await until(pilot, lambda: "after:2w" in note_text(app), "the note for an empty search")
        assert "No conversation matches the filter after:2w" in note_text(app)
        assert "refresh" not in note_text(app)
        # Nor does a list say more sessions may appear.
        await pilot.press("f3")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.counts is not None, "the sessions")
        count = str(app.screen.query_one("#sessions-count", Static).render())
        assert "15 sessions" in count and "more may appear" not in count
        library.go_on.set()  # quitting now stops phase 2 within a batch


@pytest.fixture(scope="module")
def corpus(demo_copy):
    return demo_copy


@run_async
async def test_a_re_run_with_the_same_leading_results_keeps_the_open_card_and_the_scroll(corpus):
    app = make_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "test")  # a word many sessions share: more cards than the screen
        assert len(cards) >= 7
        await pilot.press(*["down"] * 7)
        await pilot.press("enter")  # the seventh card open, the list scrolled to it
        await settle(pilot)
        card = app.search_screen.cards()[6]
        results = app.search_screen.query_one("#results")
        assert card.expanded and results.scroll_y > 0
        scrolled = results.scroll_y
        app.search_screen.follow_index()  # what the app does when the index moved
        await settle(pilot)
        assert app.search_screen.cards()[6] is card and card.expanded
        assert app.focused is card or card in app.focused.ancestors_with_self
        assert results.scroll_y == scrolled


@run_async
async def test_results_that_moved_wait_while_the_cursor_is_on_a_card_and_show_back_in_the_query(corpus):
    """Phase 2 adding vectors re-ran the query every few seconds and the list moved
    under a reader who had not pressed a key (second new-user pass)."""
    from convo_tui.tui.screens.search_view import hit_key

    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "test")
        before = [hit_key(card.hit) for card in cards]
        assert len(before) >= 3
        await pilot.press("down")  # the reader is on the first card
        real = library.search
        library.search = lambda *args, **kwargs: list(reversed(real(*args, **kwargs)))  # the index moved: others lead
        try:
            app.search_screen.follow_index()  # what the app does when vectors were added
            await settle(pilot)
            assert [hit_key(card.hit) for card in app.search_screen.cards()] == before
            await pilot.press("up")  # back in the query: what waited shows
            await settle(pilot)
            assert [hit_key(card.hit) for card in app.search_screen.cards()] == before[::-1]
        finally:
            del library.search


@run_async
async def test_the_coverage_note_and_nothing_found_while_vectors_are_added(corpus):
    from convo_tui.core.engine import Readiness

    app = make_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await search(pilot, "Decimal rounding")
        state = app.index_state
        state.read(Readiness(sessions=15, texts_ready=35, texts_total=100, model="m", model_reason="r"))
        app.search_screen.show_coverage()
        assert "keyword; meaning on 35% of texts" in filter_line(app)
        app.mode = "keyword"
        app.search_screen.show_coverage()
        assert "meaning on" not in filter_line(app)
        app.mode = "hybrid"
        state.read(Readiness(sessions=15, texts_ready=100, texts_total=100, model="m", model_reason="r"))
        app.search_screen.show_coverage()
        assert "meaning on" not in filter_line(app)
        await search(pilot, "zzqqxxnonsense")
        assert note_text(app) == "No matching conversations. Misspelt? Fuzzy mode (F2) matches near spellings."


class HeldLibrary(PausedLibrary):
    """Also stops the first run (the test's, standing for an `index` the app is served
    by) before it reads a file, so that the app's own run waits for it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.holding = threading.Event()
        self.release = threading.Event()

    def index(self, paths=None, *, progress=None, cancel=None, rebuild=False, semantic=True):
        def told(event) -> None:
            if progress is not None:
                progress(event)
            if event.phase == "scan" and not self.release.is_set():
                self.holding.set()
                self.release.wait(120)

        return super().index(paths, progress=told, cancel=cancel, rebuild=rebuild, semantic=semantic)


@run_async
async def test_results_follow_another_run_while_the_apps_own_run_waits_for_it(tmp_path):
    """The app's run waits ("wait") while another run publishes: no progress event comes,
    yet the results must refresh (they stayed empty until that run ended)."""
    with utc_clock():
        corpus = copy_demo(tmp_path)
        settings = Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False, debounce_ms=0)
        library = HeldLibrary.open(settings)
        library.load_model()
        other = threading.Thread(target=library.index, daemon=True)
        try:
            other.start()
            assert library.holding.wait(60)
            app = create_app(settings, library=library)
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: app.index_state.waiting, "the app's run to wait")
                app.search_screen.set_query("qdrant")
                await pilot.pause()
                assert not app.search_screen.cards()
                library.release.set()  # the other run publishes every session, then stops at phase 2
                await until(pilot, lambda: library.paused.is_set(), "the other run's phase 2")
                await until(pilot, lambda: bool(app.search_screen.cards()), "the results to refresh")
                assert app.index_state.waiting and not library.go_on.is_set()
                # The status says how far the other run is, not only that it waits.
                label = lambda: str(app.search_screen.query_one("#index-label").render())  # noqa: E731
                await until(pilot, lambda: "15 sessions searchable" in label(), "the other run's progress")
                assert label().startswith("Indexing (another run): 15 sessions searchable · semantic 0/")
                library.go_on.set()
        finally:
            library.release.set()
            library.go_on.set()
            other.join(120)
            library.close()
