"""What the stats screen draws from a Stats: the summary line, the charts and the tables.

Pure functions of the counts and the price table (no widgets), so the screen
stays a loader and the drawings can be tested on their own.
"""

from __future__ import annotations

from datetime import date

from convo_tui.core.cost.prices import PICO_PER_USD, PriceTable
from convo_tui.core.cost.pricing import Cost, format_usd
from convo_tui.core.stats import Count, Stats
from convo_tui.core.stats_report import count_cost, count_usage
from convo_tui.tui.render import plural, short_number
from convo_tui.tui.widgets.charts import ColumnChart, HeatMap, continuous_weeks
from rich.console import Group
from rich.table import Table
from rich.text import Text

WEEKS_SHOWN = 12


def tokens_cell(count: Count) -> Text:
    if not count.has_tokens:
        return Text("—", style="dim")
    return Text(f"{short_number(count.tokens.input)} in / {short_number(count.tokens.output)} out")


def cost_text(cost: Cost) -> Text:
    """The priced part, and "+?" when some of the usage has no price (named in the summary)."""
    if not cost.pico and not cost.unpriced:
        return Text("—", style="dim")
    text = Text(format_usd(cost.pico) if cost.pico else "")
    if cost.unpriced:
        text.append("+?" if cost.pico else "not priced", style="italic")
    return text


def week_label(week: str) -> str:
    """ "2026-W10" -> "2026-W10  Mar 02" (its Monday): a week number alone says little."""
    try:
        year, number = week.split("-W")
        return f"{week}  {date.fromisocalendar(int(year), int(number), 1):%b %d}"
    except ValueError:
        return week


def group_table(
    title: str, column: str, rows: list[tuple[str, Count]], table: PriceTable, *, weeks: bool = False, tokens: bool = True
) -> Table:
    """One row per group; Tokens and Cost only when some source recorded usage."""
    grid = Table(title=title, title_justify="left", title_style="bold", box=None, padding=(0, 1))
    grid.add_column(column, max_width=40, overflow="ellipsis", no_wrap=True)
    grid.add_column("Sessions", justify="right")
    grid.add_column("Messages", justify="right")
    if tokens:
        grid.add_column("Tokens", justify="right", no_wrap=True)
        grid.add_column("Cost", justify="right", no_wrap=True)
    for name, count in rows:
        cells: list[str | Text] = [week_label(name) if weeks else name, str(count.sessions), str(count.messages)]
        if tokens:
            cells += [tokens_cell(count), cost_text(count_cost(count, table))]
        grid.add_row(*cells)
    return grid


def model_table(stats: Stats, table: PriceTable) -> Table:
    """Per model: the prompt split as it is billed (fresh input, cache reads, cache writes), output, cost."""
    title = Text("Per model", style="bold")
    title.append("  (prompt: fresh, read from cache, written to cache)", style="dim")
    grid = Table(title=title, title_justify="left", box=None, padding=(0, 1))
    grid.add_column("Model", max_width=30, overflow="ellipsis", no_wrap=True)
    for name in ("Input", "Read", "Written", "Output", "Cost"):
        grid.add_column(name, justify="right", no_wrap=True)
    for name, count in stats.models():
        usage = count_usage(count)
        grid.add_row(
            name,
            short_number(usage.input),
            short_number(usage.cache_read),
            short_number(usage.cache_write + usage.cache_write_1h),
            short_number(usage.output),
            cost_text(count_cost(count, table)),
        )
    return grid


def stats_summary(stats: Stats, table: PriceTable | None = None) -> Text:
    total = stats.total
    line = Text()
    line.append(plural(total.sessions, "session"), style="bold")
    line.append(f" · {plural(total.messages, 'message')} · {plural(len(stats.by_project), 'project')}")
    line.append(f" · {plural(len(stats.by_source), 'source')}")
    if not total.has_tokens:
        line.append(" · no source recorded token usage")
        return line
    recorded = [name for name, count in stats.sources() if count.has_tokens]
    line.append(f" · {short_number(total.tokens.total)} tokens (recorded by {', '.join(recorded)} only)")
    if table is not None:
        cost = count_cost(total, table)
        if cost.pico:
            line.append(" · ")
            line.append(format_usd(cost.pico), style="bold")
        if cost.unpriced:
            named = ", ".join(f"{model} {short_number(tokens)}" for model, tokens in sorted(cost.unpriced.items()))
            line.append(f" · not priced (+?): {named} tokens", style="italic")
    return line


def activity_charts(stats: Stats, table: PriceTable) -> Group:
    """The calendar of messages per day, then sessions, tokens and cost per week, a blank line apart."""
    days = {date.fromisoformat(day): count.messages for day, count in stats.days()}
    charts: list[HeatMap | ColumnChart] = []
    if days:
        charts.append(HeatMap("Messages per day", days, max(days)))
    weeks = stats.by_week
    charts.append(ColumnChart("Sessions per week", continuous_weeks({w: c.sessions for w, c in weeks.items()}), short_number))
    if stats.total.has_tokens:
        tokens = continuous_weeks({w: c.tokens.total for w, c in weeks.items()})
        charts.append(ColumnChart("Tokens per week", tokens, short_number))
        costs = continuous_weeks({w: count_cost(c, table).pico / PICO_PER_USD for w, c in weeks.items()})
        charts.append(ColumnChart("Cost per week", costs, lambda usd: format_usd(round(usd * PICO_PER_USD))))
    parts: list[HeatMap | ColumnChart | Text] = []
    for chart in charts:
        parts += [chart, Text("")]
    return Group(*parts[:-1])
