"""A convo-tui indexer in its own process, for tests that kill it or race it.

    python tests/helpers/index_worker.py INDEX_DIR index SOURCE [BATCH_TEXTS [rebuild] [keyword]]
    python tests/helpers/index_worker.py INDEX_DIR hold

`index` loads the model, prints "ready", indexes SOURCE, prints "done". A small
BATCH_TEXTS makes the run publish in many small batches, so a kill lands
between batches, inside one, or between a session's flip and its cleanup.
`hold` opens the index, prints "ready" and keeps it open until killed or until
stdin closes: a deterministic holder for the two-process tests.

With CONVO_TUI_TEST_PART_CHARS=N, sessions longer than N characters are
published in parts. With CONVO_TUI_TEST_PAUSE_AT=N in the environment, `index` stops just before its
N-th write to the store (upsert, delete, payload, vectors, meta, drop, flush),
prints "paused" and waits to be killed: a kill lands at the same point of the
run however loaded the machine is. "done" ends with the number of writes made.
CONVO_TUI_TEST_ARCHIVE_PAUSE_AT=N does the same inside the archive: before the
N-th chunk it compresses, in the middle of a version's transaction.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import convo_tui.core.index.batches  # noqa: E402
import convo_tui.core.index.publish  # noqa: E402
from convo_tui.core.holder.access import open_local  # noqa: E402
from convo_tui.core.settings import Settings  # noqa: E402

WRITES = ("upsert", "delete", "set_payload", "update_vectors", "write_meta", "drop", "flush")


def count_writes(store: Any, pause_at: int | None) -> list[int]:
    """Wrap the store's write methods to count calls (and stop before call `pause_at`)."""
    made = [0]
    for name in WRITES:
        method = getattr(store, name, None)
        if method is None:
            continue

        def wrapped(*args: Any, _method: Any = method, **kwargs: Any) -> Any:
            made[0] += 1
            if made[0] == pause_at:
                print("paused", flush=True)
                threading.Event().wait()  # until SIGKILL
            return _method(*args, **kwargs)

        setattr(store, name, wrapped)
    return made


def pause_in_archive(pause_at: int) -> None:
    """Stop before the archive compresses its `pause_at`-th chunk (inside a write transaction)."""
    import convo_tui.core.archive.store as store

    made = [0]
    compress = store.compress

    def wrapped(data: bytes) -> bytes:
        made[0] += 1
        if made[0] == pause_at:
            print("paused", flush=True)
            threading.Event().wait()  # until SIGKILL
        return compress(data)

    store.compress = wrapped


def main(argv: list[str]) -> int:
    index_dir, action = Path(argv[0]), argv[1]
    # open_local: this process serves the index to the others while it holds it, as `index` does.
    rebuild, keyword = "rebuild" in argv[4:], "keyword" in argv[4:]  # keyword: phase 1 only
    settings = Settings.load()  # the test's config file (CONVO_TUI_CONFIG), if it wrote one
    settings.index_dir = index_dir
    with open_local(settings, allow_mismatch=rebuild) as library:
        if action == "hold":
            print("ready", flush=True)
            sys.stdin.read()
            return 0
        if len(argv) > 3:
            convo_tui.core.index.batches.BATCH_TEXTS = int(argv[3])
        if os.environ.get("CONVO_TUI_TEST_PART_CHARS"):  # long sessions cut into many parts
            convo_tui.core.index.publish.PART_CHARS = int(os.environ["CONVO_TUI_TEST_PART_CHARS"])
        library.load_model()
        pause_at = os.environ.get("CONVO_TUI_TEST_PAUSE_AT")
        writes = count_writes(library.store, int(pause_at) if pause_at else None)
        archive_pause = os.environ.get("CONVO_TUI_TEST_ARCHIVE_PAUSE_AT")
        if archive_pause:
            pause_in_archive(int(archive_pause))
        print("ready", flush=True)
        report = library.index([Path(argv[2])], rebuild=rebuild, semantic=not keyword)
        print(f"done {report.added} {report.updated} {report.unchanged} {writes[0]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
