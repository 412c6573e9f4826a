"""Charts drawn with text blocks, as Rich renderables that fit the width they are given.

`ColumnChart`: one column per week (eighth-block precision), the largest
value on the y axis, a date under every few columns. `HeatMap`: a calendar,
one cell per day (Monday on top), shaded by activity in five steps. Both read
without colour: the shades are characters (`·░▒▓█`), not hues.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

EIGHTHS = " ▁▂▃▄▅▆▇█"
SHADES = "·░▒▓█"  # no activity, then four quartiles of the busiest day
DAY_NAMES = ("Mon", "", "Wed", "", "Fri", "", "Sun")
AXIS_WIDTH = 8  # the y-axis labels ("$12.34 ┤")
MIN_WEEKS = 12


def monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def week_start(week: str) -> date | None:
    """ "2026-W10" -> the Monday it starts on."""
    try:
        year, number = week.split("-W")
        return date.fromisocalendar(int(year), int(number), 1)
    except ValueError:
        return None


def continuous_weeks(values: dict[str, float]) -> list[tuple[date, float]]:
    """Every week from the first to the last one with a value, the quiet ones as 0."""
    dated = {start: value for week, value in values.items() if (start := week_start(week)) is not None}
    if not dated:
        return []
    first, last = min(dated), max(dated)
    weeks, at = [], first
    while at <= last:
        weeks.append((at, dated.get(at, 0.0)))
        at += timedelta(days=7)
    return weeks


@dataclass
class ColumnChart:
    """The newest weeks that fit the width, one 2-cell column each, `height` rows tall."""

    title: str
    weeks: Sequence[tuple[date, float]]
    label: Callable[[float], str]
    height: int = 5
    style: str = "bold"

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(AXIS_WIDTH + 3, options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(1, (options.max_width - AXIS_WIDTH) // 3)
        weeks = list(self.weeks)[-room:]
        if not weeks or not any(value for _, value in weeks):
            yield Text(self.title, style="bold")
            yield Text("  nothing recorded", style="dim")
            return
        yield _titled(self.title, weeks[0][0], weeks[-1][0] + timedelta(days=6), options.max_width)
        top = max(value for _, value in weeks)
        # in eighths of a row; a week with anything at all shows at least one eighth
        levels = [max(1, round(value / top * self.height * 8)) if value > 0 else 0 for _, value in weeks]
        for row in range(self.height - 1, -1, -1):
            axis = self.label(top) if row == self.height - 1 else ("0" if row == 0 else "")
            line = Text(f"{axis:>{AXIS_WIDTH - 2}} ┤", style="dim")
            for level in levels:
                filled = min(8, max(0, level - row * 8))
                line.append(EIGHTHS[filled] * 2, style=self.style)
                line.append(" ")
            yield line
        yield _date_axis([start for start, _ in weeks], 3, options.max_width - AXIS_WIDTH)


def _titled(title: str, first: date, last: date, width: int) -> Text:
    """The chart's title and the days it covers, years included, where the width
    has room: a chart shows the newest weeks that fit, and a history of two years
    read as one of six months."""
    line = Text(title, style="bold")
    span = f"  {first:%Y-%m-%d} – {last:%Y-%m-%d}"
    if len(title) + len(span) <= width:
        line.append(span, style="dim")
    return line


def _date_axis(starts: list[date], step: int, width: int) -> Text:
    """ "Mar 02" under the first column and then wherever it fits without touching the
    last, within `width` (a label past it wrapped onto a line of its own: "19")."""
    axis = [" "] * (len(starts) * step + 7)
    at = 0
    for index, start in enumerate(starts):
        column = index * step
        if column >= at and column + 6 <= width:
            label = f"{start:%b %d}"
            axis[column : column + len(label)] = label
            at = column + len(label) + 2
    return Text(" " * AXIS_WIDTH + "".join(axis).rstrip(), style="dim")


@dataclass
class HeatMap:
    """Days as cells, weeks as columns (oldest on the left), ending at `last_day`'s week."""

    title: str
    days: dict[date, int]
    last_day: date
    weeks_wanted: int = 26

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(12, options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fit = max(1, (options.max_width - 4) // 2)
        active = [day for day, count in self.days.items() if count and day <= self.last_day]
        span = (monday(self.last_day) - monday(min(active))).days // 7 + 1 if active else 1
        # from the first active week (at least MIN_WEEKS, so it reads as a calendar), within the width
        weeks = min(fit, self.weeks_wanted, max(span, MIN_WEEKS))
        first = monday(self.last_day) - timedelta(weeks=weeks - 1)
        busiest = max((count for day, count in self.days.items() if first <= day <= self.last_day), default=0)
        yield _titled(self.title, first, self.last_day, options.max_width)
        months = [" "] * (weeks * 2)
        starts: list[tuple[int, str]] = []  # (column, name) where each month's first week is
        shown_month = None
        for week in range(weeks):
            start = first + timedelta(weeks=week)
            if start.month != shown_month:
                starts.append((week * 2, f"{start:%b}"))
                shown_month = start.month
        for (column, name), following in zip(starts, [*starts[1:], (len(months) + 1, "")], strict=True):
            # A month whose name would run into the next one's ("ApMay") goes unnamed.
            if column + len(name) < following[0] and column + len(name) <= len(months):
                months[column : column + len(name)] = name
        yield Text("    " + "".join(months).rstrip(), style="dim")
        for weekday in range(7):
            line = Text(f"{DAY_NAMES[weekday]:<4}", style="dim")
            for week in range(weeks):
                day = first + timedelta(weeks=week, days=weekday)
                if day > self.last_day:
                    line.append("  ")
                    continue
                count = self.days.get(day, 0)
                line.append(_shade(count, busiest) + " ", style="bold" if count else "dim")
            yield line
        legend = Text("    less ", style="dim")
        for shade in SHADES:
            legend.append(shade + " ", style="bold" if shade != SHADES[0] else "dim")
        legend.append(f"more (busiest day: {busiest})", style="dim")
        yield legend


def _shade(count: int, busiest: int) -> str:
    if count <= 0 or busiest <= 0:
        return SHADES[0]
    return SHADES[min(4, 1 + (count * 4 - 1) // busiest)]
