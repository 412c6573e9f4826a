"""tui/widgets/charts.py: weekly columns and the calendar, drawn in text that fits the width given."""

from __future__ import annotations

from datetime import date, timedelta

from convo_tui.tui.widgets.charts import ColumnChart, HeatMap, continuous_weeks
from rich.console import Console


def lines(renderable, width: int) -> list[str]:
    console = Console(width=width, color_system=None, record=True)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_weeks_run_on_through_quiet_ones():
    weeks = continuous_weeks({"2026-W09": 3, "2026-W11": 1, "undated": 9})
    assert weeks == [(date(2026, 2, 23), 3), (date(2026, 3, 2), 0.0), (date(2026, 3, 9), 1)]


def test_columns_scale_to_the_largest_week_in_eighths():
    chart = ColumnChart("Sessions per week", continuous_weeks({"2026-W09": 4, "2026-W10": 1, "2026-W11": 2}), str, height=4)
    assert lines(chart, 80) == [
        "Sessions per week  2026-02-23 – 2026-03-15",  # the days it covers, years included
        "     4 ┤██",
        "       ┤██",
        "       ┤██    ██",
        "     0 ┤██ ██ ██",
        "        Feb 23",
    ]
    half = ColumnChart("Cost", continuous_weeks({"2026-W09": 16, "2026-W10": 1}), str, height=1)
    assert lines(half, 80)[1] == "    16 ┤██ ▁▁"  # 1/16 of a row is half an eighth: anything shows


def test_columns_keep_the_newest_weeks_that_fit():
    weeks = continuous_weeks({f"2026-W{n:02d}": n for n in range(1, 41)})
    drawn = lines(ColumnChart("Tokens", weeks, str), 80)
    assert drawn[1].startswith("    40 ┤")  # the newest week (40) is the largest shown
    assert max(len(line) for line in drawn) <= 80
    assert len(drawn[-2]) == 8 + 24 * 3 - 1  # (80 - 8) // 3 = 24 columns


def test_heat_map_shades_days_by_quartile_of_the_busiest():
    days = {date(2026, 3, 2): 8, date(2026, 3, 3): 1, date(2026, 3, 4): 4, date(2026, 3, 10): 6}
    drawn = lines(HeatMap("Messages per day", days, date(2026, 3, 10)), 80)
    assert drawn[0] == "Messages per day  2025-12-22 – 2026-03-10" and drawn[1].lstrip().startswith(
        "Dec"
    )  # 12 weeks back to December
    rows = drawn[2:9]
    assert [row[:3].strip() for row in rows] == ["Mon", "", "Wed", "", "Fri", "", "Sun"]
    mon, tue, wed = rows[0][4:].split(), rows[1][4:].split(), rows[2][4:].split()
    assert mon[-2:] == ["█", "·"]  # Mar 2: the busiest (8); Mar 9: none
    assert tue[-2:] == ["░", "▓"]  # Mar 3: 1 of 8; Mar 10: 6 of 8
    assert wed[-1] == "▒"  # Mar 4: 4 of 8; Mar 11 is after the last day: blank
    assert drawn[-1].endswith("more (busiest day: 8)")


def test_heat_map_fits_80_columns():
    days = {date(2025, 1, 1): 1, date(2026, 3, 10): 2}
    drawn = lines(HeatMap("Messages per day", days, date(2026, 3, 10)), 80)
    assert max(len(line) for line in drawn) <= 80
    assert len(drawn[2][4:].split()) == 26  # half a year of weeks


def test_month_names_never_run_into_each_other():
    """A calendar starting on the last week of April read "ApMay" at 80 columns."""
    days = {date(2026, 4, 27) + __import__("datetime").timedelta(days=n): 1 for n in range(0, 180, 3)}
    last = max(days)
    for width in range(40, 90):
        month_row = lines(HeatMap("Messages per day", days, last), width)[1]
        names = month_row.split()
        assert all(len(name) == 3 for name in names), (width, month_row)
    # The newer month keeps its name: "May" over the lone April week.
    assert lines(HeatMap("Messages per day", days, last), 60)[1].split()[0] == "May"


def test_the_week_axis_never_wraps_a_date_onto_its_own_line():
    """At 80x24 the stats screen showed "Oct" at the end of the axis and "19" below it."""
    weeks = continuous_weeks({f"2026-W{n:02d}": n for n in range(1, 41)})
    for width in range(40, 90):
        drawn = lines(ColumnChart("Sessions per week", weeks, str, height=5), width)
        assert len(drawn) == 1 + 5 + 1, (width, drawn)


def test_a_title_says_the_days_its_chart_covers_where_there_is_room():
    """A chart shows the newest weeks that fit: two years of history read as six
    months with nothing saying so (tmux, session 32)."""
    days = {date(2024, 11, 4) + timedelta(days=n): 3 for n in range(0, 700, 3)}
    wide = lines(HeatMap("Messages per day", days, date(2026, 10, 4)), 80)[0]
    assert wide == "Messages per day  2026-04-06 – 2026-10-04"
    assert lines(HeatMap("Messages per day", days, date(2026, 10, 4)), 30)[0] == "Messages per day"  # no room: the title alone
