"""JSON that is not a transcript we read is refused with one line naming the file,
never indexed as a garbled conversation (the OpenAI-style reader keeps to its shapes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from convo_tui.cli.main import main

from tests.paths import FIXTURES

UNKNOWN = "unknown format (not a transcript convo-tui can read)"
REFUSED = [
    FIXTURES / "gemini" / "stream" / "run.jsonl",  # Gemini CLI --output-format stream-json
    FIXTURES / "refused" / "managed-agents-events.json",  # Anthropic Managed Agents event list export
    FIXTURES / "refused" / "managed-agents-events.jsonl",
    FIXTURES / "refused" / "claude-stream.jsonl",  # Claude Code -p --output-format stream-json
]


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.name)
def test_other_tools_event_logs_get_one_line(path: Path, capsys):
    assert main(["show", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"convo-tui: {path}: {UNKNOWN}\n"


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
