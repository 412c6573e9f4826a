"""What of a message is only searchable by its words (thinking, tool input and
output, the tail of a long message), how much of each is indexed, and how a
message's thinking and tool calls are packed into few points."""

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
# A message's thinking and tool calls packed together (packed_parts); its payload's
# `part_spans` say which label each stretch of its text has, and a hit shows the
# label and text of the stretch its words matched (part_at).
PART_PACKED = "parts"
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


def packed_parts(parts: list[tuple[str, str]]) -> list[tuple[str, list[list[Any]]]]:
    """A message's keyword-only `parts` ((label, text): its thinking, each tool
    call's input and output), each capped as KEYWORD_CAPS says, packed in order
    into pieces of at most KEYWORD_CHUNK_CHARS: (text, spans), each span
    [start, end, label] of the piece's text.

    One point per part made tool calls most of the index: at 100k messages 189k
    of 394k points were tool inputs (72 characters on average) and outputs, and
    every point costs phase 1 its writes and the index ~100 bytes of RAM for
    good (BENCHMARKS.md, "Twelfth session")."""
    pieces: list[tuple[str, list[list[Any]]]] = []
    text, spans = "", list[list[Any]]()
    for label, raw in parts:
        for chunk in capped_pieces((raw or "").strip(), KEYWORD_CAPS[label]):
            chunk = chunk.strip()
            if not chunk:
                continue
            if text and len(text) + 1 + len(chunk) > KEYWORD_CHUNK_CHARS:
                pieces.append((text, spans))
                text, spans = "", list[list[Any]]()
            start = len(text) + 1 if text else 0
            text = f"{text}\n{chunk}" if text else chunk
            spans.append([start, len(text), label])
    if text:
        pieces.append((text, spans))
    return pieces


def part_at(payload: dict[str, Any], words: list[str]) -> tuple[str, str]:
    """A keyword-only point's part label and the text a card shows for it: for a
    packed point, the stretch that holds most of `words` (the query's phrases and
    words; a longer one found counts for more, so a phrase outweighs a word of it
    found elsewhere; the first stretch on a tie or when none is found); for any
    other point, its own `part` and `text`."""
    part, text = str(payload.get("part", "") or ""), str(payload.get("text", "") or "")
    spans = [span for span in payload.get("part_spans") or [] if isinstance(span, list) and len(span) == 3]
    if part != PART_PACKED or not spans:
        return part, text
    lowered = text.casefold()
    terms = [word.casefold() for word in words if word]
    best, most = spans[0], 0
    for span in spans:
        piece = lowered[span[0] : span[1]]
        found = sum(len(term) for term in terms if term in piece)
        if found > most:
            best, most = span, found
    return str(best[2]), text[best[0] : best[1]]
