"""Claude Agent SDK / `claude -p --output-format stream-json` logs.

What the Agent SDK yields (`claude_agent_sdk` message parser) and `claude -p
--output-format stream-json --verbose` prints, saved to a file: a `system`
`init` line {session_id, cwd, model, claude_code_version}, then `user` and
`assistant` lines whose `message` is the API message (the same shape Claude
Code writes to its session log, so the Claude Code reader's rules apply: one
reply per API message id, tool results attached to their calls, injected
blocks not the user's words), `parent_tool_use_id` marking a sub-agent's lines,
and a final `result` (a repeat of the last answer with the run's totals: not
another message). Qwen Code's stream-json has the same shape. The SDK also
saves the session under `~/.claude/projects`, which the `claude-code` reader
reads; this reader is for logs people keep themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from convo_tui.core.model import Session
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import Names, first_record, json_records, str_of
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import build_session
from convo_tui.core.sources.claude_code import Transcript

SOURCE = "claude-stream-json"
_STATUS = Names({"result", "stream_event", "rate_limit_event", "conversation_reset", "control_request", "control_response"})


def sniff(path: Path, head: str) -> bool:
    first = first_record(head)
    return first.get("type") == "system" and first.get("subtype") == "init" and "session_id" in first and "sessionId" not in first


def parse(path: Path) -> list[Session]:
    path = Path(path)
    transcript = Transcript(path)
    facts: dict[str, Any] = {}
    for number, line in json_records(path, read_text(path), transcript.warnings):
        kind = line.get("type")
        if kind == "system":
            if line.get("subtype") == "init" and not facts:
                facts = line
        elif kind in ("user", "assistant"):
            transcript.line(
                number,
                {
                    **line,
                    "sessionId": line.get("session_id"),
                    "isSidechain": bool(line.get("parent_tool_use_id")),
                    "cwd": facts.get("cwd"),
                },
            )
        elif kind not in _STATUS:
            unknown("event", kind)
    if not transcript.messages:
        return []
    ids = transcript.session_ids
    session_id = str_of(facts.get("session_id")) or (max(ids, key=lambda sid: ids[sid]) if ids else path.stem)
    cwd = str_of(facts.get("cwd")) or None
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            transcript.messages,
            title=transcript.title() if transcript.custom_title or transcript.ai_title else None,
            cwd=cwd,
            project="Claude Agent SDK",
            meta={"model": facts.get("model"), "cli_version": facts.get("claude_code_version")},
            resume=resume_command("claude", session_id) if cwd else None,
            warnings=transcript.warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Claude stream-json log",
    sniff=sniff,
    parse=parse,
    tool="Claude Agent SDK stream-json",
    versions="claude-agent-sdk (Python, `message_parser.py` of 2026), Claude Code 2.1",
    places="wherever you saved the output (add it to `sources`)",
    resume="`claude --resume <id>` (when the log names its folder)",
    keeps="your words, replies, thinking, tool calls with inputs and results, sub-agent lines apart, model, "
    "tokens per API message; status lines and the final `result` are not messages",
)
