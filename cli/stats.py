"""`convo-tui stats [--json]`: sessions, messages, tokens and cost per project, source, model, week and day.

The same numbers as the stats screen (F7): counted by the index's holder,
priced here with this process's price table (core/cost/prices.json and the
settings' `[prices]`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from convo_tui.cli import json_lines
from convo_tui.cli.common import add_store_options, open_index, settings_from_args
from convo_tui.core.unicode import visible_controls

TABLES = (("by_project", "Project"), ("by_source", "Source"), ("by_model", "Model"), ("by_week", "Week"))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="sessions, messages, tokens and cost per project, source, model and week",
        description="Count the index: sessions, messages and the token usage the tools recorded, priced by model "
        "from the bundled price table (dated, with sources) and the settings' [prices]. Models without a price are "
        "counted as tokens and named.",
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object: total, by_project, by_source, by_model, by_week, by_day"
    )
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from convo_tui.core.cost.prices import price_table
    from convo_tui.core.stats_report import stats_report

    table = price_table(settings_from_args(args))
    with open_index(args, read_only=True) as library:
        report = stats_report(library.stats(), table)
    if args.json:
        sys.stdout.write(json_lines.dumps(report) + "\n")
        return 0
    sys.stdout.write(render_text(report))
    return 0


def _money(row: dict[str, Any]) -> str:
    from convo_tui.core.cost.prices import PICO_PER_USD
    from convo_tui.core.cost.pricing import format_usd

    pico = round(row["cost_usd"] * PICO_PER_USD)
    if not row["has_tokens"]:
        return "-"
    text = format_usd(pico) if pico else "-"
    return text + (" +?" if row["unpriced_tokens"] else "")


def _tokens(row: dict[str, Any]) -> str:
    return f"{row['tokens']['input']:,} in / {row['tokens']['output']:,} out" if row["has_tokens"] else "-"


def render_text(report: dict[str, Any]) -> str:
    total = report["total"]
    lines = [
        f"{total['sessions']} sessions · {total['messages']} messages · tokens {_tokens(total)} · cost {_money(total)}",
    ]
    for key, label in TABLES:
        rows = report[key]
        if not rows:
            continue
        names = [visible_controls(r["name"]) for r in rows]  # projects and models: a folder's name is data
        width = min(40, max(len(label), *(len(name) for name in names)))
        lines += ["", f"{label:<{width}}  {'Sessions':>8}  {'Messages':>8}  {'Tokens':>28}  {'Cost':>10}"]
        for row, name in zip(rows, names, strict=True):
            name = name if len(name) <= width else name[: width - 1] + "…"
            lines.append(f"{name:<{width}}  {row['sessions']:>8}  {row['messages']:>8}  {_tokens(row):>28}  {_money(row):>10}")
    unpriced = total["unpriced_tokens"]
    if unpriced:
        named = ", ".join(f"{visible_controls(model)} ({tokens:,} tokens)" for model, tokens in unpriced.items())
        lines += ["", f"+? not priced (no price for the model; add one under [prices] in the settings): {named}"]
    return "\n".join(lines) + "\n"
