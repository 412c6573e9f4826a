"""Issue 29 end to end over a real index: `stats --json` priced, `export` by id prefix, and
an agent that runs the MCP server exactly as `mcp install` wrote it into its config."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from convo_tui.cli.main import main

from tests.helpers.cost_corpus import cost_corpus
from tests.helpers.demo_corpus import utc_clock
from tests.helpers.mcp_client import mcp_session

OPUS_SESSION = "7d2f4a10-3b6c-4e8d-9f01-a2b3c4d5e6f7"  # tests/fixtures/cost/claude_code


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("share")
    corpus = cost_corpus(root / "corpus")
    folder = root / "index"
    with utc_clock():
        assert main(["index", str(corpus), "--index-dir", str(folder)]) == 0
    return folder


def test_stats_json_prices_the_index(index_dir, capsys):
    capsys.readouterr()
    with utc_clock():
        assert main(["stats", "--json", "--index-dir", str(index_dir)]) == 0
    report = json.loads(capsys.readouterr().out)
    by = {key: {row["name"]: row["cost_usd"] for row in report[key]} for key in ("by_project", "by_source", "by_week")}
    # the same hand-computed amounts as tests/unit/test_cost.py, read back from the store
    assert by["by_project"] == {"deployer": 0.0867275, "ledger": 0.019061, "Gemini CLI": 0.010075, "notes-api": 0.0246225}
    assert by["by_source"] == {"claude-code": 0.0867275, "codex": 0.019061, "gemini-cli": 0.010075, "opencode": 0.0246225}
    assert by["by_week"] == {"2026-W10": 0.086361, "2026-W11": 0.054125}
    assert report["total"]["cost_usd"] == 0.140486 and report["total"]["unpriced_tokens"] == {"gpt-9-lab": 5200}
    with utc_clock():
        assert main(["stats", "--index-dir", str(index_dir)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("6 sessions · 20 messages") and "gpt-9-lab (5,200 tokens)" in text


def test_export_by_id_prefix(index_dir, tmp_path, capsys):
    target = tmp_path / "opus.md"
    assert main(["export", OPUS_SESSION[:8], "-o", str(target), "--index-dir", str(index_dir)]) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Roll back the last deploy if the health check fails.")
    assert "| Cost | $0.05 |" in text and "| Model | claude-haiku-4-5-20251001, claude-opus-4-5-20251101 |" in text
    assert main(["export", OPUS_SESSION[:6], "--index-dir", str(index_dir)]) == 1
    assert f"session id '{OPUS_SESSION[:6]}' is too short: give 8 or more characters of it" in capsys.readouterr().err


def test_export_carries_the_users_tags_and_description_masked(index_dir, tmp_path, capsys):
    """Tags and descriptions were shown in the app and nowhere in an export."""
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token pasted into the description
    prefix = OPUS_SESSION[:8]
    assert main(["session", "tag", prefix, "rollback", "on call", "--index-dir", str(index_dir)]) == 0
    assert main(["session", "describe", prefix, f"how we undo a bad deploy; token {secret}", "--index-dir", str(index_dir)]) == 0
    capsys.readouterr()
    try:
        markdown, page, data = (tmp_path / "s.md", tmp_path / "s.html", tmp_path / "s.json")
        for target in (markdown, page, data):
            assert main(["export", prefix, "-o", str(target), "--index-dir", str(index_dir)]) == 0
        text = markdown.read_text(encoding="utf-8")
        assert "| Description | how we undo a bad deploy; token [REDACTED:github-token" in text
        assert '| Tags | #rollback #"on call" |' in text  # a tag with a space, quoted: one tag
        assert "<dt>Tags</dt><dd>#rollback #&quot;on call&quot;</dd>" in page.read_text(encoding="utf-8")
        export = json.loads(data.read_text(encoding="utf-8"))["export"]
        assert export["tags"] == ["rollback", "on call"] and export["description"].startswith("how we undo")
        assert not [f for f in (markdown, page, data) if secret in f.read_text(encoding="utf-8")]
    finally:  # the module's other tests see the session as it was
        assert main(["session", "tag", prefix, "rollback", "on call", "--remove", "--index-dir", str(index_dir)]) == 0
        assert main(["session", "describe", prefix, "", "--index-dir", str(index_dir)]) == 0


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content if result.structured_content is not None else json.loads(result.content[0].text)


async def drive(entry: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """Run the server as the agent's config entry `entry` says, in the project `cwd`."""
    seen: dict[str, Any] = {}
    async with mcp_session(entry["command"], entry["args"], env={**os.environ, **entry["env"]}, cwd=str(cwd)) as session:
        await session.initialize()
        seen["tools"] = sorted(tool.name for tool in (await session.list_tools()).tools)
        seen["search"] = structured(
            await session.call_tool("search", {"query": "health check", "mode": "keyword", "project": "deployer", "role": "user"})
        )
        seen["turn"] = structured(await session.call_tool("show_turn", {"session_id": OPUS_SESSION[:8], "turn_index": 0}))
        seen["recent"] = structured(await session.call_tool("recent_sessions", {}))
        seen["bundle"] = structured(
            await session.call_tool("context_bundle", {"question": "refunds report", "max_tokens": 300, "mode": "keyword"})
        )
        seen["too_small"] = await session.call_tool("context_bundle", {"question": "x", "max_tokens": 10})
    return seen


def test_an_agent_runs_the_server_mcp_install_wrote(index_dir, isolated_dirs, tmp_path, capsys):
    assert main(["mcp", "install", "claude-code", "--index-dir", str(index_dir)]) == 0
    config = isolated_dirs / "home" / ".claude" / ".claude.json"  # CLAUDE_CONFIG_DIR (tests/conftest.py)
    assert capsys.readouterr().out.startswith(f"claude-code: added convo-tui to {config}")
    entry = json.loads(config.read_text(encoding="utf-8"))["mcpServers"]["convo-tui"]
    assert entry["type"] == "stdio" and Path(entry["command"]).is_absolute()
    project = tmp_path / "work" / "deployer"  # agents start the server in the project they work on
    project.mkdir(parents=True)
    seen = anyio.run(drive, entry, project)

    assert seen["tools"] == sorted(
        ["search", "show_session", "show_turn", "recent_sessions", "context_bundle", "context", "list_sessions"]
    )
    (hit,) = seen["search"]["hits"]
    assert (hit["session_id"], hit["turn_index"]) == (OPUS_SESSION, 0)
    turn = seen["turn"]
    assert turn["session_id"] == OPUS_SESSION and [m["role"] for m in turn["messages"]] == ["user", "assistant"]
    (edit,) = turn["messages"][1]["tools"]
    assert edit["name"] == "Edit" and "curl -fsS" in edit["args"] and edit["result"] == "The file has been updated."
    recent = seen["recent"]
    assert recent["project"] == "deployer" and len(recent["sessions"]) == 2
    assert recent["sessions"][0]["id"] == OPUS_SESSION  # newest first
    bundle = seen["bundle"]
    assert bundle["tokens"] <= 300 and bundle["turns"][0]["session_id"] == "019cb2d4-5e6f-7a80-9b1c-2d3e4f5a6b7c"
    assert bundle["text"].startswith("# Past conversations relevant to: refunds report")
    assert seen["too_small"].is_error and "max_tokens must be at least 200" in seen["too_small"].content[0].text
