"""The price table: the dated public prices in prices.json, plus the user's `[prices]`.

A model is found by its name as the tool logged it, after taking off what
names the same model in another dress: a provider prefix
(`anthropic/claude-sonnet-4-5`), a release date (`claude-sonnet-4-5-20250929`,
`...@20250929`) and letter case. Nothing else: `gpt-5.2-pro` is not
`gpt-5.2`, and a model the table does not name stays unpriced.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from convo_tui.core.settings import Settings

# Prices are kept in picodollars per token: exact integers for any price with up
# to six decimals per million tokens, so sums never drift.
PICO_PER_USD = 10**12

_DATE = re.compile(r"(?:[-@](?:20\d{6}|20\d\d-\d\d-\d\d))$")


@dataclass(frozen=True)
class Price:
    """One model's prices, in picodollars per token; `source` and `checked` say where and when."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    cache_write_1h: int
    source: str
    checked: str


def per_token(usd_per_million: float | int | str) -> int:
    """USD per million tokens -> picodollars per token (exact for six decimals)."""
    return int(Decimal(str(usd_per_million)) * 10**6)


def model_key(name: str) -> str:
    """The name a model is looked up by (see the module docstring)."""
    key = name.strip().lower()
    key = key.rsplit("/", 1)[-1]
    return _DATE.sub("", key)


def make_price(values: Mapping[str, Any], source: str, checked: str) -> Price:
    """A Price from USD per million tokens; a missing cache price is what the provider
    charges then: cache reads and writes at the input price, 1-hour writes as writes."""
    given = {name: per_token(value) for name, value in values.items() if name != "aliases" and value is not None}
    write = given.get("cache_write", given["input"])
    return Price(
        input=given["input"],
        output=given["output"],
        cache_read=given.get("cache_read", given["input"]),
        cache_write=write,
        cache_write_1h=given.get("cache_write_1h", write),
        source=source,
        checked=checked,
    )


@cache
def bundled_prices() -> dict[str, Price]:
    """prices.json, by model key (aliases included)."""
    data = json.loads(resources.files("convo_tui.core.cost").joinpath("prices.json").read_text(encoding="utf-8"))
    table: dict[str, Price] = {}
    for provider in data["providers"].values():
        for name, values in provider["models"].items():
            price = make_price(values, provider["source"], provider["checked"])
            for alias in (name, *values.get("aliases", ())):
                table[model_key(alias)] = price
    return table


class PriceTable:
    """The bundled prices with the settings' `[prices]` laid over them."""

    def __init__(self, overrides: Mapping[str, Mapping[str, Any]] | None = None, config: str = "settings"):
        self.prices = dict(bundled_prices())
        for name, values in (overrides or {}).items():
            self.prices[model_key(name)] = make_price(values, config, "set by you")

    def price(self, model: str) -> Price | None:
        return self.prices.get(model_key(model)) if model else None


def price_table(settings: Settings) -> PriceTable:
    """The bundled prices with the settings file's `[prices]` over them."""
    where = str(settings.config_path) if settings.config_path else "settings"
    return PriceTable({name: asdict(price) for name, price in settings.prices.items()}, where)
