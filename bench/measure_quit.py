"""How long quitting takes while the app indexes: from `exit()` to `run` returning.

    nice -n 10 python -m bench.measure_quit [--copies 10] [--phase any|semantic] [--runs 2]

The demo corpus is copied `copies` times into a temporary folder so that
indexing lasts; the app (headless, Pilot) is told to exit as soon as indexing
runs (`any`), or once the status shows the semantic phase (`semantic`, only
with a two-phase indexer). Reported: the time until `run_test` returned, and
within it the wait for the index threads (the lock is released only after).
Measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import threading
import time
from pathlib import Path

from convo_tui.core.settings import Settings


def make_corpus(root: Path, copies: int) -> Path:
    from convo_tui.tui.demo import DEMO_DIR

    corpus = root / "corpus"
    for number in range(copies):
        shutil.copytree(DEMO_DIR, corpus / f"copy{number}")
    return corpus


async def quit_once(corpus: Path, index_dir: Path, phase: str) -> dict[str, float]:
    from convo_tui.tui.app import create_app

    app = create_app(Settings(index_dir=index_dir, sources=[corpus], discover_defaults=False))
    marks: dict[str, float] = {}
    waiting = app.background.wait_idle

    def timed_wait(timeout: float | None = None) -> bool:
        marks["wait_start"] = time.monotonic()
        idle = waiting(timeout)
        marks["wait_end"] = time.monotonic()
        return idle

    app.background.wait_idle = timed_wait  # type: ignore[method-assign]

    def ready() -> bool:
        if not app.indexing:
            return False
        if phase == "any":
            return True
        label = str(app.search_screen.query_one("#index-label").render())
        return "semantic" in label

    async with app.run_test() as pilot:
        while not ready():
            await pilot.pause(0.02)
        marks["exit"] = time.monotonic()
        app.exit()
    marks["returned"] = time.monotonic()
    # Idle executor threads ("asyncio_N") end with the event loop; anything else still runs.
    left = [t.name for t in threading.enumerate() if t is not threading.main_thread() and not t.name.startswith("asyncio_")]
    start = marks["exit"]
    return {
        "total_s": round(marks["returned"] - start, 2),
        "waiting_for_index_threads_s": round(marks.get("wait_end", start) - marks.get("wait_start", start), 2),
        "threads_left": left,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--phase", choices=["any", "semantic"], default="any")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="convo-quit-") as folder:
        root = Path(folder)
        corpus = make_corpus(root, args.copies)
        for run in range(args.runs):
            print(asyncio.run(quit_once(corpus, root / f"index{run}", args.phase)))


if __name__ == "__main__":
    main()
