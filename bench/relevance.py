"""Relevance benchmark: `python -m bench.relevance [--models m1,m2] [--out DIR]`.

Indexes the hand-written corpus (bench/relevance_corpus.py) once per model
(cached under bench/out/relevance-cache, keyed by corpus and model), runs every
query of bench/relevance_queries.py in each search mode, and reports R@1, R@3,
R@10 and MRR per mode and query kind, plus indexing and query cost per model.
R@k is the share of queries with at least one relevant turn among the first k
cards (a card counts for the turn it belongs to); MRR uses the first relevant card.
Writes relevance.json and relevance.md to --out (default bench/out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from convo_tui.core.library import Library
from convo_tui.core.search import fusion
from convo_tui.core.settings import DEFAULT_MODEL, SEARCH_MODES, Settings

from bench.relevance_corpus import SESSIONS, write_corpus
from bench.relevance_queries import KINDS, QUERIES

DEPTH = 10
CUTOFFS = (1, 3, 10)


def corpus_hash() -> str:
    return hashlib.sha256(json.dumps(SESSIONS, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


def open_index(model: str, cache: Path) -> tuple[Library, dict[str, float]]:
    """The corpus indexed with `model`, reused when a finished build is cached."""
    slot = cache / f"{model}-{corpus_hash()}"
    done = slot / "done.json"
    if done.is_file():
        cost = json.loads(done.read_text())
        return Library.open(Settings(index_dir=slot / "index", model=model)), cost
    shutil.rmtree(slot, ignore_errors=True)
    source = write_corpus(slot / "src")
    lib = Library.open(Settings(index_dir=slot / "index", model=model))
    started = time.perf_counter()
    lib.load_model()
    loaded = time.perf_counter()
    report = lib.index([source])
    finished = time.perf_counter()
    points = lib.store.count()
    cost = {"load_s": loaded - started, "index_s": finished - loaded, "points": points, "dim": lib.models.dense.dim}
    del report
    done.write_text(json.dumps(cost))
    return lib, cost


def rank_of(hits: list[tuple[str, int]], relevant: list[str]) -> int | None:
    wanted = set(relevant)
    for rank, (session, turn) in enumerate(hits, start=1):
        if f"{session}:{turn}" in wanted:
            return rank
    return None


def run_queries(lib: Library, modes: tuple[str, ...]) -> dict[str, Any]:
    """Per mode: the rank of the first relevant card for each query, and timings."""
    out: dict[str, Any] = {}
    lib.load_model()
    lib.search("warm up", mode="hybrid")
    for mode in modes:
        ranks: list[int | None] = []
        times: list[float] = []
        for _kind, query, relevant in QUERIES:
            started = time.perf_counter()
            hits = lib.search(query, limit=DEPTH, mode=mode)
            times.append(time.perf_counter() - started)
            ranks.append(rank_of([(h.session_id, h.turn_index) for h in hits], relevant))
        out[mode] = {"ranks": ranks, "query_ms_median": 1000 * statistics.median(times), "query_ms_max": 1000 * max(times)}
    return out


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    result = {f"R@{k}": sum(1 for r in ranks if r is not None and r <= k) / n for k in CUTOFFS}
    result["MRR"] = sum(1.0 / r for r in ranks if r is not None) / n
    return result


def table(model: str, runs: dict[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """mode -> kind (and "all") -> metric -> value."""
    kinds = [k for k, _, _ in QUERIES]
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for mode, run in runs.items():
        ranks = run["ranks"]
        summary[mode] = {kind: metrics([r for r, k in zip(ranks, kinds, strict=True) if k == kind]) for kind in KINDS}
        summary[mode]["all"] = metrics(ranks)
    return summary


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"Fusion: {results['fusion']} (prefetch {results['prefetch']}). Relevance: {len(QUERIES)} queries over {sum(len(t) for _, t in SESSIONS.values())} turns "
        f"({len(SESSIONS)} sessions, English and Chinese); R@k = a relevant turn in the first k cards.",
        "",
    ]
    for model, data in results["models"].items():
        lines += [f"**{model}** (R@3 per kind; all: R@1 / R@3 / R@10 / MRR)", ""]
        lines.append("| mode | " + " | ".join(KINDS) + " | all R@1 | all R@3 | all R@10 | MRR |")
        lines.append("|---" * (len(KINDS) + 5) + "|")
        for mode, by_kind in data["table"].items():
            cells = [f"{by_kind[k]['R@3']:.2f}" for k in KINDS]
            a = by_kind["all"]
            cells += [f"{a['R@1']:.2f}", f"{a['R@3']:.2f}", f"{a['R@10']:.2f}", f"{a['MRR']:.2f}"]
            lines.append(f"| {mode} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "Cost per model (2 shared cores, nice -n 10):",
        "",
        "| model | dim | load s | index s (points) | query ms median (hybrid / semantic / keyword / fuzzy) |",
        "|---|---|---|---|---|",
    ]
    for model, data in results["models"].items():
        c = data["cost"]
        q = " / ".join(f"{data['runs'][m]['query_ms_median']:.1f}" for m in data["runs"])
        lines.append(f"| {model} | {c['dim']} | {c['load_s']:.1f} | {c['index_s']:.1f} ({c['points']}) | {q} |")
    return "\n".join(lines) + "\n"


def misses(data: dict[str, Any], mode: str) -> list[str]:
    ranks = data["runs"][mode]["ranks"]
    return [f"{kind}: {q!r} -> {r}" for (kind, q, _), r in zip(QUERIES, ranks, strict=True) if r is None or r > 3]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.relevance", description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=DEFAULT_MODEL, help="comma-separated model names")
    parser.add_argument("--modes", default=",".join(SEARCH_MODES))
    parser.add_argument("--out", type=Path, default=Path("bench/out"))
    parser.add_argument("--fusion", default=fusion.METHOD, help="weighted | rrf | dbsf")
    parser.add_argument("--prefetch", type=int, default=fusion.PREFETCH)
    parser.add_argument("--misses", action="store_true", help="print the queries hybrid misses in its top 3")
    args = parser.parse_args(argv)
    fusion.METHOD, fusion.PREFETCH = args.fusion, args.prefetch
    cache = args.out / "relevance-cache"
    cache.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"queries": len(QUERIES), "fusion": args.fusion, "prefetch": args.prefetch, "models": {}}
    for model in args.models.split(","):
        lib, cost = open_index(model, cache)
        try:
            runs = run_queries(lib, tuple(args.modes.split(",")))
        finally:
            lib.close()
        results["models"][model] = {"cost": cost, "runs": runs, "table": table(model, runs)}
        if args.misses:
            for mode in runs:
                print(f"-- {model} {mode} misses:\n  " + "\n  ".join(misses(results["models"][model], mode)))
    name = f"relevance-{args.fusion}"
    (args.out / f"{name}.json").write_text(json.dumps(results, indent=1))
    text = markdown(results)
    (args.out / f"{name}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
