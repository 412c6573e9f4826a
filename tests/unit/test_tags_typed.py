"""What the app's tag box makes of what is typed in it (tui/session_actions.parse_tags)."""

from __future__ import annotations

from convo_tui.tui.session_actions import parse_tags


def test_commas_separate_tags_and_a_leading_hash_is_the_apps_way_of_showing_them():
    assert parse_tags("#release, Checkout ,release") == ["release", "Checkout"]
    assert parse_tags("needs review, #2026 q4") == ["needs review", "2026 q4"]
    assert parse_tags("") == []
    assert parse_tags(" , # ,") == []
    assert parse_tags("RELEASE, release") == ["RELEASE"]  # the first spelling kept


def test_tags_are_kept_as_the_box_and_the_filter_read_them():
    """`session tag ID '#foo' 'a,b'` stored `#foo` and `a,b`, which tag:foo and the
    app's box (split on commas, # dropped) never matched."""
    from convo_tui.core.annotations import normalize_tags

    assert normalize_tags(["#foo", "a,b", " A ", "##x"]) == ["foo", "a", "b", "#x"]
