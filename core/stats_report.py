"""Stats priced: the numbers the stats screen shows and `convo-tui stats --json` prints (core/cost/ prices them)."""

from __future__ import annotations

from typing import Any

from convo_tui.core.cost.prices import PICO_PER_USD, PriceTable
from convo_tui.core.cost.pricing import Cost, price_models
from convo_tui.core.cost.usage import Usage
from convo_tui.core.stats import Count, Stats


def count_cost(count: Count, table: PriceTable) -> Cost:
    return price_models(count.models, table)


def count_usage(count: Count) -> Usage:
    """The group's usage over all its models."""
    total = Usage()
    for usage in count.models.values():
        total.add(usage)
    return total


def usd(pico: int) -> float:
    """Dollars for JSON. Prices have at most six decimals per million tokens, so a cost has at
    most twelve: the division is exact to the last printed digit for any sum below $1,000."""
    return pico / PICO_PER_USD


def count_json(name: str | None, count: Count, table: PriceTable) -> dict[str, Any]:
    cost = count_cost(count, table)
    row: dict[str, Any] = {} if name is None else {"name": name}
    row.update(
        sessions=count.sessions,
        messages=count.messages,
        has_tokens=count.has_tokens,
        tokens={"input": count.tokens.input, "output": count.tokens.output, "total": count.tokens.total},
        usage=count_usage(count).to_json(),
        cost_usd=usd(cost.pico),
        unpriced_tokens=dict(sorted(cost.unpriced.items())),
    )
    return row


def stats_report(stats: Stats, table: PriceTable) -> dict[str, Any]:
    """Every group priced, in the order the stats screen lists it (weeks and days oldest first)."""

    def rows(pairs: list[tuple[str, Count]]) -> list[dict[str, Any]]:
        return [count_json(name, count, table) for name, count in pairs]

    return {
        "total": count_json(None, stats.total, table),
        "by_project": rows(stats.projects()),
        "by_source": rows(stats.sources()),
        "by_model": rows(stats.models()),
        "by_week": rows(sorted(stats.weeks())),
        "by_day": rows(stats.days()),
    }
