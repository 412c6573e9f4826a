"""The app driven as a user would, over the real Library on the demo corpus."""

from __future__ import annotations

import re

import pytest
from convo_tui.tui.app import create_app
from convo_tui.tui.messages import IndexingProgress
from convo_tui.tui.screens.help import HelpScreen
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.screens.search import SearchScreen
from convo_tui.tui.widgets.card import ResultCard
from convo_tui.tui.widgets.index_status import progress_label
from convo_tui.tui.widgets.message_block import MessageBlock
from convo_tui.tui.widgets.session_view import TurnView
from convo_tui.tui.widgets.tool_call import ToolCallView
from convo_tui.tui.widgets.turn_detail import TurnDetail
from textual.widgets import DataTable, Input, Static

from tests.helpers.app import focus_card, make_app, run_async, search, settle, workers_done
from tests.helpers.demo_corpus import copy_demo, utc_clock

SIZE = (100, 32)


@pytest.fixture(scope="module")
def corpus(demo_index):
    """The run's shared demo index (tests/conftest.py; debounce_ms = 0), dates shown in UTC."""
    with utc_clock():
        yield demo_index


@run_async
async def test_typing_a_query_shows_matching_cards(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"flaky coupon test on CI")
        await settle(pilot)
        cards = app.search_screen.cards()
        assert cards, "no cards"
        top = cards[0].hit
        assert top.session_title.startswith("The checkout test `test_apply_coupon_twice` is flaky")
        assert top.turn_index == 0
        line = str(app.screen.query_one("#filter-line", Static).render())
        # "N results", or "N+ results" when a full page came back (more on ↓ past the last).
        assert "hybrid" in line and re.search(rf"\b{len(cards)}\+? results?\b", line), line


@run_async
async def test_enter_expands_a_card_into_messages_and_tool_calls(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "coupon registry flaky on CI")
        await pilot.press("down")
        assert app.focused is cards[0]
        await pilot.press("enter")
        await pilot.pause()
        detail = cards[0].query_one(TurnDetail)
        blocks = list(detail.query(MessageBlock))
        assert [(b.message.role, b.number) for b in blocks] == [("user", 0), ("assistant", 0), ("assistant", 1)]
        assert [t.tool.name for t in detail.query(ToolCallView)] == ["Read", "Grep"]
        assert any(b.matched for b in blocks)
        assert "💭" in str(blocks[1].query_one(".thinking", Static).render())
        await pilot.press("enter")
        await pilot.pause()
        assert not cards[0].query(TurnDetail)


@run_async
async def test_virtual_messages_are_shown_apart_and_not_numbered(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        card = await focus_card(pilot, "Docker image multi-stage build smaller", "Docker image size", turn=0)
        await pilot.press("enter")
        await pilot.pause()
        blocks = list(card.query(MessageBlock))
        asides = [b for b in blocks if b.number is None]
        assert [b.message.text for b in asides] == ["Want me to draft the Dockerfile?"]
        assert [(b.message.role, b.number) for b in blocks if b.number is not None] == [("user", 0), ("assistant", 0)]


@run_async
async def test_o_opens_the_reader_at_the_hit_turn_and_escape_keeps_the_search(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "is tax calculation the same Decimal change")
        card = next(c for c in cards if c.hit.session_title == "Fix checkout rounding with Decimal")
        assert card.hit.turn_index == 1
        card.focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        reader = app.screen
        assert isinstance(reader, ReaderScreen)
        assert reader.current_turn == 1
        assert reader.query_one("#turn-1", TurnView).has_class("-current")
        assert [v.index for v in reader.query(TurnView)] == [0, 1]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
        assert app.screen.query_one("#query", Input).value == "is tax calculation the same Decimal change"
        assert [c.hit for c in app.screen.cards()] == [c.hit for c in cards]


@run_async
async def test_n_and_shift_n_walk_the_hits_in_the_session(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_card(pilot, "Decimal", "Fix checkout rounding with Decimal")
        await pilot.press("ctrl+o")
        await settle(pilot)
        reader = app.screen
        assert reader.hit_turns == [0, 1]
        start = reader.current_turn
        await pilot.press("n")
        assert reader.current_turn == 1 - start
        await pilot.press("N")
        assert reader.current_turn == start
        assert reader.query_one(f"#turn-{start}", TurnView).has_class("-current")


@run_async
async def test_hiding_thinking_or_tools_keeps_the_message_at_the_top_where_it_was(corpus):
    """What is hidden above moved the rest: `t` jumped turns away (new-user pass)."""
    from convo_tui.tui.widgets.message_block import MessageBlock
    from textual.containers import VerticalScroll

    app = make_app(corpus)
    async with app.run_test(size=(80, 12)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "order total off by one cent")
        cards[0].focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        body = app.screen.query_one("#reader-body", VerticalScroll)
        blocks = list(app.screen.query(MessageBlock))
        thinking = next(i for i, block in enumerate(blocks) if block.query(".thinking"))
        last = blocks[thinking + 1]  # below a thinking and tool calls, with more below it
        body.scroll_to_widget(last, top=True, animate=False)
        await settle(pilot)
        assert body.scroll_y > 0
        for key in ("t", "w", "t", "w"):
            before = last.region.y
            await pilot.press(key)
            await settle(pilot)
            assert last.region.y == before, (key, before, last.region.y, body.scroll_y, body.max_scroll_y)


@run_async
async def test_the_reader_shows_the_tags_and_description_the_user_gave(corpus):
    """Set with `convo-tui session tag / describe`, they were shown nowhere in the app."""
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "order total off by one cent")
        session_id = cards[0].hit.session_id
        library.tag_session(session_id, ["billing", "money"])
        library.describe_session(session_id, "Checked with finance")
        try:
            cards[0].focus()
            await pilot.press("ctrl+o")
            await settle(pilot)
            head = str(app.screen.query_one("#reader-head", Static).render())
            assert "#billing #money · Checked with finance" in head
        finally:
            library.tag_session(session_id, ["billing", "money"], remove=True)
            library.describe_session(session_id, "")


@run_async
async def test_reader_toggles_thinking_and_search_in_session(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "Decimal rounding cent")
        cards[0].focus()
        session_id = cards[0].hit.session_id
        await pilot.press("ctrl+o")
        await settle(pilot)
        thinking = app.screen.query(".thinking").first()
        assert thinking.display
        await pilot.press("t")
        await pilot.pause()
        assert not thinking.display
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
        from convo_tui.core.search.query import session_filter

        assert app.screen.query_one("#query", Input).value == f"{session_filter(session_id)} "
        everywhere = await search(pilot, "test")
        assert {c.hit.session_id for c in everywhere} - {session_id}, "the query alone reaches other sessions"
        scoped = await search(pilot, f"{session_filter(session_id)} rounding")
        assert scoped and {c.hit.session_id for c in scoped} == {session_id}


@run_async
async def test_secrets_are_masked_and_revealed_on_demand(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_card(pilot, "test the auth middleware without a real token", "Add auth middleware to the API")
        await pilot.press("ctrl+o")
        await settle(pilot)
        texts = lambda: "\n".join(str(s.render()) for s in app.screen.query(".message-text"))  # noqa: E731
        assert "[REDACTED:openai-key sk-proj-…pQ6r]" in texts()
        assert "sk-proj-Xb7Qk2" not in texts()
        await pilot.press("v")
        await pilot.pause()
        assert "SHOPFRONT_API_TOKEN=sk-proj-Xb7Qk2LmN9pR4sT6vW8yZ1aC3dE5fG7hJ9kL2mN4pQ6r" in texts()


@run_async
async def test_copy_puts_the_turn_as_markdown_on_the_clipboard(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        card = await focus_card(pilot, "Postgres index concurrently without locking", "Postgres index for order search")
        await pilot.press("ctrl+y")
        await settle(pilot)
        clip = app.clipboard
        assert clip.startswith("# Postgres index for order search\n")
        assert f"## Turn {card.hit.turn_index}" in clip
        assert "**User [0]**" in clip and "**AI [0]**" in clip


@run_async
async def test_filter_line_shows_filters_and_mode_cycles(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "project:shopfront rounding")
        assert cards and {c.hit.project for c in cards} == {"shopfront"}
        line = str(app.screen.query_one("#filter-line", Static).render())
        assert "project:shopfront" in line
        await pilot.press("f2")
        await settle(pilot)
        assert app.mode == "semantic"
        assert "semantic" in str(app.screen.query_one("#filter-line", Static).render())


@run_async
async def test_bad_filter_is_shown_not_raised(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "role:robot hello")
        line = str(app.screen.query_one("#filter-line", Static).render())
        assert "role:robot is not a role" in line


@run_async
async def test_keys_can_be_remapped_by_binding_id(corpus):
    app = make_app(corpus, keys={"app.mode": "f9"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        assert app.mode == "hybrid"
        await pilot.press("f9")
        assert app.mode == "semantic"


@run_async
async def test_help_lists_the_keys_with_their_ids(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one("#help-table", DataTable)
        rows = [tuple(table.get_row_at(i)) for i in range(table.row_count)]
        assert ("f2", "Mode", "app.mode") in rows
        assert ("f3", "Sessions", "app.sessions") in rows
        await pilot.press("end")  # the last row (DataTable's own End went to the last column)
        assert table.cursor_row == table.row_count - 1 > 0
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)


@run_async
async def test_app_opens_the_index_and_indexes_in_the_background(tmp_path):
    with utc_clock():
        corpus = copy_demo(tmp_path)
        from convo_tui.core.settings import Settings

        settings = Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False, debounce_ms=0)
        app = create_app(settings)
        told = []  # the indexing progress the status line was given
        hook = lambda message: told.append(message) if isinstance(message, IndexingProgress) else None  # noqa: E731
        async with app.run_test(size=SIZE, message_hook=hook) as pilot:
            await pilot.pause()
            # First paint happened with the index still opening in a worker.
            assert isinstance(app.screen, SearchScreen)
            while app.library is None or not app.model_ready or app.indexing:
                await workers_done(app)
                await pilot.pause()
            assert app.search_screen.query_one("#index-status").has_class("-done")
            assert len(app.library.sessions()) == 15
            # Both phases reached the status line: sessions searchable by keyword, then the semantic count.
            labels = [progress_label(m.phase, m.done, m.total, m.sessions, m.eta) for m in told]
            assert any(label.endswith("15 sessions searchable") for label in labels), labels
            assert any(label.startswith("Keyword search ready · semantic ") for label in labels), labels
            cards = await search(pilot, "Redis 缓存击穿")
            assert cards[0].hit.session_title == "Redis 缓存什么时候失效比较合适？"


@run_async
async def test_reader_renames_stars_remembers_settings_and_asks_before_delete(corpus):
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "Postgres index concurrently without locking")
        card = next(c for c in cards if c.hit.session_title == "Postgres index for order search")
        session_id = card.hit.session_id
        card.focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        try:
            await pilot.press("ctrl+l", "ctrl+u", *"Email index", "enter")
            await settle(pilot)  # the reader writes to the index in a worker
            assert library.session_summary(session_id).title == "Email index"
            await pilot.press("ctrl+b")
            await settle(pilot)
            assert library.session_summary(session_id).starred is True
            await pilot.press("w")
            await settle(pilot)
            assert library.session_settings(session_id)["hide_tools"] is True
            await pilot.press("d")
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            assert isinstance(app.screen, ReaderScreen)
            assert library.session_summary(session_id).title == "Email index"
        finally:
            library.rename_session(session_id, "")
            library.star_session(session_id, False)
            library.set_session_settings(session_id, hide_tools=False)


def test_card_text_is_clipped_to_a_character_budget_on_a_word():
    from convo_tui.tui.render import clip_chars

    assert clip_chars("one two three", 3, 100) == "one two three"
    assert clip_chars("a\nb\n\nc\nd", 3, 100) == "a\nb\nc …"
    assert clip_chars("alpha beta gamma delta", 3, 14) == "alpha beta…"
    assert clip_chars("x" * 30, 3, 10) == "x" * 9 + "…"
    assert clip_chars("12345\n" + "word " * 10, 3, 20) == "12345\nword word word…"


@run_async
async def test_enter_typed_before_the_results_arrive_still_moves_to_the_first_card(corpus):
    app = make_app(corpus, debounce_ms=60_000)  # Enter surely lands inside the debounce
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.search_screen.generation
        await pilot.press(*"keyset pagination", "enter")
        assert app.search_screen.generation == before  # no search started yet
        app.search_screen.refresh_search()  # what the debounce timer does when it ends
        await settle(pilot)
        cards = app.search_screen.cards()
        assert cards and app.focused is cards[0]
        assert cards[0].hit.session_title == "Pagination for the orders API"


@run_async
async def test_escape_from_a_tool_call_collapses_its_card_and_keeps_the_query(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "coupon registry flaky")
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        card = cards[1]
        assert card.expanded
        await pilot.press("tab")
        assert app.focused is not card and card in app.focused.ancestors
        await pilot.press("escape")
        await pilot.pause()
        assert not card.expanded and app.focused is card
        assert app.search_screen.query_one("#query", Input).value == "coupon registry flaky"


@run_async
async def test_a_new_search_refills_the_same_cards_and_hides_the_unused_ones(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = await search(pilot, "test")  # a word many sessions share
        assert len(first) >= 5
        pool = list(app.search_screen.query(ResultCard))
        fewer = await search(pilot, "project:support-bot Redis")
        assert 0 < len(fewer) < len(first)
        assert list(app.search_screen.query(ResultCard)) == pool  # nothing removed or mounted
        assert fewer == pool[: len(fewer)]
        assert all(not card.display for card in pool[len(fewer) :])
        assert {c.hit.project for c in fewer} == {"support-bot"}
        again = await search(pilot, "test")
        assert again == pool[: len(first)] and [c.hit for c in again] == [c.hit for c in first]
        none = await search(pilot, "project:no-such-project coupon")
        assert none == []
        # The filter itself matches nothing: said so, rather than "no matching conversations"
        note = str(app.search_screen.query_one("#results-note", Static).render())
        assert "project:no-such-project is no indexed project: F3 or `convo-tui sessions` lists them" in note
        none = await search(pilot, "coupon project:Support-Bot")  # names compare as they are: the one meant
        assert none == []
        note = str(app.search_screen.query_one("#results-note", Static).render())
        assert "project:Support-Bot is no indexed project: did you mean project:support-bot?" in note
        none = await search(pilot, "coupon project:support-bot after:2030-01-01")  # a project that is one
        note = str(app.search_screen.query_one("#results-note", Static).render())
        assert "No conversation matches the filter" in note
        none = await search(pilot, "coupon machine:devbox")  # no other machine is set up
        note = str(app.search_screen.query_one("#results-note", Static).render())
        assert "machine:devbox is no machine convo-tui pulls from: no other machine is set up" in note
        none = await search(pilot, "coupon tag:nosuch-zz")  # a tag no session has
        note = str(app.search_screen.query_one("#results-note", Static).render())
        assert "tag:nosuch-zz is no tag of any session" in note
        none = await search(pilot, "coupon source:claude")  # the source's name mistyped: the names it meant
        assert none == []
        note = str(app.search_screen.query_one("#results-note", Static).render())
        assert "source:claude is no source convo-tui reads: did you mean source:claude-ai or source:claude-code" in note
        none = await search(pilot, "project:support-bot xkcdqwpfl")
        assert none == []
        assert "No matching conversations" in str(app.search_screen.query_one("#results-note", Static).render())


@run_async
async def test_a_result_from_an_older_search_never_replaces_a_newer_one(corpus):
    from convo_tui.tui.messages import SearchFinished, SearchOutcome

    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "Decimal rounding")
        screen = app.search_screen
        shown = [c.hit for c in cards]
        assert len(shown) > 1 and shown != list(reversed(shown))
        stale = SearchOutcome("Decimal rounding", app.mode, list(reversed(shown)), generation=screen.generation - 1)
        screen.post_message(SearchFinished(stale))
        await settle(pilot)
        assert [c.hit for c in screen.cards()] == shown


def test_icon_lines_put_each_text_on_its_own_line_after_its_icon():
    from convo_tui.tui.render import icon_lines
    from textual.content import Content

    summary = icon_lines([("👤", Content("question")), ("🔎", Content.styled("tool: ", "bold") + Content("out"))])
    assert summary.plain == "👤 question\n🔎 tool: out"  # the icon and a space fill three cells
    assert [span.style for span in summary.spans] == ["bold"]


@run_async
async def test_a_card_cuts_each_summary_line_at_its_edge(corpus):
    """A long question or answer stays one row, ended with "…" where the card ends."""
    from rich.cells import cell_len

    app = make_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "hmac")
        summary = cards[0].query_one(".card-summary", Static)
        rows = [summary.render_line(y).text.rstrip() for y in range(summary.size.height)]
        assert len(rows) == len(summary.render().plain.splitlines()) >= 2  # one row a line
        assert any(row.endswith("…") for row in rows)
        assert all(cell_len(row) <= summary.size.width for row in rows)


@run_async
async def test_card_header_cuts_the_title_and_right_aligns_the_score(corpus):
    from convo_tui.tui.widgets.card_header import SCORE_WIDTH, CardHeader

    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = await search(pilot, "flaky coupon test on CI")
        header = cards[0].query_one(CardHeader)
        width = header.size.width
        room = width - SCORE_WIDTH
        title = cards[0].hit.session_title
        assert len(title) > room  # long enough to be cut
        line = header.render().plain
        assert len(line) == width
        assert line[:room] == title[: room - 1] + "…"
        assert line.endswith(f" {cards[0].hit.score:.2f}") and line[room:].strip().startswith("█")
        unscored = await search(pilot, "project:support-bot")
        header = unscored[0].query_one(CardHeader)
        line = header.render().plain
        assert line.rstrip() == unscored[0].hit.session_title[:width] and len(line) == width


@run_async
async def test_cards_name_project_and_date_after_the_terminal_shrinks_behind_another_screen(corpus):
    """On a short terminal the card's meta line is hidden and its first line names
    project and date; a resize while the sessions browser covered the results
    left the cards drawn for the tall terminal, so neither showed them."""
    app = make_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        cards = await search(pilot, "qdrant")
        assert cards and not cards[0].dense
        await pilot.press("f3")
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen) and app.short
        assert all(card.dense for card in cards)
        assert cards[0].hit.project in str(cards[0].query_one(".card-top").render())
