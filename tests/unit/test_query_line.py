"""The search screen's filter line: mode, what results cover and the count, in 80 columns."""

from __future__ import annotations

from convo_tui.tui.index_state import coverage_note
from convo_tui.tui.query_line import describe_query


def test_the_filter_line_with_coverage_and_more_results_fits_80_columns():
    """At 80x24 it read '10+ results (↓ past the' while meaning was being added."""
    note = coverage_note("hybrid", True, 0.07)
    line = describe_query("flaky test", "hybrid", count=10, note=note, more=True)
    # The screen draws it inside a two-column margin.
    assert line.cell_len <= 78, line.plain
    assert line.plain.rstrip().endswith("10+ results (↓ for more)")


def test_the_count_and_the_order_come_before_the_filters_the_query_box_already_shows():
    """At 80 columns four filters pushed the count off the line."""
    query = "rounding project:shopfront source:claude-code after:2026-01-01 role:ai"
    line = describe_query(query, "hybrid", count=2, newest_first=True).plain
    assert line.index("2 results") < line.index("newest first") < line.index("filters")
    assert "2 results   newest first" in line[:78]


def test_newest_first_with_coverage_and_more_results_fits_80_columns():
    note = coverage_note("hybrid", True, 0.42)
    line = describe_query("flaky test", "hybrid", count=50, note=note, more=True, newest_first=True)
    assert line.cell_len <= 78, line.plain
    assert line.plain.rstrip().endswith("50+ results   newest first")


def test_every_filter_shows_on_the_line_and_a_quoted_value_stays_whole():
    """tag: and machine: were missing from the line; `tag:"nope nada"` was told as
    'the filters tag:"nope and nada"'."""
    from convo_tui.tui.query_line import describe_filters

    line = describe_query('pool tag:"needs review" machine:devbox project:infra', "hybrid", count=2).plain
    assert 'tag:"needs review"' in line and "machine:devbox" in line and "project:infra" in line
    assert describe_filters('tag:"nope nada"') == 'the filter tag:"nope nada"'
    assert describe_filters('x tag:"nope nada" after:2w') == 'the filters tag:"nope nada" and after:2w'
