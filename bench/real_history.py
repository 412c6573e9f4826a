"""The real-history scenario: a generated Claude Code history indexed end to end.

    nice -n 10 python -m bench.real_history [--sessions 300] [--workdir DIR] [--out bench/results-history.json]

Measures, with the real bundled model on this machine:
- time until keyword-searchable (phase 1 done, the four needles found in-process)
  and until fully semantic (phase 2 done), for one `Library.index` run;
- when a search from a SECOND process first answers with the prompt needle;
- phase 2 texts/s and points/s vs raw fastembed on a sample of the same texts;
- the indexing process' peak RSS;
- a no-op re-index vs appending one exchange to 3 sessions (and texts embedded);
- first-search and per-query time of ripgrep, ccsearch and agent-chat-reader
  over the same files (each skipped with a note when it is not installed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.history import NEEDLES, append_exchange, as_dict, write_history
from bench.needles import all_needles

RAW_SAMPLE = 100
PEER_QUERIES = 3
# A query needle counts as found when its session is among this many cards.
NEEDLE_DEPTH = 5


# -- the indexing process ------------------------------------------------------


def worker(
    index_dir: Path, projects: Path, needle_sessions: dict[str, str], budget: float | None, model: str = "auto", variant: str = ""
) -> int:
    """Runs in its own process: prints one JSON line per measurement."""
    started = time.perf_counter()
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings

    def say(**data: object) -> None:
        print(json.dumps({"t": round(time.perf_counter() - started, 3), **data}), flush=True)

    library = Library.open(Settings(index_dir=index_dir, model=model))
    library.load_model()
    say(event="model_loaded", model=library.model_info().model, reason=library.model_info().reason)
    marks: dict[str, float] = {}

    def progress(p) -> None:
        if p.phase == "semantic" and "keyword" not in marks:
            marks["keyword"] = time.perf_counter() - started
            found = {}
            for part, needle in NEEDLES.items():
                hits = library.search(needle, mode="keyword", limit=3)
                found[part] = (
                    bool(hits) and hits[0].session_id == needle_sessions[part] and (part == "prompt" or hits[0].part == part)
                )
            marks["keyword_found"] = time.perf_counter() - started
            say(event="keyword_ready", sessions=p.sessions, texts_pending=p.total, found=found)

    def over_budget() -> bool:
        """Phase 2 stopped after `budget` seconds (a loaded machine): the rate is measured, the rest projected."""
        return budget is not None and "keyword_found" in marks and time.perf_counter() - started - marks["keyword_found"] > budget

    report = library.index([projects], progress=progress, cancel=over_budget)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = time.perf_counter() - started
    phase2 = total - marks.get("keyword_found", total)
    say(
        event="indexed",
        seconds=round(total, 2),
        keyword_seconds=round(marks.get("keyword", 0.0), 2),
        semantic_seconds=round(phase2, 2),
        sessions=report.sessions,
        points=report.points,
        embedded=report.embedded,
        vectors_added=report.vectors_added,
        texts_per_second=round(report.embedded / phase2, 2) if phase2 else None,
        points_per_second=round(report.vectors_added / phase2, 2) if phase2 else None,
        peak_rss_mb=round(rss_mb),
        semantic_ready=report.semantic_ready,
        semantic_total=report.semantic_total,
        stopped_by_budget=report.cancelled,
        projected_semantic_seconds=round(report.semantic_total / (report.vectors_added / phase2), 1)
        if phase2 and report.vectors_added
        else None,
    )
    semantic = not report.cancelled  # with a budget cut, the runs below measure phase 1 only
    found = {part: [h.session_id for h in library.search(needle, mode="hybrid", limit=3)] for part, needle in NEEDLES.items()}
    say(event="hybrid_found", found={part: needle_sessions[part] in ids for part, ids in found.items()})
    say(event="query_needles", **query_needles(library, needle_sessions))
    if variant:
        from bench.relevance import apply_variant

        apply_variant(variant)
        say(event="query_needles_variant", variant=variant, **query_needles(library, needle_sessions))

    t = time.perf_counter()
    noop = library.index([projects], semantic=semantic)
    noop_seconds = time.perf_counter() - t
    files = sorted(projects.rglob("*.jsonl"))
    for number, path in enumerate(random.Random(7).sample(files, 3)):
        append_exchange(path, number)
    t = time.perf_counter()
    appended = library.index([projects], semantic=semantic)
    append_seconds = time.perf_counter() - t
    say(
        event="append",
        noop_seconds=round(noop_seconds, 3),
        append_seconds=round(append_seconds, 3),
        ratio=round(append_seconds / noop_seconds, 2) if noop_seconds else None,
        updated=appended.updated,
        embedded=appended.embedded,
        noop_unchanged=noop.unchanged,
        phase_one_only=not semantic,
        new_texts_pending=appended.semantic_total - appended.semantic_ready - (noop.semantic_total - noop.semantic_ready),
    )

    # Raw fastembed vs our phase-2 path on the same sample of texts.
    from convo_tui.core.embed.bundled import fastembed_bundled
    from convo_tui.core.index.dense_phase import point_text, token_batches
    from convo_tui.core.index.publish import visible_filter
    from convo_tui.core.settings import DEFAULT_MODEL
    from convo_tui.core.store.base import Cond

    texts = sorted({point_text(p.payload) for p in library.store.scroll(visible_filter(Cond("dense_ready", value=True)))})
    sample = random.Random(11).sample(texts, min(RAW_SAMPLE, len(texts)))
    library.close()
    raw = fastembed_bundled()
    t = time.perf_counter()
    count = sum(1 for _ in raw.embed(sample, batch_size=32))
    raw_rate = count / (time.perf_counter() - t)
    del raw
    from convo_tui.core.embed.dense import shared_dense

    ours = shared_dense(DEFAULT_MODEL)
    t = time.perf_counter()
    count = sum(len(ours.embed_documents(batch)) for batch in token_batches(sample))
    ours_rate = count / (time.perf_counter() - t)
    say(event="raw", sample=len(sample), raw_texts_per_second=round(raw_rate, 2), ours_texts_per_second=round(ours_rate, 2))
    return 0


def query_needles(library, needle_sessions: dict[str, str], depth: int = NEEDLE_DEPTH) -> dict:
    """bench/needles.py's queries in hybrid and keyword mode: rank of the needle's
    session among the first `depth` cards (None = not there), and counts found."""
    ranks: dict[str, dict[str, int | None]] = {}
    for name, _part, _text, query, _topic in all_needles():
        session = needle_sessions.get(name)
        if session is None:
            continue
        for mode in ("hybrid", "keyword", "semantic"):
            ids = [h.session_id for h in library.search(query, mode=mode, limit=depth)]
            ranks.setdefault(name, {})[mode] = ids.index(session) + 1 if session in ids else None
    found = {
        f"{kind} {mode}": sum(1 for name, r in ranks.items() if name.startswith(kind) and r[mode] is not None)
        for kind in ("exact", "paraphrase")
        for mode in ("hybrid", "keyword", "semantic")
    }
    return {"depth": depth, "found": found, "ranks": ranks}


# -- peers -----------------------------------------------------------------------


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    return time.perf_counter() - t, out.stdout + out.stderr


def peer_times(name: str, argv_for, env: dict[str, str], needle_sessions: dict[str, str]) -> dict:
    first, out = _timed(argv_for(NEEDLES["prompt"]), env)
    found_first = needle_sessions["prompt"] in out
    times, found = [], {}
    for _ in range(PEER_QUERIES):
        for part, needle in NEEDLES.items():
            seconds, out = _timed(argv_for(needle), env)
            times.append(seconds)
            found[part] = needle_sessions[part] in out
    return {
        "tool": name,
        "first_search_seconds": round(first, 3),
        "first_found": found_first,
        "per_query_seconds": round(sum(times) / len(times), 3),
        "found": found,
    }


def peers(workdir: Path, projects: Path, needle_sessions: dict[str, str]) -> list[dict]:
    results: list[dict] = []
    rg = shutil.which("rg")
    if rg:
        results.append(peer_times("ripgrep", lambda n: [rg, "-l", "-F", n, str(projects)], dict(os.environ), needle_sessions))
    else:
        results.append({"tool": "ripgrep", "skipped": "rg not installed (apt-get install ripgrep)"})
    peers_bin = Path(os.environ.get("BENCH_PEERS_BIN", "/tmp/indexing-peers/bin"))
    home = workdir / "peer-home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    link = home / ".claude" / "projects"
    if not link.exists():
        link.symlink_to(projects)
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "NO_COLOR": "1"}
    for tool, argv_for in (
        ("ccsearch", lambda n: [str(peers_bin / "ccsearch"), n]),
        ("agent-chat-reader", lambda n: [str(peers_bin / "agent-chat-reader"), "--find", n, "--source", "claude"]),
    ):
        if not (peers_bin / tool).exists():
            results.append({"tool": tool, "skipped": f"not installed in {peers_bin} (pip install {tool} there)"})
            continue
        results.append(peer_times(tool, argv_for, env, needle_sessions))
    return results


def cli_append(index_dir: Path, projects: Path) -> dict:
    """What a user sees: `convo-tui index` as a command, a no-op run vs one after
    appending an exchange to 3 sessions (process start and model load included)."""
    exe = str(Path(sys.executable).with_name("convo-tui"))
    argv = [exe, "index", str(projects), "--index-dir", str(index_dir)]
    noop, _ = _timed(argv, dict(os.environ))
    files = sorted(projects.rglob("*.jsonl"))
    for number, path in enumerate(random.Random(8).sample(files, 3)):
        append_exchange(path, 100 + number)
    appended, out = _timed(argv, dict(os.environ))
    line = next((x for x in out.splitlines() if x.startswith("semantic:")), "")
    return {
        "noop_seconds": round(noop, 2),
        "append_seconds": round(appended, 2),
        "ratio": round(appended / noop, 2),
        "report": line,
    }


# -- the run -----------------------------------------------------------------------


def second_process_searches(
    index_dir: Path, needle: str, session_id: str, started: float, stop: threading.Event, out: dict
) -> None:
    """Poll `convo-tui search` from another process until it finds the prompt needle."""
    exe = str(Path(sys.executable).with_name("convo-tui"))
    tries = 0
    while not stop.is_set():
        tries += 1
        result = subprocess.run(
            [exe, "search", needle, "--mode", "keyword", "--json", "--index-dir", str(index_dir)],
            capture_output=True,
            text=True,
        )
        if session_id in result.stdout:
            out.update(found_after=round(time.perf_counter() - started, 2), tries=tries)
            return
        out["last_answer"] = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
        stop.wait(10.0)
    out["tries"] = tries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.real_history")
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--out", type=Path, default=Path("bench/results-history.json"))
    parser.add_argument("--semantic-budget", type=float, help="stop phase 2 after this many seconds and project the rest")
    parser.add_argument("--model", default="auto", help="the dense model (default: auto, the default settings)")
    parser.add_argument("--no-peers", action="store_true", help="skip the peers and the CLI append run")
    parser.add_argument("--variant", default="", help="search knobs of bench.relevance --variant, for the needle queries")
    parser.add_argument(
        "--worker",
        nargs=6,
        metavar=("INDEX_DIR", "PROJECTS", "NEEDLES_JSON", "BUDGET", "MODEL", "VARIANT"),
        help=argparse.SUPPRESS,
    )
    args = parser.parse_args(argv)
    if args.worker:
        budget = float(args.worker[3]) if args.worker[3] != "none" else None
        return worker(
            Path(args.worker[0]), Path(args.worker[1]), json.loads(args.worker[2]), budget, args.worker[4], args.worker[5]
        )
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="convo-history-"))
    try:
        history = write_history(workdir / "history", args.sessions)
        index_dir = workdir / "index"
        results: dict = {"history": as_dict(history), "events": []}
        print(f"history: {as_dict(history)}", flush=True)
        started = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.real_history",
                "--worker",
                str(index_dir),
                str(history.root),
                json.dumps({**history.needle_sessions, **history.query_needle_sessions}),
                str(args.semantic_budget or "none"),
                args.model,
                args.variant,
            ],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        stop, second = threading.Event(), {}
        poller = threading.Thread(
            target=second_process_searches,
            args=(index_dir, NEEDLES["prompt"], history.needle_sessions["prompt"], started, stop, second),
            daemon=True,
        )
        poller.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            print(event, flush=True)
            results["events"].append(event)
            if event.get("event") == "indexed":
                results["index_wall_seconds"] = round(time.perf_counter() - started, 2)
                stop.set()
        proc.wait()
        stop.set()
        poller.join(timeout=60)
        results["second_process"] = second
        indexed = next((e for e in results["events"] if e.get("event") == "indexed"), {})
        if args.no_peers:
            args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
            return proc.returncode or 0
        if indexed and not indexed.get("stopped_by_budget"):
            results["cli_append"] = cli_append(index_dir, history.root)
            print(results["cli_append"], flush=True)
        results["peers"] = peers(workdir, history.root, history.needle_sessions)
        for peer in results["peers"]:
            print(peer, flush=True)
        args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
        return proc.returncode or 0
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
