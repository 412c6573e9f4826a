"""What of a message is only searchable by its words (thinking, tool input and
output, the tail of a long message) and how much of each is indexed."""

from __future__ import annotations

import json
from typing import Any

from convo_tui.core.model import ToolCall

# Characters per keyword-only point, and how many characters of each kind are indexed.
KEYWORD_CHUNK_CHARS = 4000
PART_THINKING = "thinking"
PART_TOOL_INPUT = "tool input"
PART_TOOL_OUTPUT = "tool output"
PART_MESSAGE = ""  # the tail of a long message, past its dense chunks
KEYWORD_CAPS = {
    PART_THINKING: 32_000,
    PART_TOOL_INPUT: 8_000,  # per tool call
    PART_TOOL_OUTPUT: 16_000,  # per tool call
    PART_MESSAGE: 200_000,
}


def capped_pieces(text: str, cap: int) -> list[str]:
    """`text` in KEYWORD_CHUNK_CHARS pieces, at most `cap` characters in all. Past
    the cap it keeps its start and its last KEYWORD_CHUNK_CHARS: a test run's or a
    build's output ends with what went wrong, a long file read with its last lines."""
    if len(text) <= cap:
        kept = [text]
    else:
        tail = min(KEYWORD_CHUNK_CHARS, cap // 2)
        kept = [text[: cap - tail], text[len(text) - tail :]]
    return [part[start : start + KEYWORD_CHUNK_CHARS] for part in kept for start in range(0, len(part), KEYWORD_CHUNK_CHARS)]


def tool_input_text(tool: ToolCall) -> str:
    """A tool call's input as words: its name and argument values (commands, paths, patterns)."""
    values: list[str] = [tool.name]

    def walk(value: Any) -> None:
        if isinstance(value, str):
            values.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif value is not None:
            values.append(json.dumps(value))

    walk(tool.args)
    return "\n".join(values)
