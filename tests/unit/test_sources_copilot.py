"""VS Code Copilot Chat: exported chats, live chatSessions JSON and the newer journal.

Fixtures follow microsoft/vscode-copilot-chat chat sessions (format version 3) and the `.jsonl` journal of VS Code 1.105."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

ROOT = FIXTURES / "copilot"
SESSIONS = ROOT / "Code" / "User" / "workspaceStorage" / "7e1c0d9b2a3f4e5d6c7b8a9f0e1d2c3b" / "chatSessions"
LIVE = SESSIONS / "2f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f.json"
JOURNAL = SESSIONS / "a1b2c3d4-0000-4000-8000-journal00001.jsonl"
EXPORT = ROOT / "export" / "chat.json"


def test_live_session_with_tools_thinking_and_folder():
    assert detect(LIVE).name == "copilot-chat"
    (session,) = parse_path(LIVE)
    assert (session.id, session.title) == ("2f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f", "Fare estimate NaN")
    assert (session.project, session.cwd, session.resume) == ("ride-share", "/Users/kai/code/ride-share", None)
    assert session.started_at.isoformat() == "2025-10-02T10:29:50+00:00"
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "Why is the fare estimate NaN for trips under 1 km?"),
        (
            "assistant",
            "`perKm` divides by `Math.floor(km)`, which is 0 under 1 km. I changed it to divide by the exact distance with a 1 km floor.",
        ),
        ("user", "run the tests"),
        ("assistant", "All 9 fare tests pass."),
    ]
    reply = session.messages[1]
    assert reply.thinking == "Division by the rounded distance: Math.floor(0.6) is 0."
    read, edit = reply.tools
    assert read.args == {"filePath": "/Users/kai/code/ride-share/src/fare.ts", "startLine": 1, "endLine": 40}
    assert read.result.endswith("return total / Math.floor(km)\n}")
    assert (edit.name, edit.args) == ("edit", {"path": "/Users/kai/code/ride-share/src/fare.ts"})
    assert session.messages[3].tools[0].args == {"command": "npm test -- fare"}
    assert reply.meta == {"model": "copilot/claude-sonnet-4.5"}


def test_journal_is_replayed():
    assert detect(JOURNAL).name == "copilot-chat"
    (session,) = parse_path(JOURNAL)
    assert session.title == "Surge multiplier"
    assert [m.text for m in session.messages] == [
        "explain the surge multiplier",
        "It scales the base fare by demand over supply, capped at 3x.",
    ]
    assert session.project == "ride-share"


def test_exported_chat():
    (session,) = parse_path(EXPORT)
    assert (session.id, session.project, session.cwd) == ("chat", "Copilot Chat", None)
    assert session.title == "regex for a UK postcode?"
    assert session.messages[1].text.startswith("A common pattern")
