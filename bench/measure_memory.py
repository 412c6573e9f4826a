"""Peak memory while searching an index, measured in a fresh process.

Run as `python -m bench.measure_memory INDEX_DIR ROUNDS [--keep-pages]`: opens
the index the way the CLI does (Library, model loaded), runs the benchmark
queries, and prints one JSON line with the peak resident set size (VmHWM) at
each step, then what is resident at the end split into anonymous memory (heap)
and file pages (mapped index and library files, counted once touched), and the
search latency (p50, p95 in ms, the first round left out as warm-up).
`--keep-pages` measures the alternative: the index pages Edge's load reads
whole are not released (core/store/resident.py).
A 100k-point index to measure: `python -m bench.build_memory_index DIR 68000`.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path


def _status_mb(field: str) -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    peak = _status_mb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def rss_mb() -> float:
    return _status_mb("VmRSS") or 0.0


def main(argv: list[str]) -> int:
    index_dir, rounds = Path(argv[0]), int(argv[1])
    from convo_tui.core.library import Library

    if "--keep-pages" in argv[2:]:
        from convo_tui.core.store import edge

        edge.release_index_pages = lambda folder: 0  # type: ignore[assignment]

    from bench import vocab
    from bench.measure_app import settings_for
    from bench.stats import percentile

    steps = {"python + imports": peak_rss_mb()}
    library = Library.open(settings_for(index_dir), read_only=True)
    steps["index open"] = peak_rss_mb()
    library.load_model()
    steps["model loaded"] = peak_rss_mb()
    seconds: list[float] = []
    for round_ in range(rounds):
        for query, _topic in vocab.QUERIES:
            started = time.perf_counter()
            library.search(query, limit=10)
            if round_ or rounds == 1:
                seconds.append(time.perf_counter() - started)
    steps["after searches"] = peak_rss_mb()
    steps["resident now"] = rss_mb()
    steps["resident anon"] = _status_mb("RssAnon") or 0.0
    steps["resident file"] = _status_mb("RssFile") or 0.0
    steps["search p50 ms"] = round(percentile(seconds, 50) * 1000, 1)
    steps["search p95 ms"] = round(percentile(seconds, 95) * 1000, 1)
    print(json.dumps(steps))
    return 0


def measure(index_dir: Path, rounds: int = 2, keep_pages: bool = False) -> dict[str, float]:
    """Run the probe in a subprocess; its peak RSS per step, in MB."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.measure_memory", str(index_dir), str(rounds), *(["--keep-pages"] if keep_pages else [])],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"memory probe failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
