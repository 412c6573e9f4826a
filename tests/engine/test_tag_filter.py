"""`tag:NAME` keeps the sessions the user tagged so (in the app with #, or with
`convo-tui session tag`): tags live in the annotations file, not in the index's
points, and the search finds them there. Real model and store, a module's own
copy of the demo index."""

from __future__ import annotations

import pytest
from convo_tui.core.errors import QueryError
from convo_tui.core.search.query import filters_match, parse_query

QUERY = "test"


@pytest.fixture(scope="module")
def library(demo_copy):
    _settings, library = demo_copy
    return library


def test_tag_keeps_the_tagged_sessions_in_any_case_with_words_or_alone(library):
    everywhere = library.search(QUERY, limit=20, mode="hybrid")
    sessions = list(dict.fromkeys(hit.session_id for hit in everywhere))
    assert len(sessions) >= 3, "the case needs a query several sessions answer"
    chosen = sessions[1:3]
    for session_id in chosen:
        library.tag_session(session_id, ["Release-Q4"])
    for mode in ("hybrid", "keyword", "semantic", "fuzzy"):
        tagged = library.search(f"{QUERY} tag:release-q4", limit=20, mode=mode)
        assert tagged and {hit.session_id for hit in tagged} <= set(chosen), mode
    alone = library.search("tag:#RELEASE-Q4", limit=20)  # the filter alone: the newest turns of those sessions
    assert {hit.session_id for hit in alone} == set(chosen)
    assert ("Release-Q4", 2) in library.tags()
    library.tag_session(chosen[0], ["Release-Q4"], remove=True)
    assert {hit.session_id for hit in library.search("tag:release-q4", limit=20)} == {chosen[1]}
    assert ("Release-Q4", 1) in library.tags()
    # Within one session (the reader's n / N), the tag applies too.
    assert library.hits_in_session(f"{QUERY} tag:release-q4", chosen[1])
    assert library.hits_in_session(f"{QUERY} tag:release-q4", chosen[0]) == []


def test_a_tag_no_session_has_finds_nothing_and_says_it_is_the_filter(library):
    assert library.search(f"{QUERY} tag:no-such-tag", limit=10) == []
    assert library.search("tag:no-such-tag", limit=10) == []
    assert filters_match(library, f"{QUERY} tag:no-such-tag") is False


def test_tag_needs_a_value():
    with pytest.raises(QueryError, match=r"tag: needs a value \(e.g. tag:release\)"):
        parse_query("checkout tag:")
    assert parse_query('x tag:"needs review"').tag == "needs review"
