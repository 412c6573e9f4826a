"""The sessions browser (F3) driven as a user would, over the real Library on the demo corpus."""

from __future__ import annotations

import dataclasses
import io
import threading

import pytest
from convo_tui.core.settings import Settings
from convo_tui.tui.app import create_app
from convo_tui.tui.dialogs import ConfirmScreen
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.screens.search import SearchScreen
from convo_tui.tui.screens.sessions import SessionsScreen
from convo_tui.tui.widgets.session_list import ROWS
from textual.widgets import Static

from tests.helpers.app import run_async, settle, until, workers_done
from tests.helpers.demo_corpus import copy_demo, demo_library, utc_clock

SIZE = (100, 32)


@pytest.fixture(scope="module")
def corpus(demo_copy):
    """This module's own copy of the demo index (tests/conftest.py)."""
    return demo_copy


def make_app(corpus, **changes):
    settings, library = corpus
    return create_app(dataclasses.replace(settings, **changes), library=library, index_on_start=False)


async def open_browser(pilot) -> SessionsScreen:
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


def highlighted_title(screen: SessionsScreen) -> str:
    summary = screen._highlighted()
    assert summary is not None
    return summary.title


def count_line(screen: SessionsScreen) -> str:
    return str(screen.query_one("#sessions-count", Static).render())


@run_async
async def test_the_list_is_read_in_a_worker_newest_first(corpus):
    _, library = corpus
    app = make_app(corpus)
    threads: list[bool] = []
    original = library.session_page

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return original(*args, **kwargs)

    library.session_page = recorded
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_browser(pilot)
            assert threads and not any(threads), "the store was asked on the UI thread"
            shown = screen.shown()
            assert len(shown) == 15
            stamps = [(s.updated_at or s.started_at).timestamp() for s in shown if s.updated_at or s.started_at]
            assert stamps == sorted(stamps, reverse=True)
            assert "15 sessions · by date" in count_line(screen)
    finally:
        del library.session_page


@run_async
async def test_s_while_filtered_says_when_the_sort_applies(corpus):
    """Filtered, the list is by match: `s` seemed to do nothing."""
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        await pilot.press("down", *"fix")  # letters typed on the list go into the filter
        await settle(pilot)
        screen.listing.focus()
        await pilot.press("s")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert any(note.endswith("once the filter is cleared (now: best match first)") for note in said), said
        await pilot.press("s", "s")  # the sort as it was for the other tests
        await settle(pilot)


@run_async
async def test_s_cycles_the_sort_and_f_keeps_only_starred_sessions(corpus):
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        listing = screen.listing
        await pilot.press("down", "s")
        titles = [s.title.casefold() for s in screen.shown()]
        assert titles == sorted(titles) and "by title" in count_line(screen)
        await pilot.press("s")
        entries = [screen.entry_at(i) for i in range(listing.count)]
        headers = [entry.header for entry in entries if entry.header is not None]
        assert sorted(headers) == ["ChatGPT", "recall", "shopfront", "support-bot"]
        assert listing.count == 15 + 4
        await pilot.press("s")
        assert "by date" in count_line(screen)
        await pilot.press("g", "j", "j")
        starred_id = screen._highlighted_id()
        try:
            await pilot.press("ctrl+b")
            await settle(pilot)
            assert library.session_summary(starred_id).starred
            await pilot.press("f")
            assert [s.id for s in screen.shown()] == [starred_id]
            assert "1 of 15 sessions" in count_line(screen) and "starred only" in count_line(screen)
            await pilot.press("f")
            assert len(screen.shown()) == 15
            assert screen._highlighted_id() == starred_id  # the reload kept the cursor on its row
        finally:
            library.star_session(starred_id, False)


@run_async
async def test_j_k_g_shift_g_move_through_the_list(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        shown = screen.shown()
        await pilot.press("down")  # from the filter box onto the first row
        assert screen._highlighted_id() == shown[0].id
        await pilot.press("j", "j")
        assert screen._highlighted_id() == shown[2].id
        await pilot.press("k")
        assert screen._highlighted_id() == shown[1].id
        await pilot.press("G")
        assert screen._highlighted_id() == shown[-1].id
        await pilot.press("g")
        assert screen._highlighted_id() == shown[0].id
        await pilot.press("slash", *"jk")  # in the filter box j and k are letters
        assert screen.query_one("#session-filter").value == "jk"


@run_async
async def test_grouped_by_project_g_and_k_show_the_groups_header(corpus):
    """`g` from the bottom of the grouped list scrolled the first session to the top
    row: the first project's header was off screen."""
    app = make_app(corpus)
    async with app.run_test(size=(100, 12)) as pilot:  # a list shorter than the grouped entries
        screen = await open_browser(pilot)
        await pilot.press("down", "s", "s")  # by project
        await settle(pilot)
        listing = screen.listing
        assert listing.count * ROWS > listing.size.height
        await pilot.press("G")
        await settle(pilot)
        assert listing.scroll_offset.y > 0
        await pilot.press("g")
        await settle(pilot)
        assert listing.highlighted == 1 and listing.scroll_offset.y == 0  # the header (row 0) in view
        # Up onto a group's first session: its header comes into view with it.
        await pilot.press("G")
        await settle(pilot)
        first_of_last_group = max(i for i in range(listing.count) if screen.entry_at(i).header is not None) + 1
        while listing.highlighted > first_of_last_group:
            await pilot.press("k")
        await settle(pilot)
        assert listing.scroll_offset.y <= (first_of_last_group - 1) * ROWS


@run_async
async def test_a_word_typed_on_the_list_filters_and_deletes_nothing(corpus):
    """A person who went down to the list and types "dyn" to filter: no letter of it is
    a command there ("d" was delete and "y" its yes), it goes into the filter box."""
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        before = len(library.sessions())
        await pilot.press("down", *"dyn")
        await settle(pilot)
        assert screen.query_one("#session-filter").value == "dyn"
        assert screen.query_one("#session-filter").has_focus
        assert not isinstance(app.screen, ConfirmScreen)
        assert len(library.sessions()) == before  # nothing deleted


@run_async
async def test_on_the_list_bound_keys_act_and_a_burst_of_letters_all_reach_the_filter(corpus):
    from convo_tui.tui.screens.help import HelpScreen
    from textual import events

    app = make_app(corpus, keys={"sessions.sort": "o"})  # the sort on another key: it still sorts
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        assert app.browser.sort == "date"
        await pilot.press("down", "o")
        await settle(pilot)
        assert app.browser.sort == "title" and screen.query_one("#session-filter").value == ""
        await pilot.press("question_mark")  # help, as anywhere without a text box focused
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        screen.listing.focus()
        await pilot.pause()
        for char in "bux":  # all at once: the first moves the focus, the others must find it moved
            app.post_message(events.Key(char, char))
        await settle(pilot)
        assert screen.query_one("#session-filter").value == "bux"


@run_async
async def test_filter_then_enter_opens_the_reader_and_escape_comes_back(corpus):
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        await pilot.press(*"docker")
        await until(pilot, lambda: screen.shown() and screen.shown()[0].title == "Docker image size", "the filtered list")
        assert "best match first" in count_line(screen)
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReaderScreen)
        assert app.screen.session.title == "Docker image size"
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)


@run_async
async def test_a_rename_in_the_reader_shows_in_the_list(corpus):
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        await pilot.press("down", "j", "enter")
        await settle(pilot)
        reader = app.screen
        assert isinstance(reader, ReaderScreen)
        session_id = reader.session.id
        try:
            await pilot.press("ctrl+l", "ctrl+u", *"Renamed in the reader", "enter")
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is screen
            assert {s.id: s.title for s in screen.shown()}[session_id] == "Renamed in the reader"
            assert highlighted_title(screen) == "Renamed in the reader"
        finally:
            library.rename_session(session_id, "")


@run_async
async def test_rename_star_and_delete_from_the_list(tmp_path_factory):
    with utc_clock():
        settings, library = demo_library(tmp_path_factory)
        try:
            app = create_app(settings, library=library, index_on_start=False)
            async with app.run_test(size=SIZE) as pilot:
                screen = await open_browser(pilot)
                await pilot.press("down", "j", "j")
                target = screen._highlighted()
                await pilot.press("ctrl+l", "ctrl+u", *"Picked from the list", "enter")
                await settle(pilot)
                assert highlighted_title(screen) == "Picked from the list"
                assert library.session_summary(target.id).title == "Picked from the list"
                await pilot.press("delete")
                await pilot.pause()
                await pilot.press("y")
                await settle(pilot)
                assert target.id not in [s.id for s in screen.shown()]
                assert "14 sessions" in count_line(screen)
                assert dict(app.projects) == dict(library.projects())  # the palette's cache follows
        finally:
            library.close()


@run_async
async def test_hash_tags_a_session_in_the_list_and_in_the_reader(tmp_path_factory):
    """Tags were settable only with `convo-tui session tag`: shown in the app, never set there."""
    with utc_clock():
        settings, library = demo_library(tmp_path_factory)
        try:
            app = create_app(settings, library=library, index_on_start=False)
            async with app.run_test(size=SIZE) as pilot:
                screen = await open_browser(pilot)
                await pilot.press("down", "j")
                target = screen._highlighted()
                await pilot.press("number_sign")
                await settle(pilot)
                await pilot.press(*"#release, Checkout ,release", "enter")
                await settle(pilot)
                assert library.session_summary(target.id).tags == ["release", "Checkout"]
                assert screen._highlighted().tags == ["release", "Checkout"]  # the row, read again
                assert screen.query_one("#session-filter").value == ""  # "#" tagged, it did not filter
                await pilot.press("enter")  # the reader
                await settle(pilot)
                reader = app.screen
                assert isinstance(reader, ReaderScreen)
                assert "#release #Checkout" in str(reader.query_one("#reader-head", Static).render())
                await pilot.press("number_sign")
                await settle(pilot)
                assert app.screen.query_one("#prompt-input").value == "release, Checkout"  # the tags it has
                assert target.title.removesuffix("…")[:20] in str(app.screen.query_one(Static).render())  # whose
                await pilot.press(*", urgent", "enter")  # typed after them, not over them
                await settle(pilot)
                assert library.session_summary(target.id).tags == ["release", "Checkout", "urgent"]
                await settle(pilot)
                assert ("urgent", 1) in app.tags  # the palette's and the notes' list, read again

                await pilot.press("number_sign")
                await settle(pilot)
                await pilot.press("ctrl+u", "enter")
                await settle(pilot)
                assert library.session_summary(target.id).tags == []
                assert "#release" not in str(reader.query_one("#reader-head", Static).render())
                # The palette reads its titles as markup: a tag `[/b]` ended the app (MarkupError).
                await pilot.press("number_sign")
                await settle(pilot)
                await pilot.press(*"[/b]", "enter")
                await settle(pilot)
                assert ("[/b]", 1) in app.tags
                await pilot.press("escape")  # to the browser, then the search screen
                await settle(pilot)
                await pilot.press("escape")
                await settle(pilot)
                await pilot.press("ctrl+p", *"Filter by tag")
                await settle(pilot)
                await pilot.press("enter")
                await settle(pilot)
                assert app.is_running and "tag:[/b]" in app.search_screen.query_text
        finally:
            library.close()


@run_async
async def test_after_a_delete_grouped_by_project_the_session_beside_it_is_highlighted(tmp_path_factory):
    """Grouped by project, deleting a group's newest session may move the group: the
    highlight went to the row's new occupant, another project's session, where a
    second Delete would have hit it."""
    with utc_clock():
        settings, library = demo_library(tmp_path_factory)
        try:
            app = create_app(settings, library=library, index_on_start=False)
            async with app.run_test(size=SIZE) as pilot:
                screen = await open_browser(pilot)
                await pilot.press("down", "s", "s")  # by project
                assert "by project" in count_line(screen)
                entries = [screen.entry_at(i) for i in range(screen.listing.count)]
                rows = [(i, e) for i, e in enumerate(entries) if e is not None and e.summary is not None]
                # A group's first (newest) session with another of its group after it.
                at, first = next(
                    (i, e) for i, e in rows if entries[i - 1].header is not None and entries[i + 1].summary is not None
                )
                beside = entries[at + 1].summary.id
                screen.listing.move_to(at)
                await pilot.pause()
                await pilot.press("delete")
                await pilot.pause()
                await pilot.press("y")
                await settle(pilot)
                assert first.summary.id not in [s.id for s in screen.shown()]
                assert screen._highlighted_id() == beside
        finally:
            library.close()


@run_async
async def test_after_a_delete_moves_the_group_to_another_page_the_session_beside_it_is_highlighted(tmp_path_factory, monkeypatch):
    """As above, where the group moves to a page not read yet (at 10k messages a page
    of 100 rows holds a few groups): the highlight went to the first group. Pages of
    two rows and a short terminal here, so that the demo's groups span pages and
    the list does not draw (and read) the page the group moves to."""
    from convo_tui.tui.screens import sessions

    monkeypatch.setattr(sessions, "PAGE", 2)
    with utc_clock():
        settings, library = demo_library(tmp_path_factory)
        try:
            before = library.session_page(sort="project", limit=1000).entries
            # A group's newest session, whose group another group's newest is newer than
            # once it is gone: the group moves down, past this page.
            at = (
                next(
                    i
                    for i, e in enumerate(before)
                    if e.header is not None and i + 2 < len(before) and before[i + 2].summary is not None
                )
                + 1
            )
            first, beside = before[at].summary.id, before[at + 1].summary.id
            app = create_app(settings, library=library, index_on_start=False)
            async with app.run_test(size=(100, 12)) as pilot:
                screen = await open_browser(pilot)
                await pilot.press("down", "s", "s")  # by project
                await settle(pilot)
                assert "by project" in count_line(screen)
                screen.listing.move_to(at)
                await settle(pilot)
                assert screen._highlighted_id() == first
                await pilot.press("delete")
                await pilot.pause()
                await pilot.press("y")
                await settle(pilot)
                now = library.session_page(sort="project", limit=1000).entries
                moved_to = next(i for i, e in enumerate(now) if e.summary is not None and e.summary.id == beside)
                assert moved_to >= screen.listing.size.height  # the case: below the rows drawn before
                assert screen._highlighted_id() == beside
                assert screen.listing.highlighted == moved_to
        finally:
            library.close()


@run_async
async def test_opened_while_indexing_the_list_fills_as_sessions_are_indexed(tmp_path):
    with utc_clock():
        corpus = copy_demo(tmp_path)
        settings = Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False)
        app = create_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f3")  # before the index is even open
            screen = app.screen
            assert isinstance(screen, SessionsScreen)
            while app.library is None or not app.model_ready or app.indexing or app.background.busy:
                await workers_done(app)
                await pilot.pause()
            await settle(pilot)
            assert len(screen.shown()) == 15
            assert "15 sessions" in count_line(screen)
            assert sum(count for _, count in app.projects) == 15


@run_async
async def test_palette_projects_come_from_the_apps_cache(corpus):
    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.projects == library.projects()
        from convo_tui.tui.commands import ConvoCommands

        provider = ConvoCommands(app.screen, None)
        names = [name for name, _, _ in provider._commands()]
        assert any(name.startswith("Filter by project: shopfront (") for name in names)
        assert "Stats: sessions, messages, tokens" in names


def table_text(screen, selector: str) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, file=io.StringIO())
    console.print(screen.query_one(selector, Static).content)
    return console.export_text()


@run_async
async def test_f4_counts_the_index_per_project_source_and_week(corpus):
    from convo_tui.tui.screens.stats import StatsScreen

    _, library = corpus
    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        summary = str(screen.query_one("#stats-summary", Static).render())
        assert summary.startswith("15 sessions · ") and "4 projects" in summary
        assert "no token usage recorded" in summary  # the demo's sources keep no usage
        projects = table_text(screen, "#stats-projects")
        for name, count in library.projects():
            assert any(line.split()[:2] == [name, str(count)] for line in projects.splitlines()), (name, projects)
        assert "Tokens" not in projects
        assert "cursor" in table_text(screen, "#stats-sources")
        assert "2026-W01" in table_text(screen, "#stats-weeks")  # the corpus copies are dated 2026-01-01
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)


@run_async
async def test_help_names_quit_stats_and_the_browser_keys(corpus):
    from convo_tui.tui.screens.help import HelpScreen

    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        rows = app.screen._rows(app.screen.under)
        assert ("^q", "Quit", "app.quit") in rows and ("f7", "Stats", "app.stats") in rows
        assert [row for row in rows if row[1] == "Quit"] == [("^q", "Quit", "app.quit")]
        await pilot.press("escape")
        await open_browser(pilot)
        await pilot.press("down", "f1")
        assert isinstance(app.screen, HelpScreen)
        rows = app.screen._rows(app.screen.under)
        for row in [("s", "Sort", "sessions.sort"), ("f", "Starred", "sessions.starred"), ("^b", "Star", "session.star")]:
            assert row[1:] in [r[1:] for r in rows], row
        assert not app.screen.query("#help-note")  # on the list: its keys are in the table
        await pilot.press("escape", "slash", "f1")  # in the filter, letters are typed: the note says where the keys are
        assert isinstance(app.screen, HelpScreen)
        assert "↓ moves to the list" in str(app.screen.query_one("#help-note", Static).render())


@run_async
async def test_the_reader_reads_and_writes_the_index_off_the_ui_thread(corpus):
    _, library = corpus
    app = make_app(corpus)
    on_ui: list[str] = []
    names = ["session_summary", "session_settings", "set_session_settings", "star_session", "rename_session", "sessions"]

    def watched(name):
        original = getattr(library, name)

        def call(*args, **kwargs):
            if threading.current_thread() is threading.main_thread():
                on_ui.append(name)
            return original(*args, **kwargs)

        return call

    for name in names:
        setattr(library, name, watched(name))
    session_id = None
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_browser(pilot)
            await pilot.press("down", "enter")
            await settle(pilot)
            reader = app.screen
            assert isinstance(reader, ReaderScreen)
            session_id = reader.session.id
            await pilot.press("ctrl+b")
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            await pilot.press("ctrl+l", "ctrl+u", *"Off the UI thread", "enter")
            await settle(pilot)
            assert "★" in str(reader.query_one("#reader-head", Static).render())
            await pilot.press("escape")
            await settle(pilot)
            row = next(s for s in screen.shown() if s.id == session_id)
            assert row.starred and row.title == "Off the UI thread"
        assert on_ui == []
    finally:
        for name in names:
            delattr(library, name)
        if session_id:
            library.rename_session(session_id, "")
            library.star_session(session_id, False)
            library.set_session_settings(session_id, hide_thinking=False)


@run_async
async def test_keys_typed_while_the_browser_opens_go_where_they_would_once_open(corpus):
    """F3, down and s sent at once (a fast typist in tmux, session 32): the browser's
    first shown moment focused the filter after down had moved to the list, and the
    s meant for the sort was typed into the filter."""
    from textual import events

    app = make_app(corpus)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key, char in (("f3", None), ("down", None), ("s", "s")):
            app.post_message(events.Key(key, char))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert screen.query_one("#session-filter").value == ""
        assert app.browser.sort == "title" and screen.listing.has_focus
