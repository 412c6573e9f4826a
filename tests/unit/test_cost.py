"""core/cost: usage read from every source's shape, priced by model from the dated table, exact sums.

Expected amounts are worked out by hand from the fixtures' token counts and the
providers' list prices (USD per million tokens), e.g. Claude Sonnet 4.5 in
tests/fixtures/tokens/claude_code: 10 fresh input x $3 + 49,200 cache reads x
$0.30 + 2,790 cache writes x $3.75 + 490 output x $15 = $0.0326025.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date
from importlib import resources

import pytest
from convo_tui.core.cost.prices import PICO_PER_USD, PriceTable, bundled_prices, model_key, price_table
from convo_tui.core.cost.pricing import NO_MODEL, format_usd, price_models, usage_cost
from convo_tui.core.cost.usage import Usage, message_usage
from convo_tui.core.errors import ConfigError
from convo_tui.core.holder.codec import stats_from_json, stats_json
from convo_tui.core.settings import Settings
from convo_tui.core.stats import count_sessions
from convo_tui.core.stats_report import stats_report

from tests.helpers.cost_corpus import cost_sessions


def test_usage_in_every_shape_the_sources_keep():
    # Anthropic (Claude Code, OpenCode): cache apart from input; the 1-hour share of the writes apart too
    claude = {
        "input_tokens": 5,
        "cache_creation_input_tokens": 4000,
        "cache_creation_1h_input_tokens": 3000,
        "cache_read_input_tokens": 20000,
        "output_tokens": 300,
    }
    assert message_usage({"usage": claude}) == Usage(input=5, cache_read=20000, cache_write=1000, cache_write_1h=3000, output=300)
    # OpenAI (Codex, Gemini CLI as parsed): cached input inside input, reasoning inside output
    codex = {"input_tokens": 10400, "cached_input_tokens": 9728, "output_tokens": 150, "reasoning_output_tokens": 64}
    assert message_usage({"usage": codex}) == Usage(input=672, cache_read=9728, output=150)
    assert message_usage({"usage": {"prompt_tokens": 3, "completion_tokens": 4}}) == Usage(input=3, output=4)
    assert message_usage({"tokens_input": 120, "tokens_output": 80}) == Usage(input=120, output=80)
    assert message_usage({"usage": {"input_tokens": "many"}}) is None
    assert message_usage({"model": "gpt-5"}) is None


def test_models_are_found_by_name_never_by_a_guess():
    table = PriceTable()
    sonnet = table.price("claude-sonnet-4-5")
    assert sonnet is not None
    for spelling in (
        "claude-sonnet-4-5-20250929",
        "anthropic/claude-sonnet-4-5",
        "claude-sonnet-4-5@20250929",
        "Claude-Sonnet-4-5",
    ):
        assert table.price(spelling) == sonnet, spelling
    assert model_key("models/gemini-2.5-pro") == "gemini-2.5-pro"
    for unknown in ("gpt-5.2-pro", "claude-sonnet-4-9", "claude-sonnet", "gemini-2.5-pro-exp", "", "gpt-9-lab"):
        assert table.price(unknown) is None, unknown


def test_every_price_says_where_and_when_it_was_read():
    data = json.loads(resources.files("convo_tui.core.cost").joinpath("prices.json").read_text(encoding="utf-8"))
    assert set(data["providers"]) == {"anthropic", "openai", "google"}
    for provider in data["providers"].values():
        assert provider["source"].startswith("https://")
        date.fromisoformat(provider["checked"])
        for name, price in provider["models"].items():
            assert {"input", "output"} <= set(price), name
            assert all(value >= 0 for key, value in price.items() if key != "aliases"), name
    for price in bundled_prices().values():
        assert price.source.startswith("https://") and re.fullmatch(r"\d{4}-\d\d-\d\d", price.checked)


def test_each_token_type_at_its_own_price():
    opus = PriceTable().price("claude-opus-4-5-20251101")
    assert opus is not None
    usage = Usage(input=5, cache_read=20000, cache_write=1000, cache_write_1h=3000, output=300)
    # $5 in, $0.50 cache read, $6.25 5-minute write, $10 1-hour write, $25 out (per million)
    assert usage_cost(usage, opus) == (5 * 5 + 20000 * 0.5 + 1000 * 6.25 + 3000 * 10 + 300 * 25) * 10**6
    gpt = PriceTable().price("gpt-5-codex")
    assert gpt is not None and gpt.cache_write == gpt.input  # OpenAI bills no cache write premium


def test_unknown_models_stay_tokens_and_are_named():
    cost = price_models({"gpt-9-lab": Usage(input=4000, cache_read=1000, output=200), "": Usage(input=7)}, PriceTable())
    assert cost.pico == 0 and cost.unpriced == {"gpt-9-lab": 5200, NO_MODEL: 7}


def test_settings_prices_override_and_add(isolated_dirs):
    (isolated_dirs / "config.toml").write_text(
        '[prices."gpt-9-lab"]\ninput = 2\noutput = 8\ncache_read = 0.2\n'
        '[prices."claude-sonnet-4-5"]\ninput = 1.5\noutput = 7.5\n',
        encoding="utf-8",
    )
    table = price_table(Settings.load())
    lab = table.price("gpt-9-lab")
    assert lab is not None and (lab.input, lab.cache_read, lab.cache_write, lab.output) == (
        2 * 10**6,
        2 * 10**5,
        2 * 10**6,
        8 * 10**6,
    )
    assert lab.source == str(isolated_dirs / "config.toml")
    sonnet = table.price("claude-sonnet-4-5-20250929")  # the override is found by the same key as the table
    assert sonnet is not None and sonnet.input == 1_500_000 and sonnet.cache_read == 1_500_000


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[prices."x"]\ninput = 1\noutput = 2\ncache_reed = 0.1\n', "[prices.\"x\"] unknown key 'cache_reed'"),
        ('[prices."x"]\ninput = -1\noutput = 2\n', "'prices' must be a table of"),
        ('[prices."x"]\ninput = 1\n', "'prices' must be a table of"),
        ('[prices."x"]\ninput = "cheap"\noutput = 2\n', "'prices' must be a table of"),
    ],
)
def test_bad_prices_are_one_line_naming_the_file(isolated_dirs, table, message):
    (isolated_dirs / "config.toml").write_text(table, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        Settings.load()
    assert message in str(caught.value) and str(isolated_dirs / "config.toml") in str(caught.value)
    assert "\n" not in str(caught.value)


# Hand-computed costs of the fixture sessions (USD), see the module docstring.
CLAUDE_CODE_SONNET = 0.0326025  # tokens/claude_code
CODEX_GPT5 = 0.019061  # tokens/codex: 7,732 x $1.25 + 23,168 x $0.125 + 650 x $10
GEMINI_PRO = 0.010075  # tokens/gemini: 3,550 x $1.25 + 14,300 x $0.125 + 385 x $10
OPENCODE_SONNET = 0.0246225  # tokens/opencode: 20 x $3 + 32,300 x $0.30 + 2,610 x $3.75 + 339 x $15
OPUS = 0.053775  # cost/claude_code: 5 x $5 + 20,000 x $0.50 + 1,000 x $6.25 + 3,000 x $10 + 300 x $25
HAIKU = 0.00035  # cost/claude_code: 100 x $1 + 50 x $5


def test_stats_price_every_project_source_model_and_week(tmp_path):
    report = stats_report(count_sessions(cost_sessions(tmp_path), UTC), PriceTable())

    def costs(key: str) -> dict[str, float]:
        return {row["name"]: row["cost_usd"] for row in report[key]}

    def unpriced(key: str) -> dict[str, dict[str, int]]:
        return {row["name"]: row["unpriced_tokens"] for row in report[key] if row["unpriced_tokens"]}

    assert costs("by_project") == {
        "deployer": 0.0867275,  # CLAUDE_CODE_SONNET + OPUS + HAIKU
        "ledger": CODEX_GPT5,
        "Gemini CLI": GEMINI_PRO,
        "notes-api": OPENCODE_SONNET,
    }
    assert unpriced("by_project") == {"ledger": {"gpt-9-lab": 5200}}
    assert costs("by_source") == {
        "claude-code": 0.0867275,
        "codex": CODEX_GPT5,
        "gemini-cli": GEMINI_PRO,
        "opencode": OPENCODE_SONNET,
    }
    assert costs("by_model") == {
        "claude-sonnet-4-5-20250929": CLAUDE_CODE_SONNET,
        "claude-sonnet-4-5": OPENCODE_SONNET,
        "gpt-5-codex": CODEX_GPT5,
        "claude-opus-4-5-20251101": OPUS,
        "gemini-2.5-pro": GEMINI_PRO,
        "gpt-9-lab": 0.0,
        "claude-haiku-4-5-20251001": HAIKU,
    }
    assert unpriced("by_model") == {"gpt-9-lab": {"gpt-9-lab": 5200}}
    assert costs("by_week") == {"2026-W10": 0.086361, "2026-W11": 0.054125}
    assert unpriced("by_week") == {"2026-W11": {"gpt-9-lab": 5200}}
    assert report["total"]["cost_usd"] == 0.140486 and report["total"]["unpriced_tokens"] == {"gpt-9-lab": 5200}
    week11 = next(row for row in report["by_week"] if row["name"] == "2026-W11")
    assert week11["usage"] == {"input": 4105, "cache_read": 21000, "cache_write": 1000, "cache_write_1h": 3000, "output": 550}
    assert [row["name"] for row in report["by_day"]] == [
        "2026-03-02",
        "2026-03-03",
        "2026-03-04",
        "2026-03-05",
        "2026-03-10",
        "2026-03-11",
    ]
    assert sum(row["cost_usd"] for row in report["by_day"]) == pytest.approx(0.140486, abs=1e-12)


def test_stats_with_models_and_days_cross_the_holder_unchanged(tmp_path):
    stats = count_sessions(cost_sessions(tmp_path), UTC)
    again = stats_from_json(json.loads(json.dumps(stats_json(stats))))
    assert again == stats
    assert stats_report(again, PriceTable()) == stats_report(stats, PriceTable())


def test_money_reads_at_a_glance():
    assert [format_usd(round(usd * PICO_PER_USD)) for usd in (0, 0.004, 0.0326025, 12.345, 1234.5)] == [
        "$0.00",
        "<$0.01",
        "$0.03",
        "$12.35",
        "$1,234",
    ]
