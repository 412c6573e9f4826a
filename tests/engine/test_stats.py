"""core/stats.py: sessions, messages and tokens per project, source and week."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from convo_tui.core.model import Message, Session
from convo_tui.core.stats import UNDATED, Tokens, count_sessions, message_tokens, week_of

from tests.paths import FIXTURES


def whole_sessions(library) -> list[Session]:
    """Every indexed session read whole, one by one: what the stats count, by another road."""
    return [library.session(summary.id) for summary in library.sessions()]


def at(day: int, month: int = 1) -> datetime:
    return datetime(2026, month, day, 12, 0, tzinfo=UTC)


def session(ident: str, project: str, source: str, messages: list[Message]) -> Session:
    s = Session(id=ident, title=ident, project=project, source=source, path=f"/x/{ident}", messages=messages)
    s.fill_times()
    return s


def test_usage_shapes_the_sources_record():
    claude = {
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 500, "cache_creation_input_tokens": 40, "output_tokens": 7}
    }
    assert message_tokens(claude) == Tokens(550, 7)
    assert message_tokens({"usage": {"prompt_tokens": 3, "completion_tokens": 4}}) == Tokens(3, 4)
    assert message_tokens({"tokens_input": 120, "tokens_output": 80, "cost": 0.1}) == Tokens(120, 80)
    assert message_tokens({"uuid": "abc"}) is None
    assert message_tokens({"usage": {"input_tokens": "many", "output_tokens": True}}) is None
    assert message_tokens({"tokens_input": -5}) is None
    # OpenAI style (Codex, Gemini CLI as parsed): cached input is inside input, reasoning inside output
    codex = {"input_tokens": 10400, "cached_input_tokens": 9728, "output_tokens": 150, "reasoning_output_tokens": 64}
    assert message_tokens({"usage": codex}) == Tokens(10400, 150)


def test_weeks_are_iso_weeks_in_the_given_zone():
    assert week_of(datetime(2026, 1, 1, tzinfo=UTC), UTC) == "2026-W01"
    assert week_of(datetime(2025, 12, 29, tzinfo=UTC), UTC) == "2026-W01"  # ISO: the week with the year's first Thursday
    assert week_of(datetime(2026, 1, 5, tzinfo=UTC), UTC) == "2026-W02"
    assert week_of(None) == UNDATED


def test_counts_per_project_source_and_week():
    usage = {"usage": {"input_tokens": 100, "output_tokens": 20}}
    sessions = [
        session(
            "a",
            "shop",
            "claude-code",
            [
                Message("1", "user", "q", timestamp=at(1)),
                Message("2", "assistant", "a", timestamp=at(1), meta=usage),
                Message("3", "user", "q2", timestamp=at(6)),  # the next week
                Message("4", "assistant", "a2", timestamp=at(6), meta=usage),
                Message("5", "assistant", "sub", timestamp=at(6), sidechain=True, meta=usage),
            ],
        ),
        session(
            "b",
            "shop",
            "cursor",
            [Message("1", "user", "q"), Message("2", "assistant", "a"), Message("3", "assistant", "v", virtual=True)],
        ),
        session(
            "c", "", "chatgpt", [Message("1", "user", "q", timestamp=at(2)), Message("2", "assistant", "a", timestamp=at(2))]
        ),
    ]
    stats = count_sessions(sessions, UTC)
    assert (stats.total.sessions, stats.total.messages) == (3, 8)  # sidechain and virtual messages are not counted
    assert stats.total.tokens == Tokens(300, 60) and stats.total.has_tokens  # the sub-agent's usage is
    shop = stats.by_project["shop"]
    assert (shop.sessions, shop.messages, shop.has_tokens) == (2, 6, True)
    assert stats.by_project["(no project)"].sessions == 1
    assert [name for name, _ in stats.projects()] == ["shop", "(no project)"]
    assert stats.by_source["cursor"].has_tokens is False and stats.by_source["cursor"].messages == 2
    assert stats.by_source["claude-code"].tokens == Tokens(300, 60)
    weeks = dict(stats.weeks())
    assert list(weeks) == ["2026-W02", "2026-W01", UNDATED]
    assert (weeks["2026-W01"].sessions, weeks["2026-W01"].messages) == (2, 4)
    assert (weeks["2026-W02"].sessions, weeks["2026-W02"].messages) == (0, 2)
    assert weeks["2026-W02"].tokens == Tokens(200, 40)
    assert (weeks[UNDATED].sessions, weeks[UNDATED].messages) == (1, 2)


def test_the_demo_index_counts_what_the_sessions_list_shows(tmp_path_factory):
    from tests.helpers.demo_corpus import demo_library, utc_clock

    with utc_clock():
        _, library = demo_library(tmp_path_factory)
        try:
            stats = count_sessions(whole_sessions(library))
            summaries = library.sessions()
        finally:
            library.close()
    assert stats.total.sessions == len(summaries) == 15
    assert {name: count.sessions for name, count in stats.projects()} == {
        p: sum(1 for s in summaries if s.project == p) for p in {s.project for s in summaries}
    }
    assert sum(count.sessions for _, count in stats.weeks()) == 15


def test_an_index_of_sessions_that_record_usage_reports_their_tokens(tmp_path):
    """Parsed, indexed, read back whole from the store: the usage survives and is counted per source."""
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings
    from convo_tui.tui.stats_view import stats_summary

    from tests.helpers.sqlite_fixtures import build_tree

    corpus = build_tree(FIXTURES / "tokens", tmp_path / "corpus")
    with Library.open(Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False)) as library:
        report = library.index([corpus])
        assert report.sessions == 4, report.skipped
        stats = count_sessions(whole_sessions(library), UTC)
    assert {name: count.tokens for name, count in stats.sources()} == {
        "claude-code": Tokens(52000, 490),  # a reply written over three lines counted once
        "codex": Tokens(30900, 650),
        "gemini-cli": Tokens(17850, 385),
        "opencode": Tokens(34930, 339),
    }
    assert stats.total.has_tokens and stats.total.tokens == Tokens(52000 + 30900 + 17850 + 34930, 490 + 650 + 385 + 339)
    assert stats.by_project["deployer"].tokens == Tokens(52000, 490)
    assert stats.by_week["2026-W10"].tokens == stats.total.tokens  # 2026-03-02 to 03-04
    summary = str(stats_summary(stats))
    assert "137.5k tokens (recorded by claude-code, codex, gemini-cli, opencode only)" in summary


# -- the stats of an index: its sessions' tallies (core/tally.py) -------------------------


def tokens_library(tmp_path):
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings

    from tests.helpers.sqlite_fixtures import build_tree

    corpus = build_tree(FIXTURES / "tokens", tmp_path / "corpus")
    library = Library.open(Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False))
    return library, corpus


def indexed_tokens(tmp_path):
    """The tokens corpus indexed: its settings, and its stats counted from every session read whole."""
    library, corpus = tokens_library(tmp_path)
    with library:
        assert library.index([corpus]).sessions == 4
        return library.settings, count_sessions(whole_sessions(library))


def counted_without_reading(settings, monkeypatch):
    """The stats as a command with no holder counts them; a failure if it reads a session whole."""
    from convo_tui.core.library import Library

    with Library.open(settings, read_only=True) as reading_only:
        monkeypatch.setattr(reading_only.reader, "tallies", lambda ids: pytest.fail(f"read whole: {sorted(ids)}"))
        return reading_only.stats()


def test_the_stats_of_an_index_count_its_tallies_without_reading_a_session(tmp_path, monkeypatch):
    settings, expected = indexed_tokens(tmp_path)
    assert expected.total.tokens.total > 0
    assert counted_without_reading(settings, monkeypatch) == expected


def index_before_tallies(tmp_path, monkeypatch):
    """An index as the last release made it: session points without a tally."""
    from convo_tui.core.index import reading
    from convo_tui.core.library.catalogue import Catalogue

    library, corpus = tokens_library(tmp_path)
    with monkeypatch.context() as before_tallies:
        before_tallies.setattr(reading.TallyBuilder, "packed", lambda self: "")
        before_tallies.setattr(Catalogue, "fill_tallies", lambda self, read: self.rows())
        with library:
            assert library.index([corpus]).sessions == 4
            assert library.catalogue.rows() and all(row.tally is None for row in library.catalogue.rows())
    return library.settings, corpus


def test_sessions_indexed_before_tallies_are_counted_from_their_records_once(tmp_path, monkeypatch):
    from convo_tui.core.library import Library

    settings, _ = index_before_tallies(tmp_path, monkeypatch)
    with Library.open(settings, read_only=True) as again:  # `stats` with no holder
        expected = count_sessions(whole_sessions(again))
        assert again.stats() == expected  # read whole, once: kept in the sessions list's file
    assert counted_without_reading(settings, monkeypatch) == expected


def test_an_index_run_gives_the_sessions_indexed_before_tallies_theirs(tmp_path, monkeypatch):
    from convo_tui.core.library import Library

    settings, corpus = index_before_tallies(tmp_path, monkeypatch)
    with Library.open(settings) as library:
        assert library.index([corpus]).sessions == 4  # nothing new to read
        expected = count_sessions(whole_sessions(library))
    assert counted_without_reading(settings, monkeypatch) == expected


def test_a_tally_that_cannot_be_read_is_made_again_from_its_record(tmp_path, monkeypatch):
    from dataclasses import replace

    from convo_tui.core.library import Library, session_rows

    settings, expected = indexed_tokens(tmp_path)
    rows = session_rows.load(settings.index_dir)
    assert rows
    first = sorted(rows)[0]
    rows[first] = replace(rows[first], tally="[[1924567,null,2,0,0,0,0,0,0]]")  # a shape this build does not write
    assert session_rows.save(settings.index_dir, rows)
    with Library.open(settings, read_only=True) as reading_only:
        assert reading_only.stats() == expected
    assert counted_without_reading(settings, monkeypatch) == expected


def test_the_same_sessions_are_counted_once_and_again_once_they_change(tmp_path, monkeypatch):
    from convo_tui.core import tally

    library, corpus = tokens_library(tmp_path)
    with library:
        assert library.index([corpus]).sessions == 4
        first = library.stats()
        first.total.sessions += 100  # a caller's copy: what it does to it stays with it
        with monkeypatch.context() as counted:
            counted.setattr(tally, "count_tallies", lambda *a, **k: pytest.fail("counted again"))
            assert library.stats().total.sessions == 4  # the stats screen opened again
        session = whole_sessions(library)[0]
        library.delete_session(session.id)
        assert library.stats().total.sessions == 3
