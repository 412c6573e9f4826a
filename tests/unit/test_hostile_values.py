"""Every query, flag, setting and MCP argument is checked at the edge (issue 24,
item 2): random values get an answer or one line naming them, never a
traceback. Plus the holder's shutdown race and the disk-full line (item 6)."""

from __future__ import annotations

import threading
from datetime import datetime

import pytest
from convo_tui.cli.mcp import RecallTools, build_server
from convo_tui.core.errors import ConfigError, ConvoError, QueryError
from convo_tui.core.limits import MAX_COUNT, check_count
from convo_tui.core.search.query import KEYS, parse_query
from convo_tui.core.settings import Settings
from convo_tui.core.store.edge_schema import edge_errors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 3, 1, 12, 0)
NUMBERS = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, -1, MAX_COUNT, MAX_COUNT + 1, 10**20, 2**63, 2**64 + 1]),
)
DATES = st.one_of(
    st.from_regex(r"\d{1,6}[dwmyDWMY]", fullmatch=True),
    st.from_regex(r"-?\d{1,6}-\d{1,3}-\d{1,3}", fullmatch=True),
    st.sampled_from(["today", "yesterday", "99999y", "0001-01-01", "9999-12-31", "1969-12-31", "0000-00-00", ""]),
    st.text(max_size=12),
)
TOKENS = st.one_of(
    st.text(max_size=16),
    st.builds(lambda k, v: f"{k}:{v}", st.sampled_from((*KEYS, "foo", "http", "C")), DATES),
    st.builds(lambda k, v: f'{k}:"{v}"', st.sampled_from(KEYS), DATES),
    st.sampled_from(['"', '"phrase"', "[/x]", "[@click=app.quit]q[/]", "\x00", "\n", "-rf", "$(touch pwned)", "::", "a:"]),
)
QUERIES = st.lists(TOKENS, max_size=6).map(" ".join)
FAST = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))


@FAST
@given(QUERIES)
def test_the_parser_answers_or_refuses_in_one_line(query):
    try:
        parsed = parse_query(query, now=NOW)
    except QueryError as exc:
        assert "\n" not in str(exc) and "\x00" not in str(exc)
        return
    parsed.store_filter()
    for stamp in (parsed.after, parsed.before):
        assert stamp is None or datetime.fromtimestamp(stamp).year >= 1969


def test_huge_dates_clamp():
    assert parse_query("stripe after:99999y", now=NOW).after == datetime(1970, 1, 1).astimezone().timestamp()
    assert parse_query("x before:0001-01-01", now=NOW).before == datetime(1970, 1, 1).astimezone().timestamp()
    assert parse_query("x after:9999-12-31", now=NOW).after == datetime(9999, 12, 30).astimezone().timestamp()


@FAST
@given(st.from_type(object).filter(lambda v: not isinstance(v, int | bool)) | NUMBERS)
def test_counts_have_one_maximum(value):
    try:
        assert 0 <= check_count("limit", value) <= MAX_COUNT
    except ConvoError as exc:
        assert str(exc).startswith("limit must be a whole number from 0 to 100,000") and "\n" not in str(exc)


@FAST
@given(
    st.sampled_from(["search_limit", "debounce_ms", "search_mode", "redact", "sources", "model"]), NUMBERS | st.text(max_size=8)
)
def test_settings_values_are_checked_in_one_line(tmp_path_factory, name, value):
    path = tmp_path_factory.mktemp("cfg") / "config.toml"
    path.write_text(
        f"{name} = {value!r}\n".replace("'", '"') if isinstance(value, str) else f"{name} = {value}\n", encoding="utf-8"
    )
    try:
        loaded = Settings.load(path)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
        return
    assert 1 <= loaded.search_limit <= MAX_COUNT and 0 <= loaded.debounce_ms <= MAX_COUNT


class _Nothing:
    """An MCP server whose index must never be reached: every call here is refused before."""

    def search(self, *args, **kwargs):
        raise AssertionError("a refused argument reached the index")

    sessions = context = session = search


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: t.search("x", limit=-5), "limit must be a whole number from 1 to 100,000 (got -5)"),
        (lambda t: t.search("x", limit=10**20), "limit must be a whole number from 1 to 100,000"),
        (lambda t: t.search("x", mode="magic"), "mode must be one of hybrid, semantic, keyword, fuzzy"),
        (lambda t: t.search("x", project='a" OR project:"b'), "project must not contain a double quote"),
        (lambda t: t.list_sessions(limit=0), "limit must be a whole number from 1 to 100,000 (got 0)"),
        (lambda t: t.context("q", recent=-1), "recent must be a whole number from 0 to 100,000"),
        (lambda t: t.context("q", refs=10**9), "refs must be a whole number from 0 to 100,000"),
        (lambda t: t.show_session("s", first_turn=-3), "first_turn must be a whole number from 0 to 100,000"),
    ],
)
def test_mcp_arguments_are_refused_with_their_reason(tmp_path, call, message):
    tools = RecallTools(Settings(index_dir=tmp_path / "index"))
    tools._library = _Nothing()  # type: ignore[assignment]
    with pytest.raises((ConvoError, ValueError), match=message.replace("(", r"\(").replace(")", r"\)")):
        call(tools)


def test_the_mcp_server_says_why_a_tool_failed(tmp_path):
    """The SDK would answer "Error executing tool search" and hide any other exception's text."""
    import asyncio

    from mcp.server.mcpserver.exceptions import ToolError

    class Broken(_Nothing):
        def search(self, *args, **kwargs):
            raise OverflowError("date value out of range")

    tools = RecallTools(Settings(index_dir=tmp_path / "index"))
    tools._library = Broken()  # type: ignore[assignment]
    server = build_server(tools)
    with pytest.raises(ToolError, match=r"internal error \(OverflowError: date value out of range\)"):
        asyncio.run(server.call_tool("search", {"query": "stripe"}))
    with pytest.raises(ToolError, match="limit must be a whole number from 1 to 100,000"):
        asyncio.run(server.call_tool("list_sessions", {"limit": -5}))


def test_stop_never_joins_a_thread_that_has_not_started(tmp_path):
    """The shutdown race: `_spawn` used to add a thread to the set before starting it,
    and a `stop()` in between joined it ("cannot join thread before it is started")."""
    from convo_tui.core.holder.server import HolderServer

    server = HolderServer(engine=None, index_dir=tmp_path)  # type: ignore[arg-type]
    unstarted = threading.Thread(target=lambda: None)
    server._threads.add(unstarted)  # the state the race left behind
    server.stop()


@pytest.mark.parametrize("doing", ["closing", "opening", "writing", "optimizing", "flushing", "creating"])
def test_the_disk_full_line_reads_as_a_sentence(tmp_path, doing):
    with pytest.raises(ConvoError) as info, edge_errors(tmp_path, doing):
        raise Exception("No space left on device (os error 28)")
    text = str(info.value)
    assert "disk full" in text and " to closing" not in text and f" to {doing}" not in text
    assert "free some space to " in text and " the index and try again" in text
