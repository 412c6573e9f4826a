"""The harness itself, on commands that need no index: what a person sees first."""

from __future__ import annotations

from tests.e2e.terminal import convo_tui


def test_help_is_readable_at_80_columns_and_exits_0(terminal):
    term = terminal([*convo_tui(), "--help"], cols=80, rows=24)
    assert term.wait_exit() == 0
    shown = term.scrollback()
    assert "usage: convo-tui" in shown and "index" in shown and "search" in shown
    assert max(len(line) for line in shown.splitlines()) <= 80


def test_search_with_no_index_is_one_line_and_exit_1(terminal, tmp_path):
    term = terminal([*convo_tui(), "search", "qdrant", "--index-dir", str(tmp_path / "none")], cols=80, rows=24)
    assert term.wait_exit() == 1
    lines = [line for line in term.scrollback().splitlines() if line.strip()]
    assert len(lines) <= 2 and lines[0].startswith("convo-tui: "), lines
    assert "Traceback" not in term.raw
