"""The deep check of an index's files (files.check_files, deep) in a process of its own.

The deep pass is thousands of small stats and reads (a block at each end of
every file, the trackers replayed). In a thread of a process that also draws
the app or answers clients, each of those reads hands the GIL to the other
threads and takes it back, and they waited for it: the app stood still for
the whole check (the sessions browser at 100k messages opened in 1.0 s while
the check ran, 0.4 s after it). A child process does the reads on the other
core; the caller's thread waits for it without holding the GIL.

`start` returns while the child works: `sessions` and `stats` read their rows
meanwhile (health.FilesCheck.overlapping), where they waited for the check first
(at a million messages 0.8-1.4 s before 3 s of reading).

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


class PendingCheck:
    """A deep check under way: in a child process for a large index (its caller goes
    on with its own reading meanwhile), or, for a small one, run here when asked."""

    def __init__(self, index_dir: Path, meta: dict[str, Any], child: subprocess.Popen[str] | None) -> None:
        self.index_dir, self.meta, self._child = index_dir, meta, child

    def result(self) -> list[str]:
        """The problems found (none: an empty list). A child that fails or says
        nothing usable is replaced by the check here."""
        child, self._child = self._child, None
        if child is None:
            return check_files(self.index_dir, self.meta, deep=True)
        try:
            assert child.stdout is not None
            with child.stdout:  # the one pipe left open (stdin was written and closed at the start)
                out = child.stdout.read()
            child.wait()
        except (OSError, subprocess.SubprocessError):
            child.kill()
            child.wait()
            return check_files(self.index_dir, self.meta, deep=True)
        if child.returncode == 0:
            try:
                problems = json.loads(out)
            except ValueError:
                problems = None
            if isinstance(problems, list) and all(isinstance(line, str) for line in problems):
                return problems
        return check_files(self.index_dir, self.meta, deep=True)


def start(index_dir: Path, meta: dict[str, Any]) -> PendingCheck:
    """Begin `check_files(index_dir, meta, deep=True)`: in a child process for a large index."""
    if _segments(index_dir) < APART_SEGMENTS or not sys.executable:
        return PendingCheck(index_dir, meta, None)
    try:
        child = subprocess.Popen(
            [sys.executable, "-I", "-m", __name__, str(index_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except (OSError, subprocess.SubprocessError):
        return PendingCheck(index_dir, meta, None)
    try:
        assert child.stdin is not None
        child.stdin.write(json.dumps(meta))
        child.stdin.close()
    except OSError:  # the child is gone already (a broken interpreter): its answer is not used
        child.kill()
        child.wait()
        return PendingCheck(index_dir, meta, None)
    return PendingCheck(index_dir, meta, child)


def deep_check(index_dir: Path, meta: dict[str, Any]) -> list[str]:
    """`check_files(index_dir, meta, deep=True)`, in a child process for a large index."""
    return start(index_dir, meta).result()


def main(argv: list[str]) -> int:
    """The child: the index folder as its argument, the meta as JSON on stdin, the problems as JSON out."""
    meta = json.loads(sys.stdin.read() or "{}")
    print(json.dumps(check_files(Path(argv[0]), meta if isinstance(meta, dict) else {}, deep=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
