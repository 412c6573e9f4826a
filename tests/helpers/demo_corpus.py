"""The demo corpus copied into a temp folder with fixed mtimes (conftest's `demo_index` indexes it once per run).

Cursor transcripts carry no timestamps (their date is the file's mtime), so
the copies get a fixed mtime and the clock zone is UTC: the app then shows the
same dates on every machine and in every run.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from convo_tui.core.settings import Settings
from convo_tui.tui.demo import DEMO_DIR

FIXED_MTIME = 1767225600  # 2026-01-01 00:00 UTC


def copy_demo(target: Path) -> Path:
    corpus = target / "corpus"
    shutil.copytree(DEMO_DIR, corpus)
    for path in corpus.rglob("*"):
        os.utime(path, (FIXED_MTIME, FIXED_MTIME))
    return corpus


def demo_library(tmp_path_factory: pytest.TempPathFactory):
    """(settings, open Library with the demo corpus indexed): a fresh index of one's own.

    Tests that only read should use the session fixture `demo_index` (conftest),
    which builds the index once per run."""
    from convo_tui.core.library import Library

    root = tmp_path_factory.mktemp("tui-corpus")
    corpus = copy_demo(root)
    settings = Settings(index_dir=root / "index", sources=[corpus], discover_defaults=False)
    library = Library.open(settings)
    library.load_model()
    report = library.index()
    assert report.sessions == 15, report.skipped
    return settings, library


class utc_clock:
    """TZ=UTC for a module (dates in the index and the app are local time)."""

    def __enter__(self):
        self.patch = pytest.MonkeyPatch()
        self.patch.setenv("TZ", "UTC")
        time.tzset()
        return self

    def __exit__(self, *exc):
        self.patch.undo()
        time.tzset()
