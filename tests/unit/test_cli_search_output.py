"""`convo-tui search` prints the passage that matched, as the app's cards do (not the first 160 characters)."""

from __future__ import annotations

from convo_tui.cli.search import format_hit
from convo_tui.core.hits import Hit


def test_a_match_late_in_a_long_message_is_shown_around_the_match():
    user = "After this change the connection pool no longer blocks the composite index. " * 4 + "Also check quillfeatherstorm."
    hit = Hit("turn", "cf2e729d", "t", "convotui", "claude-code", "/p", 0, ["m0"], ["m0"], 0.0, 1.0, None, user, "Done.")
    lines = format_hit(hit, ["quillfeatherstorm"]).splitlines()
    assert lines[1].startswith("    user: …") and lines[1].endswith("Also check quillfeatherstorm.")
    assert lines[2] == "    ai: Done."
