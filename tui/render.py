"""Small pure helpers that turn core records into Rich text and Textual Content for the widgets.

Kept free of widgets so they can be tested directly and shared by the card,
the reader and the sessions list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from convo_tui.core.cost.prices import PriceTable
from convo_tui.core.cost.pricing import format_usd, price_models
from convo_tui.core.cost.usage import session_usage
from convo_tui.core.model import Session, ToolCall
from convo_tui.core.redact import shorten
from convo_tui.core.search.highlight import match_spans
from rich.cells import cell_len
from rich.text import Text
from textual.content import Content, Span

BAR_WIDTH = 8


def format_date(value: datetime | None) -> str:
    """In the user's time zone (core keeps UTC); absolute, since "3 days ago" changes under a test."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M") if value else "—"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def short_number(value: float) -> str:
    """12345 -> 12.3k: token counts are large and only their size matters here."""
    for limit, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if value >= limit:
            return f"{value / limit:.1f}{suffix}"
    return str(round(value))


def session_cost(session: Session, table: PriceTable) -> str:
    """ "52.0k tokens · $0.03" for a session whose tool recorded usage, "" otherwise;
    "+?" marks usage of a model the price table does not know."""
    models = session_usage(session)
    if not models:
        return ""
    tokens = sum(usage.total for usage in models.values())
    cost = price_models(models, table)
    text = f"{short_number(tokens)} tokens"
    if cost.pico:
        text += f" · {format_usd(cost.pico)}"
    if cost.unpriced:
        text += " +?" if cost.pico else " · not priced"
    return text


def relevance_bar(similarity: float, width: int = BAR_WIDTH) -> str:
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


def highlighted_content(text: str, terms: Iterable[str], style: str = "reverse") -> Content:
    """`highlighted` as Textual's own Content, which a widget draws without Rich's console."""
    return Content(text, [Span(start, end, style) for start, end in match_spans(text, list(terms))])


def icon_lines(rows: Iterable[tuple[str, Content]], icon_width: int = 3) -> Content:
    """One line per row: its icon (padded to `icon_width` cells) and its text.

    Each text is one line (a snippet); the widget cuts it at its edge with "…"
    (`text-wrap: nowrap; text-overflow: ellipsis`). Content, not a Rich
    renderable: the search screen lays out every card on each keystroke, and
    Textual draws Content without going through Rich's console (BENCHMARKS.md,
    "Twenty-second session")."""
    lines = []
    for icon, text in rows:
        pad = " " * max(0, icon_width - cell_len(icon))
        lines.append(Content(icon + pad) + text)
    return Content("\n").join(lines)


def args_summary(args: dict[str, Any], width: int = 60, shown: Callable[[str], str] = str) -> str:
    """One line: `key: value, key: value`, masked by `shown` and then cut at `width`
    (masking first: a cut secret would escape its pattern)."""
    parts = []
    for key, value in args.items():
        text = value if isinstance(value, str) else repr(value)
        parts.append(f"{key}: {' '.join(str(text).split())}")
    return shorten(shown(", ".join(parts)), width)


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


def tool_title(tool: ToolCall, width: int = 60, shown: Callable[[str], str] = str) -> str:
    summary = args_summary(tool.args, width, shown)
    return f"🔧 {tool.name}({summary})" if summary else f"🔧 {tool.name}()"


def args_are_long(args: dict[str, Any], width: int = 60) -> bool:
    return len(args_summary(args, 10_000)) > width or any("\n" in str(v) for v in args.values())
