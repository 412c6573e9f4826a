"""Phase 2's last optimize under Edge vacuum thresholds: peak RSS, time, size on disk.

    python -m bench.measure_vacuum HISTORY WORKDIR --cache VECTORS_SQLITE [--thresholds 0.2,0.5]

For each threshold: phase 1 of HISTORY into a new index under WORKDIR (the
archive off), then, in a second process, phase 2 with the vector cache of an
earlier full run of the same history copied in (`bench.scale` leaves one in
its workdir, e.g. `index-huge200/vectors.sqlite`), so phase 2 writes every
vector to the store without the model and ends with the run's last optimize,
where Edge vacuums the segments phase 2 left with deleted copies. How
BENCHMARKS.md ("Huge transcripts and scale") chose `deleted_threshold=0.5`.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import qdrant_edge as qe


def _status_mb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return 0


def _size_mb(folder: Path) -> int:
    """On disk, as `du` counts it: Edge's files are sparse, their sizes overstate it."""
    return sum(f.stat().st_blocks * 512 for f in folder.rglob("*") if f.is_file()) // (1024 * 1024)


def run_phase(history: Path, index_dir: Path, threshold: float, phase: str) -> None:
    """One phase in this process, under `threshold`; prints one line of figures."""
    import convo_tui.core.store.edge as edge
    import convo_tui.core.store.edge_schema as schema

    schema.OPTIMIZERS = qe.EdgeOptimizersConfig(
        default_segment_number=schema.OPTIMIZERS.default_segment_number,
        max_segment_size=schema.OPTIMIZERS.max_segment_size,
        deleted_threshold=threshold,
    )
    optimizing: list[str] = []
    optimize = edge.EdgeStore.optimize

    def timed(self: edge.EdgeStore) -> None:
        before, started = _status_mb("VmHWM"), time.perf_counter()
        optimize(self)
        optimizing.append(f"{time.perf_counter() - started:.1f} s, peak {before} -> {_status_mb('VmHWM')} MB")

    edge.EdgeStore.optimize = timed  # type: ignore[method-assign]
    from convo_tui.core.holder.access import open_local
    from convo_tui.core.settings import Settings

    settings = Settings.load()
    settings.index_dir = index_dir
    started = time.perf_counter()
    with open_local(settings) as library:
        report = library.index([history], semantic=phase == "phase2")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(
        f"deleted_threshold={threshold} {phase}: {time.perf_counter() - started:.1f} s, {report.vectors_added} vectors "
        f"written, peak RSS {peak} MB; optimize calls: {'; '.join(optimizing) or 'none'}; "
        f"shard {_size_mb(index_dir / 'shard')} MB; load {os.getloadavg()[0]:.2f}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measure_vacuum")
    parser.add_argument("history", type=Path)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--cache", type=Path, required=True, help="vectors.sqlite of a full run of HISTORY")
    parser.add_argument("--thresholds", default="0.2,0.5")
    parser.add_argument("--phase", choices=("phase1", "phase2"), help=argparse.SUPPRESS)  # a child's part
    parser.add_argument("--threshold", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        run_phase(args.history, args.workdir, args.threshold, args.phase)
        return 0
    if not args.cache.is_file():
        parser.error(f"{args.cache}: no vector cache there (run bench.scale on the history first)")
    config = Path(tempfile.mkdtemp()) / "config.toml"
    config.write_text("discover_defaults = false\n[archive]\nenabled = false\n", encoding="utf-8")
    env = {**os.environ, "CONVO_TUI_CONFIG": str(config)}
    for threshold in (float(t) for t in args.thresholds.split(",")):
        index_dir = args.workdir / f"vacuum-{threshold}"
        shutil.rmtree(index_dir, ignore_errors=True)
        for phase in ("phase1", "phase2"):
            if phase == "phase2":
                shutil.copy(args.cache, index_dir / "vectors.sqlite")
            child = [sys.executable, "-m", "bench.measure_vacuum", str(args.history), str(index_dir)]
            child += ["--cache", str(args.cache), "--phase", phase, "--threshold", str(threshold)]
            subprocess.run(child, env=env, check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
