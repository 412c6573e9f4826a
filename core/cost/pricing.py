"""Usage priced: what each model's tokens cost, and what could not be priced.

Every token type is billed at its own price, as the providers bill it: fresh
input, cache reads, 5-minute and 1-hour cache writes, output (reasoning
included). Usage of a model the table does not know, or that the source did
not name, is kept as tokens per model name in `unpriced`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from convo_tui.core.cost.prices import PICO_PER_USD, Price, PriceTable
from convo_tui.core.cost.usage import Usage

NO_MODEL = "(model not recorded)"


@dataclass
class Cost:
    """Priced usage in picodollars, and the tokens per model that have no price."""

    pico: int = 0
    unpriced: dict[str, int] = field(default_factory=dict)

    @property
    def usd(self) -> float:
        return self.pico / PICO_PER_USD

    @property
    def priced(self) -> bool:
        """True when at least part of the usage had a price."""
        return self.pico > 0

    def add(self, other: Cost) -> None:
        self.pico += other.pico
        for model, tokens in other.unpriced.items():
            self.unpriced[model] = self.unpriced.get(model, 0) + tokens


def usage_cost(usage: Usage, price: Price) -> int:
    """Picodollars for one model's usage."""
    return (
        usage.input * price.input
        + usage.cache_read * price.cache_read
        + usage.cache_write * price.cache_write
        + usage.cache_write_1h * price.cache_write_1h
        + usage.output * price.output
    )


def price_models(models: Mapping[str, Usage], table: PriceTable) -> Cost:
    cost = Cost()
    for model, usage in models.items():
        price = table.price(model)
        if price is None:
            if usage.total:
                name = model or NO_MODEL
                cost.unpriced[name] = cost.unpriced.get(name, 0) + usage.total
        else:
            cost.pico += usage_cost(usage, price)
    return cost


def format_usd(pico: int) -> str:
    """$1,234 · $12.34 · $0.42 · <$0.01: the size at a glance, cents where they matter."""
    usd = pico / PICO_PER_USD
    if pico == 0:
        return "$0.00"
    if usd < 0.01:
        return "<$0.01"
    if usd >= 1000:
        return f"${usd:,.0f}"
    return f"${usd:,.2f}"
