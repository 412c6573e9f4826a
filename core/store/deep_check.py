"""The deep check of an index's files (files.check_files, deep) in a process of its own.

The deep pass is thousands of small stats and reads (a block at each end of
every file, the trackers replayed). In a thread of a process that also draws
the app or answers clients, each of those reads hands the GIL to the other
threads and takes it back, and they waited for it: the app stood still for
the whole check (the sessions browser at 100k messages opened in 1.0 s while
the check ran, 0.4 s after it). A child process does the reads on the other
core; the caller's thread waits for it without holding the GIL.

An index of a few segments is checked in this process: starting Python costs
more than its check. A child that cannot be started, or says nothing usable,
is replaced by the check here, so the answer never depends on it.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from convo_tui.core.store.files import DENSE_SHARD, SHARD, check_files

# Segments (both shards) from which the check runs in a child process: the
# demo index has 4, 10k messages 5, 100k messages 17 (a 0.5-1.1 s check).
APART_SEGMENTS = 10


def _segments(index_dir: Path) -> int:
    count = 0
    for shard in (SHARD, DENSE_SHARD):
        with contextlib.suppress(OSError):
            count += sum(1 for _ in (index_dir / shard / "segments").iterdir())
    return count


def deep_check(index_dir: Path, meta: dict[str, Any]) -> list[str]:
    """`check_files(index_dir, meta, deep=True)`, in a child process for a large index."""
    if _segments(index_dir) < APART_SEGMENTS or not sys.executable:
        return check_files(index_dir, meta, deep=True)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-m", __name__, str(index_dir)],
            input=json.dumps(meta),
            capture_output=True,
            text=True,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return check_files(index_dir, meta, deep=True)
    if done.returncode == 0:
        try:
            problems = json.loads(done.stdout)
        except ValueError:
            problems = None
        if isinstance(problems, list) and all(isinstance(line, str) for line in problems):
            return problems
    return check_files(index_dir, meta, deep=True)


def main(argv: list[str]) -> int:
    """The child: the index folder as its argument, the meta as JSON on stdin, the problems as JSON out."""
    meta = json.loads(sys.stdin.read() or "{}")
    print(json.dumps(check_files(Path(argv[0]), meta if isinstance(meta, dict) else {}, deep=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
