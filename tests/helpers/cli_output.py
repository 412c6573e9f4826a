"""Reading what a command wrote to stderr: the one-line problems apart from `index`'s progress.

`index` tells its progress on stderr in plain lines when stderr is not a
terminal (cli/index_progress.py); a problem is still one line of its own, the last.
"""

from __future__ import annotations

import re

PROGRESS = re.compile(
    r"^convo-tui: (loading the embedding model|keyword: |semantic: |switching model: |building the search graph"
    r"|handed to pid \d+ |waiting for |.* stopped; the run goes on here)"
)


def problems(err: str) -> list[str]:
    """The lines of `err` that are not progress."""
    return [line for line in err.splitlines() if line.strip() and not PROGRESS.match(line)]
