"""A convo-tui indexer in its own process, for tests that kill it or race it.

    python tests/helpers/index_worker.py INDEX_DIR index SOURCE [BATCH_TEXTS [rebuild]]
    python tests/helpers/index_worker.py INDEX_DIR hold

`index` loads the model, prints "ready", indexes SOURCE, prints "done". A small
BATCH_TEXTS makes the run publish in many small batches, so a kill lands
between batches, inside one, or between a session's flip and its cleanup.
`hold` opens the index, prints "ready" and keeps it open until killed or until
stdin closes: a deterministic holder for the two-process tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import convo_tui.core.index  # noqa: E402
from convo_tui.core.library import Library  # noqa: E402
from convo_tui.core.settings import Settings  # noqa: E402


def main(argv: list[str]) -> int:
    index_dir, action = Path(argv[0]), argv[1]
    with Library.open(Settings(index_dir=index_dir), allow_mismatch=argv[4:5] == ["rebuild"]) as library:
        if action == "hold":
            print("ready", flush=True)
            sys.stdin.read()
            return 0
        if len(argv) > 3:
            convo_tui.core.index.BATCH_TEXTS = int(argv[3])
        library.load_model()
        print("ready", flush=True)
        report = library.index([Path(argv[2])], rebuild=argv[4:5] == ["rebuild"])
        print(f"done {report.added} {report.updated} {report.unchanged}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
