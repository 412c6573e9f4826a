"""core/stats.py: sessions, messages and tokens per project, source and week."""

from __future__ import annotations

from datetime import UTC, datetime

from convo_tui.core.model import Message, Session
from convo_tui.core.stats import UNDATED, Tokens, count_sessions, message_tokens, week_of


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
    from tests.tui_corpus import demo_library, utc_clock

    with utc_clock():
        _, library = demo_library(tmp_path_factory)
        try:
            stats = count_sessions(library.iter_sessions())
            summaries = library.sessions()
        finally:
            library.close()
    assert stats.total.sessions == len(summaries) == 15
    assert {name: count.sessions for name, count in stats.projects()} == {
        p: sum(1 for s in summaries if s.project == p) for p in {s.project for s in summaries}
    }
    assert sum(count.sessions for _, count in stats.weeks()) == 15
