from datetime import datetime

import pytest
from convo_tui.core.errors import QueryError
from convo_tui.core.search.query import parse_query
from convo_tui.core.store.base import Cond


def test_filters_and_phrases_are_split_from_words():
    q = parse_query('qdrant "kid mismatch" project:webapp role:ai tool:Shell has:tools source:cursor session:abc')
    assert q.text == "qdrant kid mismatch"
    assert q.phrases == ["kid mismatch"]
    assert (q.project, q.role, q.tool, q.has_tools, q.source, q.session) == ("webapp", "ai", "Shell", True, "cursor", "abc")
    must = q.store_filter().must
    assert Cond("visible", value=True) in must
    assert Cond("tool_keys", value="shell") in must
    assert Cond("role", value="ai") in must


def test_quoted_filter_value_and_urls_ports_and_quoted_unknown_keys_kept_as_words():
    q = parse_query('project:"my app" see http://example.com localhost:8080 std::vector "note:x"')
    assert q.project == "my app"
    assert q.text == "see http://example.com localhost:8080 std::vector note:x"


@pytest.mark.parametrize("query", ["foo:bar", "qdrant note:x", "projct:myapp setup"])
def test_an_unknown_filter_is_a_one_line_error_that_says_how_to_search_it(query):
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    message = str(caught.value)
    assert "\n" not in message and "unknown filter" in message and "project:" in message and "in quotes" in message


def test_dates_are_local_midnights_and_before_is_exclusive():
    q = parse_query("after:2026-01-01 before:2026-02-01")
    assert q.after == datetime(2026, 1, 1).astimezone().timestamp()
    assert q.before == datetime(2026, 2, 1).astimezone().timestamp()
    (cond,) = [c for c in q.store_filter().must if c.key == "timestamp"]
    assert cond.gte == q.after and cond.lte == q.before - 0.001


@pytest.mark.parametrize(
    "query, message",
    [
        (
            "after:2026-13-01",
            "after:2026-13-01 is not a date (use after:YYYY-MM-DD, after:today, after:yesterday or after:7d, 2w, 3m, 1y)",
        ),
        ("before:7x", "before:7x is not a date (use before:YYYY-MM-DD, before:today, before:yesterday or before:7d, 2w, 3m, 1y)"),
        ("role:bot", "role:bot is not a role (use role:user or role:ai)"),
        ("has:images", "has:images is not supported (use has:tools)"),
        ("project:", "project: needs a value (e.g. project:myapp)"),
        ('"open phrase', 'unbalanced quote in query (a phrase needs a closing ")'),
        ("after:2026-02-01 before:2026-01-01", "after: must be earlier than before:"),
        # a user's message never calls a tool: the pair matched nothing, silently
        (
            "rollback has:tools role:user",
            "role:user and has:tools never meet: tools are called by the AI (use role:ai, or leave role: out)",
        ),
        (
            "role:user tool:Bash",
            "role:user and tool:Bash never meet: tools are called by the AI (use role:ai, or leave role: out)",
        ),
    ],
)
def test_malformed_filters_give_one_line(query, message):
    with pytest.raises(QueryError) as err:
        parse_query(query)
    assert str(err.value) == message


def test_phrase_match_is_case_insensitive():
    q = parse_query('"Kid Mismatch"')
    assert q.matches_phrases("reload on a kid mismatch")
    assert not q.matches_phrases("kid", "mismatch")


NOW = datetime(2026, 3, 15, 14, 30)


@pytest.mark.parametrize(
    "query, field, day",
    [
        ("after:7d", "after", datetime(2026, 3, 8)),
        ("after:2w", "after", datetime(2026, 3, 1)),
        ("after:1m", "after", datetime(2026, 2, 13)),
        ("after:1y", "after", datetime(2025, 3, 15)),
        ("after:today", "after", datetime(2026, 3, 15)),
        ("before:yesterday", "before", datetime(2026, 3, 14)),
        ("before:Yesterday", "before", datetime(2026, 3, 14)),
        ("after:0d", "after", datetime(2026, 3, 15)),
    ],
)
def test_relative_dates_are_local_midnights_counted_back_from_today(query, field, day):
    q = parse_query(f"redis {query}", now=NOW.astimezone())
    assert q.text == "redis"
    assert getattr(q, field) == day.astimezone().timestamp()


def test_relative_dates_combine_and_are_checked_for_order():
    q = parse_query("after:2w before:yesterday", now=NOW.astimezone())
    (cond,) = [c for c in q.store_filter().must if c.key == "timestamp"]
    assert cond.gte == datetime(2026, 3, 1).astimezone().timestamp()
    assert cond.lte == datetime(2026, 3, 14).astimezone().timestamp() - 0.001
    with pytest.raises(QueryError, match="after: must be earlier than before:"):
        parse_query("after:today before:7d", now=NOW.astimezone())


def test_a_lone_surrogate_in_a_query_separates_words():
    """A byte of the command line that is not UTF-8 reaches Python as "\\udcff", a JSON
    request may spell "\\ud800": no model can encode either (a search of one ended in
    a traceback); it separates words instead."""
    assert parse_query("login\udcfftest").text == "login test"
    assert parse_query("\ud800 rollback project:shop").text == "rollback"
    assert parse_query("😀 emoji").text == "😀 emoji"  # a whole pair is a character like any other


def test_a_project_no_index_holds_is_told_which_was_meant():
    from convo_tui.core.search.query import near_names, unknown_project

    projects = ["infra", "mlplatform", "webshop", "web-admin"]
    assert unknown_project("pool project:Infra", projects) == "project:Infra is no indexed project: did you mean project:infra?"
    assert unknown_project("pool project:mlplatfrom", projects) == (
        "project:mlplatfrom is no indexed project: did you mean project:mlplatform?"
    )
    assert near_names("web", projects) == ["web-admin", "webshop"]  # names that hold it, A to Z
    assert unknown_project("pool project:infra", projects) is None  # it is one: nothing to say
    assert unknown_project("pool", projects) is None
    assert (
        unknown_project("pool project:zzz", projects)
        == "project:zzz is no indexed project: F3 or `convo-tui sessions` lists them"
    )


def test_a_machine_no_remote_is_named_is_told_which_was_meant():
    from convo_tui.core.search.query import unknown_machine

    machines = ["devbox", "laptop-2"]
    assert unknown_machine("pool machine:devbx", machines) == (
        "machine:devbx is no machine convo-tui pulls from: did you mean machine:devbox?"
    )
    assert unknown_machine("pool machine:Laptop-2", machines) == (
        "machine:Laptop-2 is no machine convo-tui pulls from: did you mean machine:laptop-2?"
    )
    assert unknown_machine("pool machine:zzz", machines) == (
        "machine:zzz is no machine convo-tui pulls from: the machines are devbox, laptop-2"
    )
    assert unknown_machine("pool machine:devbox", machines) is None
    assert unknown_machine("pool", machines) is None
    assert unknown_machine("pool machine:devbox", []) == (
        "machine:devbox is no machine convo-tui pulls from: no other machine is set up ([[remotes]] in the settings)"
    )


def test_a_tag_no_session_has_is_told_which_was_meant():
    from convo_tui.core.search.query import unknown_tag

    tags = ["release-q4", "Needs Review", "infra"]
    assert unknown_tag("pool tag:relase-q4", tags) == "tag:relase-q4 is no tag of any session: did you mean tag:release-q4?"
    assert unknown_tag("pool tag:RELEASE-Q4", tags) is None  # tag: matches in any case
    assert unknown_tag("pool tag:#infra", tags) is None
    assert unknown_tag('pool tag:"needs reveiw"', tags) == (
        'tag:"needs reveiw" is no tag of any session: did you mean tag:"Needs Review"?'
    )
    assert (
        unknown_tag("pool tag:zzz", tags)
        == "tag:zzz is no tag of any session: # in the sessions browser or the reader tags a session"
    )
    assert unknown_tag("pool tag:zzz", []) == (
        "tag:zzz is no tag of any session: no session is tagged yet "
        "(# in the sessions browser or the reader, or `convo-tui session tag`)"
    )
    assert unknown_tag("pool", tags) is None


def test_tags_are_counted_over_indexed_sessions_in_any_case():
    from datetime import UTC, datetime

    from convo_tui.core.annotations import Annotation, Deletion, tag_counts

    notes = {
        "a": Annotation("a", tags=["Release", "infra"]),
        "b": Annotation("b", tags=["release"]),
        "c": Annotation("c", tags=["release"], deleted=Deletion(datetime(2026, 1, 1, tzinfo=UTC), "", 0, 0)),
        "gone": Annotation("gone", tags=["release", "old"]),  # pruned from the index
    }
    assert tag_counts(notes, {"a", "b", "c"}) == [("Release", 2), ("infra", 1)]
