"""Tables and the cost-against-size plot of the scale bench (bench/scale.py).

The plot is drawn with Pillow (already a dependency of the app's screenshots
tooling): nine small charts against the number of messages (log scale), each
with its target as a dashed line and the peers' figures where they ran.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


def _get(data: dict, *path: str, default: Any = None) -> Any:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return default
        data = data[key]
    return data


def _index_peak(ix: dict) -> float | None:
    """`index`'s peak RSS: its own and its reader process's added (an upper bound on both at once)."""
    own = ix.get("peak_rss_mb")
    return None if own is None else own + (ix.get("reader_peak_mb") or 0)


def _fmt(value: Any, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        value = round(value, digits)
        if digits == 0:
            value = int(value)
    return f"{value:,}{unit}" if isinstance(value, int) else f"{value}{unit}"


def size_rows(entry: dict) -> list[tuple[str, str]]:
    h, ix = entry["history"], entry["index"]
    indexed = ix.get("indexed", {})
    needles = ix.get("needles", {})
    messages = h["messages"]
    keyword_seconds = indexed.get("keyword_seconds")
    rows = [
        (
            "history",
            f"{messages:,} messages, {h['sessions']:,} sessions, {h['bytes'] / 1e6:,.0f} MB "
            f"(largest file {h['largest_bytes'] / 1e6:,.0f} MB; {', '.join(f'{k} {v:,}' for k, v in h.get('by_source', {}).items())})",
        ),
        (
            "load average (1 min) before / during / after",
            f"{_fmt(entry.get('load_before', [None])[0])} / "
            f"{', '.join(_fmt(x[0]) for x in ix.get('load_during', [])[:6])} / {_fmt(entry.get('load_after', [None])[0])}",
        ),
        (
            "model loaded / first sessions published (s from the start of `index`)",
            f"{_fmt(ix.get('model_loaded'))} / {_fmt(ix.get('first_publish'))}",
        ),
    ]
    if entry.get("index_from"):
        rows.append(("indexing figures from (this run measured the index it built)", str(entry["index_from"])))
    if ix.get("semantic_from"):
        rows.append(("phase 2 figures from (`--phases semantic`, on an index whose phase 1 was done)", str(ix["semantic_from"])))
    for word, poll in needles.items():
        rows.append(
            (
                f"first keyword answer from a second process: `{word}`",
                f"{_fmt(poll.get('found_after'))} s ({poll.get('tries', 0)} searches, each {_fmt(poll.get('poll_p50_seconds'), ' s', 2)})"
                if poll.get("found_after") is not None
                else f"not found ({poll.get('last_answer', '')})",
            )
        )
    rows += [
        ("every message keyword-searchable (s from the start)", _fmt(indexed.get("keyword_done"))),
        ("phase 1 messages/s", _fmt(messages / keyword_seconds if keyword_seconds else None, "", 0)),
        (
            "phase 2 texts/s (points/s)",
            f"{_fmt(indexed.get('texts_per_second'))} ({_fmt(indexed.get('points_per_second'))})",
        ),
        (
            "time to fully semantic" + (" (projected from the rate over the budget)" if indexed.get("stopped_by_budget") else ""),
            _fmt((indexed.get("projected_semantic_seconds") or 0) / 3600 or None, " h", 2),
        ),
        (
            "`index` peak RSS (the two processes' peaks added: writer + reader) / CPU seconds / wall",
            f"{_fmt(_index_peak(ix))} MB ({_fmt(ix.get('peak_rss_mb'))} + {_fmt(ix.get('reader_peak_mb') or 0)}) / "
            f"{_fmt(ix.get('cpu_seconds'))} s / {_fmt(ix.get('wall_seconds'))} s",
        ),
        (
            "index on disk / source",
            f"{entry.get('index_disk_bytes', 0) / 1e6:,.0f} MB / {h['bytes'] / 1e6:,.0f} MB "
            f"({entry.get('index_disk_bytes', 0) / max(1, h['bytes']):.2f}x)",
        ),
    ]
    search = entry.get("search", {}).get("modes", {})
    if search:
        rows.append(
            (
                "in-process search p50 / p95 (ms; p95 of each query's second and third runs)",
                ", ".join(
                    f"{mode} {_fmt(v.get('p50'))} / {_fmt(v.get('p95'))}"
                    + (f" ({_fmt(v['repeat_p95'])})" if "repeat_p95" in v else "")
                    for mode, v in search.items()
                    if "p95" in v
                )
                + f"; filters only {_fmt(_get(search, 'filters only', 'p50'))}",
            )
        )
    cli = entry.get("cli", {})
    if cli:
        help_ms = _get(cli, "help", "p50_ms")
        parts = [f"`--help` {_fmt(help_ms)} ms"]
        for name in (
            "cold keyword search",
            "cold hybrid search",
            "served keyword search",
            "served hybrid search",
            "first search, keep_warm",
            "next keyword search, keep_warm",
            "next hybrid search, keep_warm",
            "help, bytecode cached",
            "cold keyword search, bytecode cached",
        ):
            fig = cli.get(name, {})
            if not fig and ("keep_warm" in name or "bytecode" in name):
                continue  # measured from the twelfth (keep_warm) and twenty-sixth (bytecode) sessions on
            parts.append(f"{name} {_fmt(fig.get('p50_ms'))} / {_fmt(fig.get('p95_ms'))} ms ({_fmt(fig.get('x_help'), 'x', 2)})")
        rows.append(("CLI p50 / p95", "; ".join(parts)))
        if "cold stats" in cli:  # measured from the twentieth session on
            rows.append(
                (
                    "cold `sessions` / `stats` p50 (peak RSS)",
                    " / ".join(
                        f"{_fmt(_get(cli, name, 'p50_ms'))} ms ({_fmt(_get(cli, name, 'peak_mb'))} MB)"
                        for name in ("cold sessions", "cold stats")
                    ),
                )
            )
        rows.append(
            (
                "peak RSS: holder (`serve`, after searches) / cold keyword search / cold hybrid search",
                f"{_fmt(_get(cli, 'holder peak_mb', 'peak_mb'))} / {_fmt(_get(cli, 'cold keyword search', 'peak_mb'))} / "
                f"{_fmt(_get(cli, 'cold hybrid search', 'peak_mb'))} MB",
            )
        )
    app = entry.get("app", {})
    if app:
        rows.append(
            (
                "app: F3 to the sessions browser's rows / keystroke to results p50 / p95 "
                "(a hybrid query's hybrid results after its keyword ones: p50 / p95)",
                f"{_fmt(app.get('sessions_browser_seconds'), ' s', 2)} / {_fmt(app.get('keystroke_p50_ms'))} / "
                f"{_fmt(app.get('keystroke_p95_ms'))} ms"
                + (
                    f" ({_fmt(app.get('keystroke_final_p50_ms'))} / {_fmt(app.get('keystroke_final_p95_ms'))} ms)"
                    if app.get("keystroke_final_p50_ms") is not None
                    else ""
                )
                if "error" not in app
                else app["error"],
            )
        )
    if entry.get("peers") and entry.get("peers_from"):
        rows.append(("peers measured in", str(entry["peers_from"])))
    for peer in entry.get("peers", []):
        name = peer["tool"]
        if "skipped" in peer:
            rows.append((f"peer: {name}", f"skipped ({peer['skipped']})"))
        elif name == "agentsview":
            rows.append(
                (f"peer: {name} (`sync`)", f"{_fmt(peer.get('sync_seconds'))} s, peak {_fmt(peer.get('sync_peak_mb'))} MB")
            )
        else:
            found = ", ".join(f"{w} {'yes' if ok else 'no'}" for w, ok in (peer.get("found") or {}).items())
            rows.append(
                (
                    f"peer: {name} (first search builds its cache)",
                    f"first answer {_fmt(peer.get('first_answer_seconds'))} s (peak {_fmt(peer.get('first_peak_mb'))} MB, "
                    f"found {peer.get('first_found')}); then {_fmt(peer.get('query_p50_seconds'), ' s', 2)} a search; {found}",
                )
            )
    return rows


def markdown(results: dict) -> str:
    out = ["# Scale bench results", ""]
    machine = results.get("machine", {})
    out.append(
        f"Machine: {machine.get('cpu_model')}, {machine.get('cores')} cores, {machine.get('memory_gb')} GB, {machine.get('date')}."
    )
    out.append("")
    groups = [("sizes", results.get("sizes", {})), ("huge", results.get("huge", {}))]
    for _, entries in groups:
        for label, entry in entries.items():
            out += [f"## {label}", "", "| | |", "|---|---|"]
            out += [f"| {name} | {value} |" for name, value in size_rows(entry)]
            out.append("")
    return "\n".join(out)


# -- the plot ------------------------------------------------------------------------


def series(results: dict) -> dict[str, list[tuple[float, float]]]:
    """chart: line name -> [(messages, value)]: every figure of issue 25's "Done when", and the peers' where they ran."""
    out: dict[str, list[tuple[float, float]]] = {}

    def add(name: str, x: float, y: Any) -> None:
        if isinstance(y, (int, float)) and y > 0:
            out.setdefault(name, []).append((x, float(y)))

    for entry in results.get("sizes", {}).values():
        x = entry["history"]["messages"]
        ix = entry["index"]
        polls = ix.get("needles", {})
        newest = next((p.get("found_after") for w, p in polls.items() if w.startswith("quill")), None)
        cli = entry.get("cli", {})
        app = entry.get("app", {})
        add("first: convo-tui", x, newest)
        add("all: convo-tui", x, _get(ix, "indexed", "keyword_done"))
        add("semantic: convo-tui", x, (_get(ix, "indexed", "projected_semantic_seconds") or 0) / 3600)
        add("rss: convo-tui index", x, _index_peak(ix))
        add("rss: holder", x, _get(cli, "holder peak_mb", "peak_mb"))
        add("hybrid: hybrid p95", x, _get(entry, "search", "modes", "hybrid", "p95"))
        add("hybrid: keyword p95", x, _get(entry, "search", "modes", "keyword", "p95"))
        add("served: served hybrid", x, _get(cli, "served hybrid search", "x_help"))
        add("served: served keyword", x, _get(cli, "served keyword search", "x_help"))
        add("cold: cold keyword", x, _get(cli, "cold keyword search", "x_help"))
        add("cold: cold hybrid", x, _get(cli, "cold hybrid search", "x_help"))
        add("cold: cold keyword, bytecode cached", x, _get(cli, "cold keyword search, bytecode cached", "x_help"))
        if "error" not in app:
            add("browser: convo-tui", x, app.get("sessions_browser_seconds"))
            add("keystroke: p50", x, app.get("keystroke_p50_ms"))
            add("keystroke: p95", x, app.get("keystroke_p95_ms"))
            add("keystroke: hybrid results p95", x, app.get("keystroke_final_p95_ms"))
        for peer in entry.get("peers", []):
            if peer.get("first_answer_seconds") and not peer.get("timeout"):
                add(f"first: {peer['tool']}", x, peer["first_answer_seconds"])
                add(f"rss: {peer['tool']}", x, peer.get("first_peak_mb"))
            if peer.get("sync_seconds") and not peer.get("timeout"):
                add(f"all: {peer['tool']} sync", x, peer["sync_seconds"])
                add(f"rss: {peer['tool']} sync", x, peer.get("sync_peak_mb"))
    return out


CHARTS = [
    ("first", "first keyword answer, newest session (s)"),
    ("all", "every message keyword-searchable (s)"),
    ("semantic", "time to fully semantic (h, projected)"),
    ("rss", "peak RSS (MB)"),
    ("hybrid", "in-process search p95 (ms)"),
    ("served", "served CLI search, x `--help`"),
    ("cold", "cold CLI search, x `--help`"),
    ("browser", "app: F3 to the sessions browser (s)"),
    ("keystroke", "app: keystroke to results (ms)"),
]
TARGETS = {
    "first": 15.0,  # s, a needle in the newest session, at 1M messages
    "all": 600.0,  # s, every message keyword-searchable
    "semantic": 3.0,  # h, projected time to fully semantic
    "rss": 800.0,  # MB, index peak RSS at every size
    "hybrid": 100.0,  # ms, in-process hybrid p95
    "served": 2.0,  # x --help
    "cold": 3.0,  # x --help, keyword
    "browser": 1.0,  # s
    "keystroke": 150.0,  # ms
}
# convo-tui's own lines take the first colours, in each chart's order; a peer keeps
# one colour in every chart, so that it reads the same across the grid.
COLORS = [(31, 119, 180), (214, 39, 40), (148, 103, 189), (23, 190, 207)]
PEER_COLORS = {"ccsearch": (44, 160, 44), "agent-chat-reader": (255, 127, 14), "agentsview sync": (140, 86, 75)}
LOG_Y_SPAN = 30  # a chart whose values span more than this factor gets a log y axis


class _Frame:
    """One chart's box: log-scale x (messages); y linear from 0, or log when the values span decades."""

    def __init__(self, left: float, top: float, w: float, h: float, xs: list[float], ys: list[float]):
        self.left, self.top, self.w, self.h = left, top, w, h
        self.x0, self.x1 = math.log10(min([*xs, 1e4])), math.log10(max([*xs, 1e6]))
        self.log_y = max(ys) / min(ys) > LOG_Y_SPAN
        if self.log_y:
            self.y0, self.y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys) * 1.15))
        else:
            self.y0, self.y1 = 0.0, _nice_step(max(ys) * 1.1 / 4) * 4

    def fy(self, y: float) -> float:
        value = math.log10(y) if self.log_y else y
        return (value - self.y0) / ((self.y1 - self.y0) or 1)

    def at(self, x: float, y: float) -> tuple[float, float]:
        fx = (math.log10(x) - self.x0) / ((self.x1 - self.x0) or 1)
        return self.left + fx * self.w, self.top + self.h - self.fy(y) * self.h

    def ticks(self) -> list[float]:
        if self.log_y:
            return [10.0**e for e in range(int(self.y0), int(self.y1) + 1)]
        return [self.y1 * i / 4 for i in range(5)]


def _nice_step(raw: float) -> float:
    """The smallest 1, 2, 2.5 or 5 times a power of ten that is at least raw: ticks a reader can add up."""
    magnitude = 10.0 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)


def _label(value: float) -> str:
    if value >= 20 or value == 0:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 0.1 else f"{value:g}"


def plot(results: dict, path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    data = series(results)
    width, height, cols = 1500, 1320, 3
    rows = math.ceil(len(CHARTS) / cols)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=14)
    small = ImageFont.load_default(size=12)
    cell_w, cell_h = width // cols, height // rows
    for n, (key, title) in enumerate(CHARTS):
        left, top = (n % cols) * cell_w + 70, (n // cols) * cell_h + 40
        w, h = cell_w - 110, cell_h - 130
        lines = {name.split(": ", 1)[1]: pts for name, pts in data.items() if name.startswith(key + ":")}
        xs = [x for pts in lines.values() for x, _ in pts]
        frame = _Frame(left, top, w, h, xs, [*(y for pts in lines.values() for _, y in pts), TARGETS[key]])
        draw.text((left, top - 30), title + ("  (log)" if frame.log_y else ""), fill="black", font=font)
        draw.rectangle((left, top, left + w, top + h), outline=(120, 120, 120))
        for tick, name in ((1e4, "10k"), (1e5, "100k"), (1e6, "1M")):
            tx, _ = frame.at(tick, 1)
            draw.line((tx, top + h, tx, top + h + 5), fill="black")
            draw.text((tx - 12, top + h + 8), name, fill="black", font=small)
        for value in frame.ticks():
            ty = top + h - frame.fy(value) * h if value > 0 else top + h
            draw.line((left - 5, ty, left, ty), fill="black")
            draw.text((left - 60, ty - 7), _label(value), fill="black", font=small)
        ty = top + h - frame.fy(TARGETS[key]) * h
        for dash in range(int(left), int(left + w), 12):
            draw.line((dash, ty, min(dash + 6, left + w), ty), fill=(200, 0, 0))
        draw.text((left + w - 80, ty - 16), f"target {TARGETS[key]:g}", fill=(200, 0, 0), font=small)
        ours = [name for name in sorted(lines) if name not in PEER_COLORS]
        for i, name in enumerate(ours + sorted(set(lines) - set(ours))):
            pts = lines[name]
            color = PEER_COLORS.get(name) or COLORS[ours.index(name) % len(COLORS)]
            coords = [frame.at(x, y) for x, y in sorted(pts)]
            if len(coords) > 1:
                draw.line(coords, fill=color, width=3)
            for cx, cy in coords:
                draw.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=color)
            draw.text((left + 8, top + 6 + 16 * i), name, fill=color, font=small)
        draw.text((left + w // 2 - 30, top + h + 26), "messages", fill="black", font=small)
    image.save(path)


def render(results: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "scale.md").write_text(markdown(results), encoding="utf-8")
    plot(results, out / "scale.png")
