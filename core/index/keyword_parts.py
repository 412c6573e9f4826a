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
    """`text` in pieces of at most KEYWORD_CHUNK_CHARS, cut between words, at most
    `cap` characters in all. Past the cap it keeps its start and its last
    KEYWORD_CHUNK_CHARS: a test run's or a build's output ends with what went
    wrong, a long file read with its last lines."""
    if len(text) <= cap:
        return _between_words(text)
    tail = min(KEYWORD_CHUNK_CHARS, cap // 2)
    return _between_words(text[: cap - tail]) + _between_words(text[len(text) - tail :])


def _between_words(text: str) -> list[str]:
    """Pieces of at most KEYWORD_CHUNK_CHARS, each ending at a space where one is
    in its second half: a word cut in two is found by neither half."""
    pieces = []
    start = 0
    while start < len(text):
        end = min(start + KEYWORD_CHUNK_CHARS, len(text))
        if end < len(text):
            space = max(text.rfind(c, start + KEYWORD_CHUNK_CHARS // 2, end) for c in " \n\t")
            end = space + 1 if space > 0 else end
        pieces.append(text[start:end])
        start = end
    return pieces


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
