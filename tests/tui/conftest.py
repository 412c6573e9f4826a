"""The app tier: Pilot tests and snapshots over the real engine."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def clipboard_to_file(monkeypatch):
    """Never the clipboard of the person running the tests: copies go to a file."""
    monkeypatch.setenv("CONVO_TUI_CLIPBOARD", "file")
