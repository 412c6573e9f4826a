"""Searches while the same process indexes by meaning, against the same searches idle.

    python -m bench.measure_during INDEX_DIR SOURCE [--nice 0,10] [--rounds 2]

The app, `serve` and an index run that serves other commands search in the
process whose phase 2 keeps every core busy for hours on a big history. Each
round: the bench's queries in keyword and hybrid mode with nothing else
running in the process, then with phase 2 running (the index resumed on
SOURCE, after its first batches), once per embedding-thread priority in
`--nice` (core/embed/batching.py EMBED_NICE; 0 is what it was before). The
index must have texts waiting for a vector (a run stopped in phase 2), and
each round embeds more of them: the rounds alternate, so each priority meets
the same index about as often.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

from bench.stats import percentile

MODES = ("keyword", "hybrid")


def _times(library, queries: list[str], mode: str, repeat: int) -> list[float]:
    out = []
    for query in queries * repeat:
        started = time.perf_counter()
        library.search(query, limit=10, mode=mode)
        out.append((time.perf_counter() - started) * 1000)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measure_during", description=__doc__.splitlines()[0])
    parser.add_argument("index_dir", type=Path)
    parser.add_argument("source", type=Path)
    parser.add_argument("--nice", default="0,10", help="embedding-thread priorities to compare (default 0,10)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="times each query is searched per measure")
    args = parser.parse_args(argv)

    from convo_tui.core.embed import batching
    from convo_tui.core.holder.access import open_local
    from convo_tui.core.settings import Settings

    from bench.scale import QUERIES

    queries = [q for q in QUERIES if q.isascii()][:10]
    library = open_local(Settings(index_dir=args.index_dir, discover_defaults=False, sources=[args.source]))
    library.load_model()
    rows: dict[str, dict[str, list[float]]] = {}

    def measure(label: str) -> None:
        for mode in MODES:
            rows.setdefault(label, {}).setdefault(mode, []).extend(_times(library, queries, mode, args.repeat))

    for _ in range(args.rounds):
        measure("nothing else running")
        for nice in (int(n) for n in args.nice.split(",")):
            batching.EMBED_NICE = nice
            stop, embedded = threading.Event(), threading.Event()

            def progress(p, embedded=embedded) -> None:  # type: ignore[no-untyped-def]
                if p.phase == "semantic" and p.done:
                    embedded.set()

            thread = threading.Thread(target=lambda stop=stop: library.index(progress=progress, cancel=stop.is_set))
            thread.start()
            if not embedded.wait(900):
                raise SystemExit("phase 2 never started: the index has no text waiting for a vector")
            measure(f"phase 2 running, its threads at nice +{nice}")
            stop.set()
            thread.join()
    model = library.model_info().model
    library.close()
    load = os.getloadavg()[0]
    print(f"model {model}; {len(queries)} queries x {args.repeat} per measure, {args.rounds} rounds; load average {load:.1f}")
    print("| search (ms) | " + " | ".join(f"{m} p50 / p95" for m in MODES) + " |")
    print("|---|" + "---|" * len(MODES))
    for label, modes in rows.items():
        cells = [f"{percentile(modes[m], 50):.0f} / {percentile(modes[m], 95):.0f}" for m in MODES]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
