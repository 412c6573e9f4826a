"""Widgets talk to their screen with messages, never by calling its methods by name."""

from __future__ import annotations

import re

from tests.paths import ROOT

WIDGETS = ROOT / "tui" / "widgets"
CALLS_SCREEN = re.compile(r"\b(?:self\.screen|self\.app\.screen|app\.screen|self\.app\.search_screen)\.\w+\(")


def test_no_widget_calls_a_screen_method():
    offenders = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(WIDGETS.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if CALLS_SCREEN.search(line)
    ]
    assert offenders == [], "post a message (tui/card_messages.py) instead:\n" + "\n".join(offenders)


def test_the_check_sees_a_call():
    assert CALLS_SCREEN.search("        self.screen.open_reader(self.hit.session_id)")
    assert not CALLS_SCREEN.search("        self.post_message(CardOpen(self))")
