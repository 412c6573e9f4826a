"""Small pure helpers that turn core records into Rich text for the widgets.

Kept free of widgets so they can be tested directly and shared by the card,
the reader and the sessions list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from convo_tui.core.cost.prices import PriceTable
from convo_tui.core.cost.pricing import format_usd, price_models
from convo_tui.core.cost.usage import session_usage
from convo_tui.core.model import Session, ToolCall
from convo_tui.core.redact import shorten
from convo_tui.core.search.highlight import match_spans
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

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


@dataclass(frozen=True)
class IconRows:
    """Rows of an icon (two cells and a space) and a text wrapped under itself.

    What a two-column `Table.grid` draws, line for line, at a fraction of its cost:
    the search screen lays out every card on each keystroke.
    """

    rows: tuple[tuple[str, Text], ...]
    icon_width: int = 3

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(1, options.max_width - self.icon_width)
        # As the grid does: the text column as wide as its longest line, within the room left.
        width = max((Measurement.get(console, options.update_width(room), text).maximum for _, text in self.rows), default=1)
        text_options = options.update(
            width=max(1, width), height=None, justify="left", no_wrap=False, overflow="ellipsis", highlight=False
        )
        blank = Segment(" " * self.icon_width)
        for icon, text in self.rows:
            head = Segment(icon + " " * max(0, self.icon_width - Text(icon).cell_len))
            for number, line in enumerate(console.render_lines(text, text_options, pad=True)):
                yield head if number == 0 else blank
                yield from line
                yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        measured = [Measurement.get(console, options, text) for _, text in self.rows]
        if not measured:
            return Measurement(0, 0)
        return Measurement(
            self.icon_width + max(m.minimum for m in measured), self.icon_width + max(m.maximum for m in measured)
        ).clamp(max_width=options.max_width)


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
