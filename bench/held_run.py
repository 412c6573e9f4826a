"""One new transcript into an index a process already holds, as the app's or
`serve`'s watch hands it over (issue 25: what a big history costs each change).

    python -m bench.held_run INDEX_DIR FILE WORD [--profile]

Opens INDEX_DIR as the app does (the model loaded), indexes FILE alone with
phase 2 stopped at its first progress (its list of waiting texts is part of
the run; its embedding is not), then searches WORD by keyword. Prints one JSON
line: seconds to open, to index, to search, and whether the file's session is
among the first hits. The run writes to INDEX_DIR: use a copy of a big index
(`cp -a`), and a FILE it has not seen (`python -m bench.scale_corpus DIR
--messages 40 --seed 777` writes a few). With --profile, the index call's
cProfile follows on stderr.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.held_run")
    parser.add_argument("index_dir", type=Path)
    parser.add_argument("file", type=Path)
    parser.add_argument("word")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)

    from convo_tui.core.holder.access import open_local
    from convo_tui.core.settings import Settings

    started = time.perf_counter()
    library = open_local(Settings(index_dir=args.index_dir, discover_defaults=False))
    library.load_model()
    opened = time.perf_counter() - started
    phase_two = {"reached": False}

    def progress(event) -> None:  # type: ignore[no-untyped-def]
        if event.phase == "semantic":
            phase_two["reached"] = True

    profile = cProfile.Profile() if args.profile else None
    started = time.perf_counter()
    if profile is not None:
        profile.enable()
    report = library.index([args.file], progress=progress, cancel=lambda: phase_two["reached"])
    if profile is not None:
        profile.disable()
    indexed = time.perf_counter() - started
    started = time.perf_counter()
    hits = library.search(args.word, mode="keyword")
    searched = time.perf_counter() - started
    sessions = [hit.session_id for hit in hits]
    library.close()
    print(
        json.dumps(
            {
                "open_seconds": round(opened, 2),
                "index_seconds": round(indexed, 2),
                "search_seconds": round(searched, 3),
                "added": report.added,
                "sessions": report.sessions,
                "found": any(sid in args.file.name for sid in sessions),  # transcripts are named after their session
            }
        )
    )
    if profile is not None:
        pstats.Stats(profile, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
