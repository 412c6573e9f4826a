"""`convo-tui mcp --help` names its tools, their arguments and how to register it (issue 23)."""

from __future__ import annotations

import pytest
from convo_tui.cli.main import main


def test_mcp_help_names_the_tools_their_arguments_and_how_to_register(capsys):
    with pytest.raises(SystemExit) as done:
        main(["mcp", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for signature in (
        "search(query, limit=10, mode='hybrid', project, source, after, before)",
        "show_session(session_id, first_turn, last_turn)",
        "context(question, session_id, recent=10, refs=5)",
        "list_sessions(project, limit=20)",
    ):
        assert signature in out
    assert "claude mcp add -s user convo-tui -- convo-tui mcp" in out
    assert "codex mcp add convo-tui -- convo-tui mcp" in out
    assert '"command": "convo-tui", "args": ["mcp"]' in out
    assert max(len(line) for line in out.splitlines()) <= 80
