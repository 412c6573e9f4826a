"""The line under the query box: mode, active filters, result count, query errors."""

from __future__ import annotations

from datetime import datetime

from convo_tui.core.errors import QueryError
from convo_tui.core.search.highlight import query_terms
from convo_tui.core.search.query import ParsedQuery, parse_query
from rich.text import Text


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d")


def active_filters(parsed: ParsedQuery) -> list[str]:
    shown = []
    for key in ("project", "session", "role", "tool", "source", "machine", "tag"):
        value = getattr(parsed, key)
        if value:
            shown.append(f'{key}:"{value}"' if any(ch.isspace() for ch in value) else f"{key}:{value}")
    if parsed.has_tools:
        shown.append("has:tools")
    if parsed.after is not None:
        shown.append(f"after:{_day(parsed.after)}")
    if parsed.before is not None:
        shown.append(f"before:{_day(parsed.before)}")
    shown.extend(f'"{phrase}"' for phrase in parsed.phrases)
    return shown


def with_filter(query: str, key: str, value: str) -> str:
    """`query` with `key:value` added at its end, replacing the same key's filter if it had one."""
    import re

    rest = re.sub(rf'(?<!\S){re.escape(key)}:(?:"[^"]*"|\S*)', " ", query, flags=re.IGNORECASE)
    written = f'{key}:"{value}"' if any(ch.isspace() for ch in value) else f"{key}:{value}"
    words = " ".join(rest.split())
    return f"{words} {written} " if words else f"{written} "


def describe_filters(query: str) -> str:
    """The query's filters as the user wrote them, for a sentence ("after:2w and project:shop")."""
    from convo_tui.core.search.query import filter_tokens

    parts = filter_tokens(query)
    if not parts:
        return "the filters"
    if len(parts) == 1:
        return f"the filter {parts[0]}"
    return "the filters " + ", ".join(parts[:-1]) + f" and {parts[-1]}"


def describe_query(
    query: str,
    mode: str,
    *,
    count: int | None = None,
    error: str | None = None,
    note: str = "",
    more: bool = False,
    newest_first: bool = False,
) -> Text:
    """Mode, what meaning covers, the count (or the query's error), the order, then
    the filters: the query box above shows them, so at 80 columns they are what the
    line's end (cut with "…" by the widget) may lose."""
    line = Text()
    line.append(" mode ", style="reverse")
    line.append(f" {mode}")
    if note:
        line.append(f" ({note})", style="italic")
    try:
        filters = active_filters(parse_query(query))
    except QueryError as exc:
        filters = []
        error = error or str(exc)
    if error:
        line.append(f"   ⚠ {error}", style="bold")
    elif count is not None and query.strip():
        shown = f"{count}+" if more else str(count)
        line.append(f"   {shown} result{'s' if count != 1 else ''}")  # the line is already muted: dim fell to 3.3:1
        if more and not newest_first:  # "+" says it then: both did not fit 80 columns with the coverage note
            line.append(" (↓ for more)")  # short: the line must fit 80 columns with the coverage note
    if newest_first:
        line.append("   newest first", style="bold")
    if filters:
        line.append("   filters ", style="bold")
        line.append("  ".join(filters))
    return line


def highlight_words(query: str) -> list[str]:
    """Words and phrases of the query to mark in the cards (filters left out)."""
    try:
        parsed = parse_query(query)
    except QueryError:
        return []
    return query_terms(parsed.text, list(parsed.phrases))
