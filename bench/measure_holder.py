"""Wall time of one CLI search: served by a running `serve`, and cold (no holder).

Run as `python -m bench.measure_holder [INDEX_DIR] [--rounds N]`. Without an
index folder it indexes the relevance fixtures into a temporary one. Each
figure is the median of N fresh `convo-tui` processes, next to the median of
`convo-tui --help` (Python start-up plus argument parsing: the floor any CLI
call pays). Targets (issue 13): served <= 3x --help, cold keyword <= 6x.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "convo_tui.cli.main"]
QUERY = "how do I roll back a database migration"


def wall(argv: list[str], rounds: int) -> float:
    """Median seconds of `rounds` runs of a fresh process."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[2:])}: {done.stderr.strip()}")
    return statistics.median(times)


def index_fixtures(folder: Path) -> Path:
    src = folder / "src"
    shutil.copytree(ROOT / "tests" / "fixtures" / "relevance", src)
    index_dir = folder / "index"
    subprocess.run([*CLI, "index", str(src), "--index-dir", str(index_dir)], cwd=ROOT, check=True, capture_output=True)
    return index_dir


def start_serve(index_dir: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [*CLI, "serve", "--no-watch", "--index-dir", str(index_dir)], cwd=ROOT, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "ready" in line:
            return proc
    raise RuntimeError("serve did not start")


def measure(index_dir: Path, rounds: int) -> dict[str, float]:
    index = ["--index-dir", str(index_dir)]
    figures = {"help": wall([*CLI, "--help"], rounds)}
    figures["cold keyword search"] = wall([*CLI, "search", QUERY, "--mode", "keyword", *index], rounds)
    figures["cold hybrid search"] = wall([*CLI, "search", QUERY, *index], rounds)
    serve = start_serve(index_dir)
    try:
        wall([*CLI, "search", QUERY, *index], 1)  # the holder's first hybrid query loads nothing more after this
        figures["served hybrid search"] = wall([*CLI, "search", QUERY, *index], rounds)
        figures["served keyword search"] = wall([*CLI, "search", QUERY, "--mode", "keyword", *index], rounds)
    finally:
        serve.send_signal(signal.SIGTERM)  # SIGINT is ignored when the bench was started in the background
        serve.wait(timeout=60)
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measure_holder")
    parser.add_argument("index_dir", nargs="?", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="convo-holder-bench-") as tmp:
        index_dir = args.index_dir or index_fixtures(Path(tmp))
        figures = measure(index_dir, args.rounds)
    base = figures["help"]
    for name, seconds in figures.items():
        print(f"{name:<24} {seconds * 1000:8.0f} ms  {seconds / base:5.2f}x --help")
    print(json.dumps({k: round(v, 4) for k, v in figures.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
