"""JSON that is not a transcript we read is refused with one line naming the file,
never indexed as a garbled conversation (the OpenAI-style reader keeps to its shapes).
The event logs refused here before (Gemini and Claude stream-json, Managed Agents events)
have readers of their own now: they are read, not refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from convo_tui.cli.main import main

from tests.paths import FIXTURES

UNKNOWN = "unknown format (not a transcript convo-tui can read)"
REFUSED = [
    FIXTURES / "refused" / "unknown-events.jsonl",  # another tool's event stream, no reader for it
]
READ_NOW = {
    FIXTURES / "gemini_stream" / "readme-run.jsonl": "gemini-stream",
    FIXTURES / "managed_agents" / "incidents-page.json": "claude-managed-agents",
    FIXTURES / "managed_agents" / "incidents.jsonl": "claude-managed-agents",
    FIXTURES / "claude_stream" / "minimal.jsonl": "claude-stream-json",
}


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.name)
def test_other_tools_event_logs_get_one_line(path: Path, capsys):
    assert main(["show", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"convo-tui: {path}: {UNKNOWN}\n"


@pytest.mark.parametrize("path", list(READ_NOW), ids=lambda p: p.name)
def test_event_logs_once_refused_are_read_by_their_own_reader(path: Path):
    from convo_tui.core.sources import detect, parse_path

    assert detect(path).name == READ_NOW[path]
    assert parse_path(path)


def test_event_lines_after_the_sniffed_head_still_refuse_the_file(tmp_path: Path, capsys):
    path = tmp_path / "mixed.jsonl"
    chat = '{"role": "user", "content": "hello"}\n' * 4000  # more than the sniffed head
    path.write_text(chat + '{"type": "message", "role": "assistant", "content": "hi", "delta": true}\n', encoding="utf-8")
    assert main(["show", str(path)]) == 1
    err = capsys.readouterr().err
    assert (
        err
        == f"convo-tui: {path}: unknown format (streamed chunks (`delta`): another tool's event log, not an OpenAI chat log)\n"
    )
