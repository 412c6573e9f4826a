"""At 80 columns the sessions list and the stats tables cut names, never counts,
units or headers (issue 23: "6 turns · 30" lost its unit, "Sessi…")."""

from __future__ import annotations

from datetime import UTC, datetime

from convo_tui.core.cost.prices import price_table
from convo_tui.core.hits import SessionSummary
from convo_tui.core.settings import Settings
from convo_tui.core.stats import Count, Tokens
from convo_tui.tui.screens.sessions import session_line
from convo_tui.tui.stats_view import group_table
from rich.console import Console


def rendered(renderable, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def _summary(**changes) -> SessionSummary:
    """A session of 6 turns and 30 messages, with a long title and project unless changed."""
    fields = {
        "id": "7a8e4618-1111",
        "title": "Why does the nightly payment reconciliation job time out after the Postgres upgrade",
        "project": "payments-reconciliation-service-monorepo",
        "source": "claude-code",
        "path": "",
        "message_count": 30,
        "turn_count": 6,
        "started_at": datetime(2026, 1, 2, 9, 30, tzinfo=UTC),
        "updated_at": None,
    }
    return SessionSummary(**{**fields, **changes})


def test_a_session_row_keeps_its_counts_and_units_and_cuts_the_project_and_title():
    summary = _summary()
    for width in (74, 100):
        title, meta = rendered(session_line(summary, with_project=True), width)
        assert len(title) <= width and title.endswith("…") is (width < 90)
        assert meta.endswith("6 turns · 30 messages"), meta
        assert "payments-" in meta


def test_a_session_row_shows_the_users_tags_after_the_counts():
    summary = _summary(title="Nightly reconciliation", project="payments", tags=["billing", "postgres"])
    _, meta = rendered(session_line(summary, with_project=True), 100)
    assert meta.endswith("6 turns · 30 messages · #billing #postgres"), meta
    # At 80 columns the tags give way first: the project and the counts stay.
    tagged = _summary(project="mlplatform", tags=["Alpha", "ux-test", "needs-review", "release-q4"])
    _, meta = rendered(session_line(tagged, with_project=True), 80)
    assert meta.strip().startswith("mlplatform · ") and "6 turns · 30 messages · #A" in meta and meta.endswith("…"), meta
    _, meta = rendered(session_line(tagged, with_project=True), 74)  # no room for a tag: none
    assert meta.strip().startswith("mlplatform · ") and meta.endswith("6 turns · 30 messages"), meta


def test_stats_headers_and_numbers_fit_80_columns_with_tokens():
    rows = [
        ("payments-reconciliation-service-monorepo", Count(1234, 98765, Tokens(123_456_789, 9_876_543), True)),
        ("web", Count(5, 50, Tokens(1_000, 2_000), True)),
    ]
    prices = price_table(Settings())
    lines = rendered(group_table("Per project", "Project", rows, prices, width=74), 74)
    header = lines[1]
    assert all(name in header for name in ("Sessions", "Messages", "Tokens", "Cost")), header
    assert "1234" in lines[2] and "98765" in lines[2] and "123.5M in / 9.9M out" in lines[2]
    assert max(len(line) for line in lines) <= 74
    weeks = [("2026-W10", Count(12, 345, Tokens(10, 20), True))]
    lines = rendered(group_table("Per week", "Week", weeks, prices, weeks=True, width=74), 74)
    assert "Sessions" in lines[1] and "2026-W10  Mar 02" in lines[2]


def test_a_tag_with_a_space_reads_as_one_tag():
    summary = _summary(title="Nightly", project="payments", tags=["needs review", "billing"])
    _, meta = rendered(session_line(summary, with_project=True), 120)
    assert meta.endswith('6 turns · 30 messages · #"needs review" #billing'), meta
