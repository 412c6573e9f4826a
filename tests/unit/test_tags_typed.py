"""What the app's tag box makes of what is typed in it (tui/session_actions.parse_tags)."""

from __future__ import annotations

from convo_tui.tui.session_actions import parse_tags


def test_commas_separate_tags_and_a_leading_hash_is_the_apps_way_of_showing_them():
    assert parse_tags("#release, Checkout ,release") == ["release", "Checkout"]
    assert parse_tags("needs review, #2026 q4") == ["needs review", "2026 q4"]
    assert parse_tags("") == []
    assert parse_tags(" , # ,") == []
    assert parse_tags("RELEASE, release") == ["RELEASE"]  # the first spelling kept
