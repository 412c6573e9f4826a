"""Figures, the table they print as, results.json and BENCHMARKS.md."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


@dataclass
class Figure:
    """One measured figure with what it is judged against.

    `ok` is None for figures that have no target (shown as INFO); `peer` names
    the alternative measured in the same run and `ratio` how we compare to it.
    """

    group: str
    name: str
    size: str
    value: float
    unit: str
    target: str = ""
    ok: bool | None = None
    peer: str = ""
    ratio: float | None = None
    note: str = ""
    why: str = ""  # for a miss: what the run's own figures say about the cause

    @property
    def status(self) -> str:
        return "INFO" if self.ok is None else ("PASS" if self.ok else "MISS")


@dataclass
class Results:
    machine: dict[str, Any]
    command: str
    mode: str
    sizes: dict[str, dict[str, Any]] = field(default_factory=dict)  # "1k" -> corpus stats
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, figure: Figure) -> Figure:
        self.figures.append(figure)
        return figure

    def misses(self) -> list[Figure]:
        return [f for f in self.figures if f.ok is False]


def fmt(value: float, unit: str) -> str:
    if value != value:  # NaN
        return "n/a"
    if unit in ("ms", "s") and value < 10:
        return f"{value:.2f} {unit}"
    if abs(value) >= 100 or unit in ("points/s", "texts/s"):
        return f"{value:,.0f} {unit}"
    return f"{value:.1f} {unit}"


def _ratio(f: Figure) -> str:
    return "" if f.ratio is None else f"{f.ratio:.2f}x"


def _rows(results: Results) -> list[list[str]]:
    return [
        [f.group, f.name, f.size, fmt(f.value, f.unit), f.target, f.peer, _ratio(f), f.status, f.note] for f in results.figures
    ]


HEADERS = ["area", "figure", "size", "value", "target", "peer (same run)", "ratio", "status", "note"]


def print_table(results: Results, console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"convo-tui benchmark ({results.mode})", show_lines=False)
    for header in HEADERS:
        table.add_column(header, overflow="fold")
    styles = {"PASS": "green", "MISS": "bold red", "INFO": "dim"}
    for row in _rows(results):
        row[7] = f"[{styles[row[7]]}]{row[7]}[/]"
        table.add_row(*row)
    console.print(table)
    for f in results.misses():
        console.print(
            f"[bold red]MISS[/] {f.name} at {f.size}: {fmt(f.value, f.unit)} against {f.target}. {f.why}", highlight=False
        )
    for note in results.notes:
        console.print(f"- {note}", highlight=False)


def write_json(results: Results, path: Path) -> None:
    data = asdict(results)
    data["figures"] = [{**asdict(f), "status": f.status} for f in results.figures]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(results: Results) -> str:
    m = results.machine
    lines = [
        "# Benchmarks",
        "",
        "Measured by `bench/` (not part of the test suite). Every figure is shown with its target",
        "and, where there is one, the alternative measured in the same run on the same machine:",
        "these machines are shared and noisy, so ratios from one run are what counts.",
        "",
        f"- Machine: {m.get('cores')} cores, {m.get('cpu_model')}, {m.get('memory_gb')} GB RAM, {m.get('os')}, Python {m.get('python')}",
        f"- Date: {m.get('date')}",
        f"- Command: `{results.command}` ({results.mode} mode, {results.seconds / 60:.1f} min)",
        "",
        "## Corpora",
        "",
        "Synthetic, deterministic (`bench/corpus.py`, seeded): Cursor agent transcripts and Claude Code",
        "logs, short and long messages (long ones beyond the model's 256-token window), tool calls",
        "with large arguments, thinking, English and Chinese, 8 projects, dates over two years.",
        "",
        "| size | sessions | messages | points (indexed) | files on disk |",
        "|---|---|---|---|---|",
    ]
    for size, info in results.sizes.items():
        lines.append(
            f"| {size} | {info.get('sessions')} | {info.get('messages')} | {info.get('points')} | {info.get('bytes', 0) / 1e6:.1f} MB |"
        )
    lines += ["", "## Targets", ""]
    for f in results.figures:
        if f.ok is not None:
            ratio = f" ({_ratio(f)} the peer)" if f.ratio is not None else ""
            lines.append(f"- {f.status}: {f.name} at {f.size}: {fmt(f.value, f.unit)}{ratio}; target {f.target}")
    lines += ["", "## Results", "", "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for row in _rows(results):
        row[7] = f"**{row[7]}**" if row[7] == "MISS" else row[7]
        lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    misses = results.misses()
    lines += ["", "## Targets missed", ""]
    if not misses:
        lines.append("None in this run.")
    for f in misses:
        lines.append(f"- **{f.name}** at {f.size}: {fmt(f.value, f.unit)} against {f.target}. {f.why}".rstrip())
    if results.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in results.notes]
    return "\n".join(lines) + "\n"


def read_json(path: Path) -> Results:
    """A results.json back into Results (to re-render the report without re-measuring)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    known = set(Figure.__dataclass_fields__)
    figures = [Figure(**{k: v for k, v in f.items() if k in known}) for f in data.pop("figures", [])]
    return Results(**{k: v for k, v in data.items() if k in Results.__dataclass_fields__}, figures=figures)


def write_markdown(results: Results, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)  # bench/out/ is not in a fresh clone (.gitignore)
    path.write_text(markdown(results), encoding="utf-8")
