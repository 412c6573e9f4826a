"""Small pure helpers that turn core records into Rich text for the widgets.

Kept free of widgets so they can be tested directly and shared by the card,
the reader and the sessions list.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from rich.text import Text

from core.highlight import match_spans
from core.model import ToolCall

BAR_WIDTH = 8


def format_date(value: datetime | None) -> str:
    """In the user's time zone (core keeps UTC); absolute, since "3 days ago" changes under a test."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M") if value else "—"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def similarity_bar(similarity: float, width: int = BAR_WIDTH) -> str:
    clamped = min(max(similarity, 0.0), 1.0)
    filled = round(clamped * width)
    return "█" * filled + "░" * (width - filled)


def clip_chars(text: str, max_lines: int, max_chars: int) -> str:
    """At most `max_lines` non-empty lines and about `max_chars` characters, ending in "…" when cut.

    A card is a glance: a character budget keeps it a few rows tall at 80 columns
    whatever the line lengths of the source.
    """
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    kept: list[str] = []
    left = max_chars
    for line in lines[:max_lines]:
        if len(line) > left:
            cut = line[: max(left - 1, 0)]
            space = cut.rfind(" ")
            ends_word = line[len(cut)] == " "
            if not ends_word and space > 0 and space > len(cut) - 20:  # end on a whole word nearby
                cut = cut[:space]
            kept.append(cut.rstrip() + "…")
            return "\n".join(kept)
        kept.append(line)
        left -= len(line)
    if len(lines) > max_lines:
        kept[-1] += " …"
    return "\n".join(kept)


def highlighted(text: str, terms: Iterable[str], style: str = "reverse") -> Text:
    """`text` with the query's terms styled (see core.highlight for what matches)."""
    result = Text(text)
    for start, end in match_spans(text, list(terms)):
        result.stylize(style, start, end)
    return result


def args_summary(args: dict[str, Any], width: int = 60) -> str:
    """One line: `key: value, key: value`, cut at `width`."""
    parts = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else repr(value)
        parts.append(f"{key}: {' '.join(str(shown).split())}")
    line = ", ".join(parts)
    return line if len(line) <= width else line[: width - 1] + "…"


def args_full(args: dict[str, Any]) -> str:
    lines = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else repr(value)
        if "\n" in str(shown):
            lines.append(f"{key}:")
            lines.extend(f"  {line}" for line in str(shown).splitlines())
        else:
            lines.append(f"{key}: {shown}")
    return "\n".join(lines) or "(no arguments)"


def tool_title(tool: ToolCall, width: int = 60) -> str:
    summary = args_summary(tool.args, width)
    return f"🔧 {tool.name}({summary})" if summary else f"🔧 {tool.name}()"


def args_are_long(args: dict[str, Any], width: int = 60) -> bool:
    return len(args_summary(args, 10_000)) > width or any("\n" in str(v) for v in args.values())
