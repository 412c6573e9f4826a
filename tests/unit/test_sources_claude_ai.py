"""Claude.ai export (`conversations.json`): one session per conversation.

Fixtures follow the Claude.ai data export's `conversations.json` of 2024-03 – 2025."""

from __future__ import annotations

from pathlib import Path

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

EXPORT = FIXTURES / "claude_ai" / "conversations.json"


def test_export_is_told_apart_from_a_chatgpt_export():
    assert detect(EXPORT).name == "claude-ai"
    assert detect(FIXTURES / "chatgpt" / "conversations.json").name == "chatgpt"
    assert detect(EXPORT.with_name("projects.json")) is None


def test_each_conversation_with_messages_is_a_session():
    old, new = parse_path(EXPORT)  # the empty conversation is not a session
    assert (old.id, old.title, old.project, old.resume) == (
        "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9",
        "Sourdough starter schedule",
        "Claude.ai",
        None,
    )
    assert old.started_at.isoformat() == "2024-03-09T08:14:22.118905+00:00"
    assert [m.role for m in old.messages] == ["user", "assistant"]
    assert new.title == "Can you review this import script? It skips rows with quotes."
    user, reply = new.messages
    assert user.text == "Can you review this import script? It skips rows with quotes.\n\n[file: import_rows.py]"
    assert "import csv" not in user.text  # the attachment's content is the file's, not the user's words
    assert reply.thinking == "They split on commas by hand; quoted fields with commas break. Suggest csv.reader."
    (search,) = reply.tools
    assert search.args == {"query": "python csv module quoted fields newline=''"}
    assert search.result == "If csvfile is a file object, it should be opened with newline=''."
    assert reply.text.startswith("The script splits on commas itself")


def test_bom_is_skipped(tmp_path: Path):
    path = tmp_path / "conversations.json"
    path.write_bytes(b"\xef\xbb\xbf" + EXPORT.read_bytes())
    assert [s.id for s in parse_path(path)] == [s.id for s in parse_path(EXPORT)]
