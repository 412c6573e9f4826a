"""Anthropic-style content blocks, which several tools write as they got them
from the API (Claude Code, `claude -p` stream-json and the Agent SDK, Factory
Droid, Amp): `text`, `thinking`, `tool_use` {id, name, input}, `tool_result`
{tool_use_id, content}, `image`, `document`. One reader for all of them.
"""

from __future__ import annotations

from typing import Any

from convo_tui.core.cost.usage import CACHE_WRITE_1H_KEY
from convo_tui.core.model import ToolCall
from convo_tui.core.sources._common import IMAGE, arguments, dict_of, result_text, token_count, usage_of
from convo_tui.core.sources._drift import unknown

DOCUMENT = "[document]"
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_THINKING = {"thinking", "redacted_thinking"}
_CALLS = {"tool_use", "server_tool_use", "mcp_tool_use"}
_RESULTS = {"tool_result", "web_search_tool_result", "web_fetch_tool_result", "mcp_tool_result", "code_execution_tool_result"}
_QUIET = {"container_upload", "search_result"}  # carry nothing a reader shows


class Parts:
    """The blocks of one message: words, thinking, the calls it made and the
    results it carried (by the id of the call they answer)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.thinking: list[str] = []
        self.tools: list[ToolCall] = []
        self.results = 0
        self.call_ids: list[tuple[str, ToolCall]] = []  # tool_use id -> the call
        self.outputs: list[tuple[str, str]] = []  # (tool_use id, what the tool answered)

    def add(self, content: Any) -> Parts:
        if isinstance(content, str):
            self.texts.append(content)
            return self
        if not isinstance(content, list):
            return self
        for part in content:
            if isinstance(part, str):
                self.texts.append(part)
            elif isinstance(part, dict):
                self.block(part)
        return self

    def block(self, part: dict[str, Any]) -> None:
        kind = part.get("type") if isinstance(part.get("type"), str) else ""
        if kind == "text":
            self.texts.append(str(part.get("text") or ""))
        elif kind in _THINKING:
            self.thinking.append(str(part.get("thinking") or ""))
        elif kind in _CALLS:
            call = ToolCall(str(part.get("name") or "tool"), arguments(part.get("input")))
            self.tools.append(call)
            if isinstance(part.get("id"), str):
                self.call_ids.append((part["id"], call))
        elif kind in _RESULTS:
            self.results += 1
            call_id = part.get("tool_use_id") or part.get("toolUseID")
            if isinstance(call_id, str):
                self.outputs.append((call_id, result_text(part.get("content"))))
        elif kind == "image":
            self.texts.append(IMAGE)
        elif kind == "document":
            self.texts.append(DOCUMENT)
        elif kind not in _QUIET:
            unknown("part", kind or "(no type)")


def api_usage(message: dict[str, Any]) -> dict[str, int]:
    """The Anthropic usage counters of one API message (cache counts are apart from
    `input_tokens`), with the 1-hour share of the cache writes, billed at another price."""
    usage = dict_of(message.get("usage"))
    counts = {key: token_count(usage.get(key)) for key in USAGE_KEYS}
    creation = usage.get("cache_creation")
    if isinstance(creation, dict):
        counts[CACHE_WRITE_1H_KEY] = token_count(creation.get("ephemeral_1h_input_tokens"))
    return usage_of(**counts)
