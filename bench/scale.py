"""The scale bench (issue 25): a heavy user's history at 10k, 100k and 1M messages, end to end.

    nice -n 10 python -m bench.scale --sizes 10k,100k [--workdir bench/out/scale]
        [--semantic-budget SECONDS] [--phases all|index|measure|semantic] [--peers-max 100k] [--huge-mb 200]

Per size, with the real model and the real store, it records:
- time to the first keyword answer for a needle in the newest session and for
  one in a 20-month-old session, asked from a second process as a user would
  (`convo-tui search NEEDLE --mode keyword` in a loop while `index` runs);
- time until every message is keyword-searchable (phase 1 done), phase 1
  messages/s, phase 2 texts/s and the projected time to fully semantic (with
  a budget, phase 2 stops after that long and the rest is projected from its
  rate: said so in the results);
- peak RSS of `index`, of the holder (`serve`) after searches, of a cold search;
- index size on disk against the source bytes;
- in-process search p50/p95 per mode; served and cold CLI search p50/p95
  against `convo-tui --help` (and a cold keyword search against `--help` with
  their bytecode cached, as an installed program runs, where the environment
  sets PYTHONDONTWRITEBYTECODE);
- the app: F3 to the sessions browser's first rows, and keystroke to results;
- peers from PyPI on the same files (bench/scale_peers.py), up to --peers-max.
With --huge-mb, one more history: a single Claude Code session of that many MB
(issue 24: 200 MB, 43k lines, never finished before).

Results go to bench/out/scale-results.json (merged with earlier sizes), the
tables to bench/out/scale.md and the cost-against-size plot to
bench/out/scale.png (bench/scale_report.py). Generated histories and indexes
stay in the workdir (bench/out/ is ignored by git).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.holders import holder_pid, stop
from bench.machine import machine_info
from bench.scale_corpus import HUGE_TAIL, NEWEST, OLD, ScaleHistory, write_huge_session, write_scale_history
from bench.scale_peers import peak_of, run_peers
from bench.stats import percentile

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
CLI = [str(Path(sys.executable).with_name("convo-tui"))]
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
QUERIES = [
    "how did we set up the Qdrant collection",
    "JWT refresh token in the auth middleware",
    "chunking strategy for the RAG pipeline",
    "flaky test in the release pipeline",
    "Postgres migration slow query",
    "React component render loop",
    "goroutine leak context cancellation",
    "Kubernetes readiness probe Helm chart",
    "数据库连接池怎么配置",
    "memory leak p95 latency",
    NEWEST,
    OLD,
]
CLI_ROUNDS = 7


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


# -- the history -------------------------------------------------------------------


def history_for(workdir: Path, label: str, messages: int) -> ScaleHistory:
    """The generated history of this size, made once and reused (same seed: same bytes)."""
    home = workdir / f"history-{label}"
    marker = home / "history.json"
    if marker.is_file():
        data = json.loads(marker.read_text())
        history = ScaleHistory(home)
        for key, value in data.items():
            if key != "home":
                setattr(history, key, value)
        return history
    shutil.rmtree(home, ignore_errors=True)
    log(f"{label}: writing a history of {messages:,} messages")
    history = write_scale_history(home, messages, log=log)
    marker.write_text(json.dumps(history.as_dict(), indent=1))
    return history


def huge_history(workdir: Path, megabytes: int) -> ScaleHistory:
    home = workdir / f"history-huge{megabytes}"
    marker = home / "history.json"
    if marker.is_file():
        data = json.loads(marker.read_text())
    else:
        shutil.rmtree(home, ignore_errors=True)
        log(f"huge: writing one {megabytes} MB session")
        info = write_huge_session(home / ".claude" / "projects" / "-home-dev-code-mlplatform" / "huge.jsonl", megabytes)
        data = {
            "sessions": 1,
            "messages": info["messages"],
            "bytes": info["bytes"],
            "files": 1,
            "largest_bytes": info["bytes"],
            "lines": info["lines"],
            "by_source": {"claude": 1},
            "needles": {
                NEWEST: {"session": info["session"], "source": "claude", "path": info["path"]},
                HUGE_TAIL: {"session": info["session"], "source": "claude", "path": info["path"]},
            },
        }
        marker.write_text(json.dumps(data, indent=1))
    history = ScaleHistory(home)
    for key, value in data.items():
        if hasattr(history, key):
            setattr(history, key, value)
    return history


# -- indexing, watched from a second process ----------------------------------------


def poll_needle(index_dir: Path, word: str, session: str, started: float, stop: threading.Event, out: dict) -> None:
    """`convo-tui search WORD` from another process, again and again, until it answers with the session."""
    tries, latencies = 0, []
    while not stop.is_set():
        tries += 1
        asked = time.perf_counter()
        result = subprocess.run(
            [*CLI, "search", word, "--mode", "keyword", "--json", "--limit", "3", "--index-dir", str(index_dir)],
            capture_output=True,
            text=True,
        )
        latencies.append(time.perf_counter() - asked)
        if session in result.stdout:
            out.update(found_after=round(time.perf_counter() - started, 2), tries=tries)
            break
        out["last_answer"] = ((result.stderr or result.stdout).strip().splitlines() or [""])[-1][:200]
        # Every half second for the first minute, then every 5 s: each search is served by
        # the indexing process, and a long phase 1 should not pay for a thousand of them.
        stop.wait(0.5 if time.perf_counter() - started < 60 else 5.0)
    out["tries"] = tries
    out["poll_p50_seconds"] = round(sorted(latencies)[len(latencies) // 2], 3) if latencies else None


def run_index(index_dir: Path, history: ScaleHistory, budget: float | None) -> dict:
    shutil.rmtree(index_dir, ignore_errors=True)
    roots = [str(r) for r in history.roots if r.exists()]
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.scale_workers", "index", str(index_dir), str(budget or "none"), *roots],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    stop = threading.Event()
    polls: dict[str, dict] = {word: {} for word in history.needles}
    threads = []
    events: list[dict] = []
    loads = [load()]
    assert proc.stdout is not None
    for line in proc.stdout:
        event = json.loads(line)
        events.append(event)
        log(f"  index: {event}")
        if event.get("event") == "opened":
            # Asked only once `index` holds the index: a search that came first would
            # hold it itself for a moment, and `index` would wait for it.
            for word, where in history.needles.items():
                thread = threading.Thread(
                    target=poll_needle, args=(index_dir, word, where["session"], started, stop, polls[word]), daemon=True
                )
                thread.start()
                threads.append(thread)
        if len(events) % 6 == 0:
            loads.append(load())
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    for thread in threads:  # the last polls run against the finished index
        thread.join(timeout=120)
    stop.set()
    indexed = next((e for e in events if e.get("event") == "indexed"), {})
    return {
        "wall_seconds": round(wall, 1),
        "returncode": proc.returncode,
        # The index process's peak (wait4 reports the larger of it and its reader's),
        # and its reader process's (core/index/reader_process.py; 0: it read itself).
        "peak_rss_mb": indexed.get("peak_mb") or round(usage.ru_maxrss / 1024),
        "reader_peak_mb": reader_peak(events),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "model_loaded": next((e["t"] for e in events if e.get("event") == "model_loaded"), None),
        "first_publish": next((e["t"] for e in events if e.get("event") == "first_publish"), None),
        "keyword_done": indexed.get("keyword_done"),
        "indexed": indexed,
        "needles": polls,
        "load_during": loads,
    }


def reader_peak(events: list[dict]) -> int:
    """Phase 1's reader process's peak RSS (MB), as `index` reported it when phase 2
    began: later children (the int8 graph's conversion) are not the reader."""
    phase1 = next((e for e in events if e.get("event") == "keyword_done"), None)
    phase1 = phase1 or next((e for e in events if e.get("event") == "indexed"), {})
    return int(phase1.get("reader_peak_mb") or 0)


def disk_bytes(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_blocks * 512
        except OSError:
            continue
    return total


# -- searching -------------------------------------------------------------------------


def cli_times(argv: list[str], rounds: int, keep_warm: int = 0, env: dict[str, str] | None = None) -> dict:
    """p50/p95 of `rounds` runs of a command; `keep_warm` 0: each one opens the index itself."""
    times, peaks = [], []
    for _ in range(rounds):
        run = peak_of(argv, {**(env or os.environ), "CONVO_TUI_KEEP_WARM": str(keep_warm)})
        if run.get("rc") not in (0, None) or run.get("timeout"):
            raise RuntimeError(f"{' '.join(argv[1:4])}: {run.get('out', '')[-300:]}")
        times.append(run["seconds"])
        peaks.append(run.get("peak_mb") or 0)
    ms = [t * 1000 for t in times]
    return {"p50_ms": round(percentile(ms, 50), 1), "p95_ms": round(percentile(ms, 95), 1), "peak_mb": max(peaks)}


def start_serve(index_dir: Path) -> subprocess.Popen:
    proc = subprocess.Popen([*CLI, "serve", "--no-watch", "--index-dir", str(index_dir)], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "ready" in line:
            return proc
    raise RuntimeError("serve did not start")


def measure_cli(index_dir: Path) -> dict:
    index = ["--index-dir", str(index_dir)]
    query = "how did we set up the Qdrant collection"
    figures = {"help": cli_times([*CLI, "--help"], CLI_ROUNDS)}
    figures["cold keyword search"] = cli_times([*CLI, "search", query, "--mode", "keyword", *index], CLI_ROUNDS)
    # The same two as an installed program runs them, its modules' bytecode cached
    # (pip compiles it at install); where PYTHONDONTWRITEBYTECODE is set, as on the
    # bench's machines, every process above compiles convo-tui's modules from source.
    cached = bytecode_cached(index_dir.parent / "pycache")
    for argv in ([*CLI, "--help"], [*CLI, "search", query, "--mode", "keyword", *index]):
        cli_times(argv, 1, env=cached)  # writes the cache
    figures["help, bytecode cached"] = cli_times([*CLI, "--help"], CLI_ROUNDS, env=cached)
    figures["cold keyword search, bytecode cached"] = cli_times(
        [*CLI, "search", query, "--mode", "keyword", *index], CLI_ROUNDS, env=cached
    )
    figures["cold hybrid search"] = cli_times([*CLI, "search", query, *index], 3)
    # The whole-index commands a person runs as often as a search (each opens the index).
    figures["cold sessions"] = cli_times([*CLI, "sessions", *index], 3)
    figures["cold stats"] = cli_times([*CLI, "stats", *index], 3)
    serve = start_serve(index_dir)
    try:
        cli_times([*CLI, "search", query, *index], 1)  # the holder's first hybrid query loads the model
        figures["served hybrid search"] = cli_times([*CLI, "search", query, *index], CLI_ROUNDS)
        figures["served keyword search"] = cli_times([*CLI, "search", query, "--mode", "keyword", *index], CLI_ROUNDS)
        for word in (NEWEST, OLD, "stripe webhook retry"):
            cli_times([*CLI, "search", word, *index], 1)
    finally:
        serve.send_signal(signal.SIGTERM)  # SIGINT is ignored when the bench was started in the background
        _, _, usage = os.wait4(serve.pid, 0)
        serve.returncode = 0
    figures["holder peak_mb"] = {"peak_mb": round(usage.ru_maxrss / 1024)}
    # With keep_warm, as a user runs them: the first command opens the index itself
    # and starts the holder as it ends; the next ones are answered by it (cli/keep_warm.py).
    figures["first search, keep_warm"] = cli_times([*CLI, "search", query, "--mode", "keyword", *index], 1, keep_warm=600)
    holder = 0
    try:
        started = time.perf_counter()
        holder = holder_pid(index_dir, 600)  # it loads the index after the first command ended
        figures["keep_warm holder answers"] = {"seconds_after_first": round(time.perf_counter() - started, 2)}
        figures["next keyword search, keep_warm"] = cli_times(
            [*CLI, "search", query, "--mode", "keyword", *index], CLI_ROUNDS, keep_warm=600
        )
        figures["next hybrid search, keep_warm"] = cli_times([*CLI, "search", query, *index], CLI_ROUNDS, keep_warm=600)
    finally:
        if holder:
            stop(holder, 120)
    for name, figure in figures.items():
        if "p50_ms" in figure:
            against = figures["help, bytecode cached"] if name.endswith("bytecode cached") else figures["help"]
            figure["x_help"] = round(figure["p50_ms"] / against["p50_ms"], 2)
    return figures


def bytecode_cached(folder: Path) -> dict[str, str]:
    """The environment of a process whose modules' bytecode is kept (in `folder`)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(folder)}


def worker_json(kind: str, index_dir: Path, *args: str, timeout: float = 3600) -> dict:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.scale_workers", kind, str(index_dir), *args], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": f"timed out after {timeout} s"}
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return lines[-1] if lines else {"error": f"{kind} worker failed ({proc.returncode})"}


# -- one size ------------------------------------------------------------------------


def run_size(label: str, history: ScaleHistory, workdir: Path, args: argparse.Namespace, previous: dict) -> dict:
    index_dir = workdir / f"index-{label}"
    if args.phases == "semantic":
        return run_semantic_again(label, history, index_dir, args.semantic_budget, previous)
    result: dict = {"size": label, "history": history.as_dict(), "load_before": load()}
    if args.phases == "measure":
        # The index the last run of this size built, measured again (searches, CLI, app)
        # on the code of now; its indexing figures are that run's, and say so.
        if not previous.get("index") or not index_dir.is_dir():
            raise SystemExit(f"--phases measure: no index of {label} to measure in {index_dir} (run --phases all first)")
        result["index"] = previous["index"]
        result["index_from"] = previous.get("index_from") or previous.get("command", "an earlier run")
        result["index_disk_bytes"] = disk_bytes(index_dir)
    else:
        log(f"{label}: indexing {history.messages:,} messages ({history.bytes / 1e6:.0f} MB, {history.sessions:,} sessions)")
        result["index"] = run_index(index_dir, history, args.semantic_budget)
        result["index_disk_bytes"] = disk_bytes(index_dir)
    if args.phases in ("all", "measure"):
        log(f"{label}: in-process search")
        result["search"] = worker_json("search", index_dir, json.dumps(QUERIES))
        log(f"{label}: CLI, cold and served")
        result["cli"] = measure_cli(index_dir)
        if not args.skip_app:
            log(f"{label}: the app")
            result["app"] = worker_json("app", index_dir, json.dumps([q for q in QUERIES if q.isascii()][:8]))
    # By the sizes' names: a "10k" history holds a few more than 10,000 messages.
    if args.peers_max is None or SIZES.get(label, history.messages) <= SIZES.get(args.peers_max, 0):
        log(f"{label}: peers")
        needles = {w: where["session"] for w, where in history.needles.items() if where["source"] == "claude"}
        result["peers"] = run_peers(workdir / f"peers-{label}", history.home / ".claude" / "projects", needles)
    result["load_after"] = load()
    return result


# What a phase 2 run measures (the `indexed` event of bench/scale_workers.py).
PHASE2_FIELDS = (
    "semantic_seconds",
    "embedded",
    "vectors_added",
    "texts_per_second",
    "points_per_second",
    "semantic_ready",
    "semantic_total",
    "stopped_by_budget",
)


def run_semantic_again(label: str, history: ScaleHistory, index_dir: Path, budget: float | None, previous: dict) -> dict:
    """Phase 2 from its start on an index whose phase 1 is done and phase 2 not begun
    (the index a `--phases index` run with a budget of 0.001 left, or `python -m
    bench.scale_workers index DIR 0.001 ROOTS`): the phase 2 figures of the code of
    now; every other figure stays the last run's, and says so."""
    if not previous.get("index") or not index_dir.is_dir():
        raise SystemExit(f"--phases semantic: no index of {label} in {index_dir} and no earlier run of it to keep")
    roots = [str(r) for r in history.roots if r.exists()]
    log(f"{label}: phase 2 for {budget or 'all'} s on {index_dir}")
    loads = [load()]
    done = subprocess.run(
        [sys.executable, "-m", "bench.scale_workers", "index", str(index_dir), str(budget or "none"), *roots],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    loads.append(load())
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    indexed = next(e for e in events if e.get("event") == "indexed")
    if indexed.get("semantic_ready") != indexed.get("vectors_added"):
        raise SystemExit(
            f"--phases semantic: {index_dir} had vectors before this run; give it an index whose phase 2 has not begun"
        )
    return with_phase2(previous, indexed, loads)


def with_phase2(previous: dict, indexed: dict, loads: list) -> dict:
    """The last run's entry with the phase 2 figures of `indexed` (a worker's `indexed`
    event), the time to fully semantic projected from its rate over every text."""
    rate = indexed.get("points_per_second")
    phase2 = {key: indexed.get(key) for key in PHASE2_FIELDS}
    phase2["projected_semantic_seconds"] = round(indexed["semantic_total"] / rate, 1) if rate else None
    phase2["semantic_peak_mb"] = indexed.get("peak_mb")
    phase2["semantic_load"] = loads
    entry = dict(previous)
    entry["index"] = {**previous["index"], "indexed": {**previous["index"].get("indexed", {}), **phase2}}
    entry["index"]["semantic_from"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    entry["index_from"] = previous.get("index_from") or previous.get("command", "an earlier run")
    return entry


def keep_peers(entry: dict, previous: dict) -> None:
    """A size re-run without the peers keeps the peers' figures of its last run (same generated files), marked so."""
    if "peers" in entry or not previous.get("peers"):
        return
    entry["peers"] = previous["peers"]
    entry["peers_from"] = previous.get("peers_from") or previous.get("command", "an earlier run")


def save(results: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale")
    parser.add_argument("--sizes", default="10k,100k", help="comma-separated: 10k, 100k, 1m or a number of messages")
    parser.add_argument("--workdir", type=Path, default=OUT / "scale")
    parser.add_argument("--out", type=Path, default=OUT / "scale-results.json")
    parser.add_argument("--semantic-budget", type=float, help="stop phase 2 after this many seconds; project the rest")
    parser.add_argument(
        "--phases",
        choices=("all", "index", "measure", "semantic"),
        default="all",
        help="index: indexing figures only; measure: search, CLI and app on the index the last run built; "
        "semantic: phase 2 alone, on an index whose phase 1 is done (run_semantic_again)",
    )
    parser.add_argument("--peers-max", default="100k", help="largest size the peers run at (none: all)")
    parser.add_argument("--skip-app", action="store_true")
    parser.add_argument("--huge-mb", type=int, help="also index one Claude Code session of this many MB")
    parser.add_argument("--render", action="store_true", help="only redraw the tables and plot from --out")
    args = parser.parse_args(argv)
    if args.peers_max == "none":
        args.peers_max = None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from bench.scale_report import render

    results = json.loads(args.out.read_text()) if args.out.is_file() else {"sizes": {}}
    if args.render:
        render(results, OUT)
        return 0
    results["machine"] = machine_info()
    args.workdir.mkdir(parents=True, exist_ok=True)
    for text in [s for s in args.sizes.split(",") if s.strip()]:
        label = text.strip().lower()
        messages = SIZES.get(label) or int(label)
        history = history_for(args.workdir, label, messages)
        previous = results["sizes"].get(label, {})
        entry = run_size(label, history, args.workdir, args, previous)
        keep_peers(entry, previous)
        results["sizes"][label] = entry
        results["sizes"][label]["command"] = " ".join(["python -m bench.scale", *(argv or sys.argv[1:])])
        save(results, args.out)
        render(results, OUT)
    if args.huge_mb:
        label = f"huge{args.huge_mb}"
        history = huge_history(args.workdir, args.huge_mb)
        index_dir = args.workdir / f"index-{label}"
        entry = {"size": label, "history": history.as_dict(), "load_before": load()}
        log(f"{label}: indexing one session of {history.bytes / 1e6:.0f} MB")
        entry["index"] = run_index(index_dir, history, args.semantic_budget)
        entry["index_disk_bytes"] = disk_bytes(index_dir)
        entry["load_after"] = load()
        results.setdefault("huge", {})[label] = entry
        save(results, args.out)
        render(results, OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
