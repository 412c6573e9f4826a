"""Claude Agent SDK / `claude -p --output-format stream-json` logs.

Fixtures follow the messages anthropics/claude-agent-sdk-python parses in
`src/claude_agent_sdk/_internal/message_parser.py` @ e8bde601, as Claude Code 2.1 prints them."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

LOG = FIXTURES / "claude_stream" / "release-notes.jsonl"
SID = "9a7c5e3b-1d2f-4a6b-8c0e-3f5a7b9c1d2e"


def test_reply_lines_of_one_api_message_are_one_message():
    assert detect(LOG).name == "claude-stream-json"
    (session,) = parse_path(LOG)
    assert (session.id, session.cwd, session.project) == (SID, "/home/ravi/site", "site")
    assert session.resume == ["claude", "--resume", SID]
    assert [(m.role, m.text[:30]) for m in session.messages] == [
        ("user", "The release notes page shows y"),
        ("assistant", ""),
        ("assistant", "nginx caches every page for a "),
    ]
    first = session.messages[1]
    assert first.thinking == "Probably a cache header or a stale build step."
    (bash,) = first.tools
    assert bash.args["command"] == "grep -n max-age deploy/nginx.conf"
    assert bash.result == '14:    add_header Cache-Control "max-age=86400";'
    assert first.meta["usage"]["output_tokens"] == 52  # the last line's count, once
    assert session.meta == {"model": "claude-sonnet-4-5-20250929", "cli_version": "2.1.4"}


def test_the_result_line_is_not_another_message():
    (session,) = parse_path(LOG)
    assert sum(m.text.startswith("nginx caches") for m in session.messages) == 1


def test_sub_agent_lines_are_apart(tmp_path):
    path = tmp_path / "sub.jsonl"
    text = LOG.read_text(encoding="utf-8").replace('"parent_tool_use_id":null', '"parent_tool_use_id":"toolu_01Task"', 2)
    path.write_text(text, encoding="utf-8")
    (session,) = parse_path(path)
    assert [m.sidechain for m in session.messages][:2] == [True, True]
