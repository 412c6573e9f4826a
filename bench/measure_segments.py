"""Phase 1 of a history under other Edge optimizer settings: time, peak RSS, segments.

    python -m bench.measure_segments HISTORY INDEX_DIR [--segments N] [--max-kb K] [--defaults]

Indexes HISTORY (phase 1 only, the archive off) into a new INDEX_DIR with the
project's indexer and the real bundled model, with `EdgeOptimizersConfig`
replaced by the one given (`--defaults`: Edge's own, as before issue 25), then
runs 15 keyword searches. How BENCHMARKS.md ("Huge transcripts and scale")
chose sixteen segments.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import qdrant_edge as qe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measure_segments")
    parser.add_argument("history", type=Path)
    parser.add_argument("index_dir", type=Path)
    parser.add_argument("--segments", type=int, default=16)
    parser.add_argument("--max-kb", type=int, default=32 * 1024)
    parser.add_argument("--defaults", action="store_true", help="Edge's own optimizer settings")
    args = parser.parse_args(argv)
    if args.index_dir.exists():
        parser.error(f"{args.index_dir} exists: give a new folder")
    config = Path(tempfile.mkdtemp()) / "config.toml"
    config.write_text("discover_defaults = false\n[archive]\nenabled = false\n", encoding="utf-8")
    os.environ["CONVO_TUI_CONFIG"] = str(config)

    import convo_tui.core.store.edge_schema as schema

    schema.OPTIMIZERS = (
        None if args.defaults else qe.EdgeOptimizersConfig(default_segment_number=args.segments, max_segment_size=args.max_kb)
    )
    # The main shard's own settings (its appendable segment built at every optimize, edge_schema.py).
    schema.MAIN_OPTIMIZERS = (
        qe.EdgeOptimizersConfig(indexing_threshold=1)
        if args.defaults
        else qe.EdgeOptimizersConfig(default_segment_number=args.segments, max_segment_size=args.max_kb, indexing_threshold=1)
    )
    from convo_tui.core.holder.access import open_local
    from convo_tui.core.settings import Settings

    settings = Settings.load()
    settings.index_dir = args.index_dir
    started = time.perf_counter()
    with open_local(settings) as library:
        library.load_model()
        report = library.index([args.history], semantic=False)
        phase1 = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        started = time.perf_counter()
        for query in ["deploy rollback", "database migration failed", "fix flaky test"] * 5:
            library.search(query, mode="keyword")
        searches = time.perf_counter() - started
    segments = len(list((args.index_dir / "shard" / "segments").iterdir()))
    label = "defaults" if args.defaults else f"segments={args.segments} max_kb={args.max_kb}"
    print(
        f"{label}: phase 1 {phase1:.1f} s, {report.sessions} sessions, {report.points} points, "
        f"peak RSS {peak} MB, {segments} segments; 15 keyword searches {searches:.2f} s; "
        f"main shard load (a new process, page cache warm, median of 5) {shard_load(args.index_dir / 'shard'):.3f} s; "
        f"load {os.getloadavg()[0]:.2f}"
    )
    return 0


def shard_load(shard: Path, runs: int = 5) -> float:
    """What a cold command's open of the main shard costs: Edge's load in a new process
    (which ends without closing it: Edge's close drops its files from the page cache)."""
    code = (
        "import os, sys, time, qdrant_edge as qe; t = time.perf_counter(); s = qe.EdgeShard.load(sys.argv[1]);"
        " print(time.perf_counter() - t); sys.stdout.flush(); os._exit(0)"
    )
    times = [
        float(subprocess.run([sys.executable, "-c", code, str(shard)], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    ]
    return statistics.median(times)


if __name__ == "__main__":
    raise SystemExit(main())
