"""A hybrid query shows its keyword results first, then the hybrid ones in their place,
while hybrid search is slow (issue 25: at a million messages the keyword pass is a
quarter of a hybrid search); once it is fast, a query searches once.

The library is the real one over the demo index; the tests only hold a pass of it
back (an Event) so that what the screen shows between the two passes can be read,
whatever the machine's speed."""

from __future__ import annotations

import threading

import pytest

from tests.helpers.app import make_app, run_async, settle, until
from tests.tui.test_search_view import text_of

SIZE = (100, 32)


@pytest.fixture(scope="module")
def corpus(demo_copy):
    return demo_copy


class HeldSearch:
    """The library's own search, recording each call's (query, mode); the calls that
    `hold(query, mode)` names wait until `release()`."""

    def __init__(self, library) -> None:
        self.library = library
        self.real = library.search
        self.calls: list[tuple[str, str]] = []
        self.held: set[tuple[str, str]] = set()
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def __call__(self, query, *args, mode="hybrid", **kwargs):
        self.calls.append((query, mode))
        if (query, mode) in self.held:
            self.waiting.set()
            assert self.gate.wait(60), "the test never let the held search go on"
        return self.real(query, *args, mode=mode, **kwargs)

    def __enter__(self) -> HeldSearch:
        self.library.search = self
        return self

    def __exit__(self, *exc) -> None:
        self.gate.set()
        del self.library.search  # the instance attribute goes: the class's method again


def keys(hits) -> list[tuple[str, int]]:
    return [(hit.session_id, hit.turn_index) for hit in hits]


async def keyword_pass_shown(pilot, held: HeldSearch, query: str):
    """Type `query` with its hybrid pass held back; the screen once its keyword pass is shown."""
    held.held.add((query, "hybrid"))
    await settle(pilot)
    screen = pilot.app.search_screen
    screen.set_query(query)
    await until(pilot, lambda: screen.hits and held.waiting.is_set(), "the keyword pass shown")
    return screen


async def hybrid_pass_shown(pilot, held: HeldSearch) -> None:
    held.gate.set()
    await until(pilot, lambda: pilot.app.search_screen.settled, "the hybrid pass shown")
    await settle(pilot)


@run_async
async def test_keyword_results_show_first_then_the_hybrid_ones_with_the_selection_kept(corpus):
    settings, library = corpus
    query = "postgres index"
    keyword = library.search(query, limit=settings.search_limit, mode="keyword")
    hybrid = library.search(query, limit=settings.search_limit, mode="hybrid")
    assert keyword and hybrid and keys(keyword) != keys(hybrid), "the query must rank differently in the two modes"
    app = make_app(corpus)
    with HeldSearch(library) as held:
        async with app.run_test(size=SIZE) as pilot:
            screen = await keyword_pass_shown(pilot, held, query)
            assert keys(screen.hits) == keys(keyword)
            assert not screen.settled
            # The reader moves to a card the hybrid pass also finds, before it arrives.
            chosen = next(i for i, hit in enumerate(screen.cards()) if keys([hit.hit])[0] in keys(hybrid) and i > 0)
            screen.select_card(screen.cards()[chosen])
            picked = keys([screen.cards()[chosen].hit])[0]
            await hybrid_pass_shown(pilot, held)
            assert keys(screen.hits) == keys(hybrid)
            assert [keys([card.hit])[0] for card in screen.cards()] == keys(hybrid)
            current = screen.current_card()
            assert current is not None and keys([current.hit])[0] == picked
            assert app.focused is current
    assert held.calls == [(query, "keyword"), (query, "hybrid")]


@run_async
async def test_a_query_no_word_of_which_is_indexed_waits_for_meaning_without_saying_nothing_found(corpus):
    settings, library = corpus
    query = "金额舍入误差"  # "rounding errors in amounts": the Decimal session, in words it never uses
    assert not library.search(query, limit=settings.search_limit, mode="keyword")
    app = make_app(corpus)
    with HeldSearch(library) as held:
        held.held.add((query, "hybrid"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = app.search_screen
            placeholder = text_of(screen.query_one("#results-note"))
            screen.set_query(query)
            await until(pilot, held.waiting.is_set, "the hybrid pass started")
            await pilot.pause()
            assert screen.hits == [] and not screen.settled
            assert text_of(screen.query_one("#results-note")) == placeholder  # no "nothing found" before meaning
            await hybrid_pass_shown(pilot, held)
            assert screen.cards()
            assert "rounding" in screen.cards()[0].hit.session_title


@run_async
async def test_a_key_typed_during_the_keyword_pass_skips_that_querys_hybrid_pass(corpus):
    _, library = corpus
    app = make_app(corpus)
    with HeldSearch(library) as held:
        held.held.add(("Decimal", "keyword"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = app.search_screen
            screen.set_query("Decimal")
            await until(pilot, held.waiting.is_set, "the first keyword pass started")
            screen.set_query("Decimal rounding")
            await until(pilot, lambda: ("Decimal rounding", "hybrid") in held.calls, "the second query's hybrid pass")
            held.gate.set()
            await settle(pilot)
            assert screen.settled and screen.query_text == "Decimal rounding"
    assert ("Decimal", "hybrid") not in held.calls
    assert held.calls.count(("Decimal rounding", "hybrid")) == 1


@run_async
async def test_keyword_and_semantic_modes_search_once(corpus):
    _, library = corpus
    for mode in ("keyword", "semantic"):
        app = make_app(corpus, search_mode=mode)
        with HeldSearch(library) as held:
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                app.search_screen.set_query("Decimal rounding")
                await settle(pilot)
                assert app.search_screen.cards() and app.search_screen.settled
        assert held.calls == [("Decimal rounding", mode)]


@run_async
async def test_enter_while_the_hybrid_pass_runs_goes_to_the_first_result_at_once(corpus):
    _, library = corpus
    query = "postgres index"
    app = make_app(corpus)
    with HeldSearch(library) as held:
        async with app.run_test(size=SIZE) as pilot:
            screen = await keyword_pass_shown(pilot, held, query)
            await pilot.press("enter")
            await pilot.pause()
            first = screen.cards()[0]
            assert app.focused is first
            chosen = keys([first.hit])  # the card widget is refilled by the next pass: its hit, not it
            await hybrid_pass_shown(pilot, held)
            assert screen.current_card() is not None and app.focused is screen.current_card()
            assert keys([screen.current_card().hit]) == chosen  # the selection stays on its result


@run_async
async def test_the_keyword_pass_runs_only_while_the_last_hybrid_search_was_slow(corpus):
    _, library = corpus
    app = make_app(corpus)
    with HeldSearch(library) as held:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = app.search_screen
            assert screen.pace.last_ms is None  # nothing measured yet: the first query has its keyword pass
            for query, last_ms in (("Decimal", None), ("Decimal rounding", 20.0), ("postgres index", 400.0)):
                screen.pace.last_ms = last_ms
                screen.set_query(query)
                await until(pilot, lambda query=query: (query, "hybrid") in held.calls and screen.settled, query)
                await settle(pilot)
                assert screen.cards()
            assert screen.pace.last_ms is not None and screen.pace.last_ms != 400.0  # the real search measured
    assert held.calls == [
        ("Decimal", "keyword"),
        ("Decimal", "hybrid"),
        ("Decimal rounding", "hybrid"),  # the last hybrid search took 20 ms: no keyword pass
        ("postgres index", "keyword"),
        ("postgres index", "hybrid"),
    ]
