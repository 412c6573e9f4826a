"""The search screen's views: dense cards with matched snippets, the compact list and its preview,
sort by date, and keyword answers while the model loads (issue 14)."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from convo_tui.core.history import ViewState
from convo_tui.tui.app import create_app
from convo_tui.tui.screens.search_view import DATE_POOL, hit_key
from convo_tui.tui.widgets.card import ResultCard
from convo_tui.tui.widgets.preview import HitPreview
from textual.widgets import Static

from tests.helpers.app import make_app, run_async, search, settle, until
from tests.helpers.index_copy import copy_index

SIZE = (80, 24)


@pytest.fixture(scope="module")
def corpus(demo_copy):
    """This module's own copy of the demo index (tests/conftest.py)."""
    return demo_copy


def text_of(widget: Static) -> str:
    return str(widget.render())


@run_async
async def test_cards_are_four_rows_and_show_the_matched_part(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "test")  # a word many sessions share: a full first screen
        assert all(card.outer_size.height <= 4 for card in cards)
        visible = [c for c in cards if c.region.height and c.region.bottom <= SIZE[1] - 2]
        assert len(visible) >= 4  # at 80x24 four whole cards on the first screen (two before)
        cards = await search(pilot, "hmac")
        deep = [
            (card, " ".join(card.hit.ai_text.split()))
            for card in cards
            if "hmac" in card.hit.ai_text and " ".join(card.hit.ai_text.split()).find("hmac") > 80
        ]
        assert deep, "the corpus has an answer that mentions the term past its first line"
        for card, _ in deep:
            ai_row = next(line for line in card._summary().split("\n") if line.plain.startswith("🤖 "))
            text = ai_row.plain.removeprefix("🤖 ")
            assert text.startswith("…") and 0 < text.find("hmac") < 50  # on the card line at 80 columns
            assert any(span.style == "reverse" for span in ai_row.spans)


@run_async
async def test_compact_list_has_one_line_a_result_a_preview_and_is_remembered(corpus):
    app = make_app(corpus)
    async with app.run_test(size=(120, 36)) as pilot:  # the preview pane needs 100 columns
        await settle(pilot)
        cards = await search(pilot, "Decimal rounding")
        await pilot.press("f4")
        await settle(pilot)
        assert app.search_screen.has_class("-compact-list")
        assert all(card.outer_size.height == 1 for card in cards)
        await pilot.press("down", "down")
        await pilot.pause()
        preview = app.search_screen.query_one(HitPreview)
        assert preview.display
        shown = str(preview.query_one("#preview-text", Static).render())
        assert shown.startswith(cards[1].hit.session_title)
        typed_query = app.search_screen.query_text
    assert ViewState().compact is True  # the next run opens in the compact list
    again = make_app(corpus)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.search_screen.has_class("-compact-list")
        await search(pilot, typed_query)
        await pilot.press("f4")
        await settle(pilot)
        assert not again.search_screen.has_class("-compact-list")
        assert not again.search_screen.query_one(HitPreview).display
    assert ViewState().compact is False


@run_async
async def test_sort_by_date_shows_the_same_results_newest_first(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        by_relevance = [c.hit for c in await search(pilot, "checkout")]
        await pilot.press("f6")
        await settle(pilot)
        by_date = [c.hit for c in app.search_screen.cards()]
        assert sorted(map(id, by_date)) == sorted(map(id, by_relevance))
        stamps = [h.timestamp for h in by_date if h.timestamp]
        assert stamps == sorted(stamps, reverse=True)
        assert "newest first" in str(app.search_screen.query_one("#filter-line", Static).render())
        await pilot.press("f6")
        await settle(pilot)
        assert [c.hit for c in app.search_screen.cards()] == by_relevance


@run_async
async def test_newest_first_shows_the_newest_of_all_the_answers_not_of_the_page_shown(corpus):
    """A page of two ordered by date showed the newer of those two."""
    _, library = corpus
    app = make_app(corpus, search_limit=2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(await search(pilot, "test")) == 2
        await pilot.press("f6")
        await settle(pilot)
        answers = library.search("test", limit=DATE_POOL, mode=app.mode)
        assert len(answers) > 2
        by_date = sorted(answers, key=lambda h: h.timestamp.timestamp() if h.timestamp else float("-inf"), reverse=True)
        shown = [c.hit for c in app.search_screen.cards()]
        # The newest page of all the answers: cards for the page only (for all 50 a key took twice as long).
        assert [h.timestamp for h in shown] == [h.timestamp for h in by_date[:2]]
        cards = app.search_screen.cards()
        cards[-1].focus()
        await pilot.press("down")  # the next page of the pool, no search
        await settle(pilot)
        assert [c.hit.timestamp for c in app.search_screen.cards()] == [h.timestamp for h in by_date[:4]]
        await pilot.press("f6")  # by relevance again (the view is remembered: as it was): the deeper page, ranked
        await settle(pilot)
        assert [hit_key(c.hit) for c in app.search_screen.cards()] == [hit_key(h) for h in answers]


@run_async
async def test_f6_keeps_the_result_under_the_cursor(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "test")
        assert len(cards) >= 4
        cards[3].focus()
        chosen = hit_key(cards[3].hit)
        for _ in range(2):  # newest first, then by relevance again
            await pilot.press("f6")
            await settle(pilot)
            focused = app.search_screen.card_of(app.focused)
            assert focused is not None and hit_key(focused.hit) == chosen


@run_async
async def test_keyword_search_answers_while_the_model_is_still_loading(corpus, monkeypatch, tmp_path):
    """The model load is held on a gate: a typed query still gets keyword results meanwhile."""

    import convo_tui.core.embed.dense as embed
    from convo_tui.core.library import Library

    settings, _ = corpus
    index_copy = tmp_path / "index"
    copy_index(settings.index_dir, index_copy, skip=("*.lock", "lock", "*.sock"))
    copy_settings = dataclasses.replace(settings, index_dir=index_copy, debounce_ms=0)
    gate = threading.Event()
    real_shared_dense = embed.shared_dense

    def gated_shared_dense(model):
        gate.wait(timeout=60)  # the model's load, held until the test lets it finish
        return real_shared_dense(model)

    monkeypatch.setattr(embed, "shared_dense", gated_shared_dense)
    fresh = Library.open(copy_settings)
    try:
        app = create_app(copy_settings, library=fresh, index_on_start=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert not app.model_ready
            app.search_screen.set_query("Decimal rounding")
            # The search workers only (the model's is still held); a second search may start
            # when the app sees the index open, so wait for the results rather than one worker.
            await until(pilot, lambda: bool(app.search_screen.cards()), "keyword results")
            assert not app.model_ready
            cards = app.search_screen.cards()
            assert cards and cards[0].hit.session_title == "Fix checkout rounding with Decimal"
            assert "keyword until the model loads" in text_of(app.search_screen.query_one("#filter-line", Static))
            gate.set()
            await settle(pilot)
            assert app.model_ready
            assert "keyword until" not in text_of(app.search_screen.query_one("#filter-line", Static))
    finally:
        gate.set()
        fresh.close()


def test_result_card_keeps_no_printable_keys():
    assert [b.key for b in ResultCard.BINDINGS] == ["enter"]


@run_async
async def test_a_card_opened_then_closed_is_one_line_in_the_compact_list(corpus):
    """Enter, Enter, F4: the closed card kept its two text rows in the compact list
    (an inline display set back on collapse outweighed the list's rule)."""
    app = make_app(corpus)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "Decimal rounding")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert cards[0].expanded
        await pilot.press("enter")
        await settle(pilot)
        assert not cards[0].expanded and cards[0].outer_size.height > 1
        await pilot.press("f4")
        await settle(pilot)
        assert all(card.outer_size.height == 1 for card in cards), [c.outer_size.height for c in cards]
        await pilot.press("f4")
        await settle(pilot)
    assert ViewState().compact is False
