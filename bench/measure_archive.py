"""The archive's cost: its size against the transcripts it keeps, its growth when
sessions grow, and the time it adds to indexing (issue 28).

    nice -n 10 python -m bench.measure_archive [--sessions 300] [--rounds 5] [--out bench/results-archive.json]

On the generated Claude Code history (bench/history.py), with the real bundled
model, in one process:
- phase 1 (keyword-searchable) of a first index with the archive on and off
  (the alternative a user would pick: `[archive] enabled = false`);
- the archive's size on disk against the history's bytes (target: at most 25%);
- `--rounds` times: one exchange appended to 3 sessions, then an index run with
  the archive on and off; the archive's growth against the bytes appended
  (target: at most 2x);
- every source deleted, `index --rebuild` from the archive alone: its time and
  whether every session came back.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from bench.history import append_exchange, as_dict, write_history
from bench.machine import machine_info


def folder_bytes(folder: Path) -> tuple[int, int]:
    """(apparent size, allocated size) of the files under a folder."""
    apparent = allocated = 0
    for path in folder.rglob("*"):
        if path.is_file():
            stat = path.stat()
            apparent += stat.st_size
            allocated += stat.st_blocks * 512
    return apparent, allocated


def open_library(index_dir: Path, projects: Path, archive: bool):
    from convo_tui.core.library import Library
    from convo_tui.core.settings import ArchiveSettings, Settings

    settings = Settings(
        index_dir=index_dir, sources=[projects], discover_defaults=False, archive=ArchiveSettings(enabled=archive)
    )
    library = Library.open(settings, allow_mismatch=True)
    library.load_model()
    return library


def timed_index(library, **kwargs) -> tuple[float, object]:
    started = time.perf_counter()
    report = library.index(semantic=False, **kwargs)
    return time.perf_counter() - started, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measure_archive", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5, help="append rounds (3 sessions each)")
    parser.add_argument("--workdir", type=Path, help="keep the history and indexes here (default: a temp folder, removed)")
    parser.add_argument("--out", type=Path, default=Path("bench/results-archive.json"))
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="convo-archive-bench-"))
    results: dict[str, object] = {"machine": machine_info(), "load_before": os.getloadavg()}
    try:
        history = write_history(work / "history", args.sessions)
        results["history"] = as_dict(history) | {"bytes": history.bytes, "files": len(history.files)}
        on, off = open_library(work / "on", history.root, True), open_library(work / "off", history.root, False)
        try:
            first_off, _ = timed_index(off)
            first_on, report = timed_index(on)
            assert report.sessions == args.sessions, report.skipped
            archive = work / "on" / "archive"
            apparent, allocated = folder_bytes(archive)
            results["first_index"] = {
                "phase1_seconds_archive_on": round(first_on, 2),
                "phase1_seconds_archive_off": round(first_off, 2),
                "ratio": round(first_on / first_off, 3),
            }
            results["size"] = {
                "archive_bytes": apparent,
                "archive_allocated_bytes": allocated,
                "source_bytes": history.bytes,
                "ratio": round(apparent / history.bytes, 4),
                "target": "<= 0.25",
                "met": apparent / history.bytes <= 0.25,
            }
            rounds = []
            targets = sorted(history.files)[:: max(1, len(history.files) // 3)][:3]
            for number in range(args.rounds):
                sizes = [p.stat().st_size for p in targets]
                for path in targets:
                    append_exchange(path, 1000 + number)
                appended = sum(p.stat().st_size for p in targets) - sum(sizes)
                before = folder_bytes(archive)[0]
                seconds_off, _ = timed_index(off)
                seconds_on, report = timed_index(on)
                assert report.updated == 3, report
                growth = folder_bytes(archive)[0] - before
                rounds.append(
                    {
                        "appended_bytes": appended,
                        "archive_growth_bytes": growth,
                        "ratio": round(growth / appended, 3),
                        "seconds_archive_on": round(seconds_on, 3),
                        "seconds_archive_off": round(seconds_off, 3),
                    }
                )
            appended = sum(r["appended_bytes"] for r in rounds)
            grown = sum(r["archive_growth_bytes"] for r in rounds)
            results["append"] = {
                "rounds": rounds,
                "appended_bytes": appended,
                "archive_growth_bytes": grown,
                "ratio": round(grown / appended, 3),
                "worst_round_ratio": max(r["ratio"] for r in rounds),
                "target": "<= 2.0",
                "met": grown / appended <= 2.0,
            }
            shutil.rmtree(history.root)  # every source is gone
            rebuild, report = timed_index(on, rebuild=True)
            results["rebuild_from_archive"] = {
                "seconds": round(rebuild, 2),
                "sessions": report.sessions,
                "all_back": report.sessions == args.sessions,
                "skipped": len(report.skipped),
            }
        finally:
            on.close()
            off.close()
    finally:
        results["load_after"] = os.getloadavg()
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
