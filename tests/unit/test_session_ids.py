"""Session id prefixes (issue 23: `convo-tui show 7a8e4618` failed): the rule, without an index."""

from __future__ import annotations

import pytest
from convo_tui.core.errors import AmbiguousSessionId
from convo_tui.core.library.session_ids import pick

IDS = [
    "7a8e4618-0c1d-4e2f-9a3b-5c6d7e8f9a0b",
    "7a8e4618-ffff-4e2f-9a3b-5c6d7e8f9a0b",
    "7a8e4619-0000-4e2f-9a3b-5c6d7e8f9a0b",
    "5a9c1e44-8d2b-4f60-a7e3-6b5c4d3e2f10",
]


def test_a_unique_prefix_of_eight_or_more_characters_names_its_session():
    assert pick("5a9c1e44", lambda: IDS) == IDS[3]
    assert pick("7A8E4619", lambda: IDS) == IDS[2]  # typed in capitals
    assert pick("7a8e4618-ff", lambda: IDS) == IDS[1]


def test_a_prefix_that_starts_nothing_names_none_and_a_short_one_says_so():
    assert pick("deadbeef", lambda: IDS) is None
    assert pick("dead", lambda: IDS) is None
    with pytest.raises(AmbiguousSessionId, match=r"^session id '5a9c1e4' is too short: give 8 or more characters of it$"):
        pick("5a9c1e4", lambda: IDS)


def test_an_ambiguous_prefix_is_one_line_listing_candidates():
    many = [f"7a8e4618-{i:04d}" for i in range(6)]
    with pytest.raises(AmbiguousSessionId) as caught:
        pick("7a8e4618", lambda: many)
    message = str(caught.value)
    assert "\n" not in message
    assert message == (
        "session id '7a8e4618' is ambiguous: 6 sessions start with it "
        "(7a8e4618-0000, 7a8e4618-0001, 7a8e4618-0002 and 3 more); give more characters"
    )
