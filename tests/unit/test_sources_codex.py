"""Codex CLI rollouts: the user's words from its events, reasoning as thinking,
tool calls with their arguments and outputs, and how to resume.

Fixtures follow openai/codex rollouts of codex-cli 0.44.0, 0.46.0 and 0.58.0 (`cli_version`) and the envelope-less ones of mid 2025."""

from __future__ import annotations

import json

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

SESSIONS = FIXTURES / "codex" / "sessions"
MODERN = SESSIONS / "2025/10/14/rollout-2025-10-14T16-20-00-0199e3a1-7c42-7d10-9b2e-5f6a7b8c9d01.jsonl"
OLDER = SESSIONS / "2025/08/02/rollout-2025-08-02T09-12-44-5d2f8a90-1b3c-4d5e-8f70-123456789abc.jsonl"
EMPTY = SESSIONS / "2025/10/14/rollout-2025-10-14T18-00-00-0199f000-aaaa-7bbb-8ccc-000000000000.jsonl"


def test_every_rollout_is_recognised_from_its_content(tmp_path):
    for path in (MODERN, OLDER, EMPTY):
        assert detect(path).name == "codex"
    renamed = tmp_path / "whatever.jsonl"  # the envelope is enough, whatever the name
    renamed.write_bytes(MODERN.read_bytes())
    assert detect(renamed).name == "codex"


def test_modern_rollout_reads_as_the_user_saw_it():
    (session,) = parse_path(MODERN)
    assert session.id == "0199e3a1-7c42-7d10-9b2e-5f6a7b8c9d01"
    assert session.project == "tilemap"
    assert session.cwd == "/home/lena/work/tilemap"
    assert session.resume == ["codex", "resume", "--", "0199e3a1-7c42-7d10-9b2e-5f6a7b8c9d01"]
    assert session.meta == {"model": "gpt-5-codex", "cli_version": "0.46.0", "branch": "fix/render-oob"}
    assert session.started_at.isoformat() == "2025-10-14T16:20:00+00:00"
    # AGENTS.md and <environment_context> are not the user's words; each user line once
    users = [m.text for m in session.messages if m.role == "user"]
    assert users == [
        "The renderer panics with index out of bounds when the map is smaller than the viewport. Fix it.",
        "Also add a test for a 1x1 map.",
    ]
    first = session.messages[1]
    assert first.role == "assistant"
    assert first.thinking == "**Locating the panic**\n\nI should find where tiles are indexed in the render loop."
    assert first.text.startswith("Fixed: `render.rs` now reads tiles")
    assert [t.name for t in first.tools] == ["shell", "apply_patch", "shell"]
    rg, patch, test = first.tools
    assert rg.args == {
        "command": ["bash", "-lc", "rg -n 'map\\[' src"],
        "workdir": "/home/lena/work/tilemap",
        "timeout_ms": 120000,
    }
    assert rg.result == "src/render.rs:42:    let tile = map[y * width + x];"
    assert patch.args["input"].startswith("*** Begin Patch\n*** Update File: src/render.rs")
    assert patch.result == "Success. Updated the following files:\nM src/render.rs"
    assert test.result.endswith("test result: ok. 12 passed; 0 failed")
    assert session.messages[3].tools[0].result == "Success. Updated the following files:\nA tests/tiny_map.rs"
    assert len(session.turns) == 2


def test_older_rollout_without_events_and_a_cut_last_line():
    (session,) = parse_path(OLDER)
    assert session.id == "5d2f8a90-1b3c-4d5e-8f70-123456789abc"
    assert session.cwd == "C:\\Users\\omar\\src\\budget-cli"  # from its environment context
    assert session.project == "budget-cli"
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "What does the --dry-run flag do in this CLI?"),
        ("assistant", "`--dry-run` prints the transactions it would import without writing the ledger."),
    ]
    assert session.messages[1].thinking == "**Reading the argument parser**"
    assert session.messages[1].tools[0].result == "src\\main.py:18: parser.add_argument('--dry-run')"
    assert [w.split(": ", 1)[1] for w in session.warnings] == ["truncated JSON (ends in the middle of a value)"]


def test_a_rollout_with_no_conversation_is_refused():
    with pytest.raises(ParseError, match="no messages found in this Codex CLI rollout"):
        parse_path(EMPTY)


def test_show_json_carries_cwd_and_resume(capsys):
    from convo_tui.cli.main import main

    assert main(["show", str(MODERN), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["session"]["resume"] == ["codex", "resume", "--", "0199e3a1-7c42-7d10-9b2e-5f6a7b8c9d01"]
    assert doc["messages"][1]["tools"][0]["result"].startswith("src/render.rs:42")
