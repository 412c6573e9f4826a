"""The app itself, `convo-tui`, in a real terminal as a person runs it (issue 23):
a query typed while the first index run goes shows its results once they are
published, a card opens, and quitting is clean also while the app serves
another process's `convo-tui index` (it hung 21 s, then aborted with
`terminate called without an active exception`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from convo_tui.core.holder import protocol
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.e2e.terminal import convo_tui
from tests.helpers.demo_corpus import copy_demo

FOOTER = re.compile(r"\^q\s+Quit")


def _config(corpus: Path) -> None:
    """The app reads the demo corpus only, with the bundled model."""
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text(
        f'model = "{DEFAULT_MODEL}"\ndiscover_defaults = false\nsources = ["{corpus}"]\n', encoding="utf-8"
    )


def _intact(index_dir: Path) -> None:
    with Library.open(Settings(index_dir=index_dir)) as library:  # the lock is free again
        assert len(library.sessions()) == 15
        status = library.semantic_status()
        assert status.ready == status.total > 0


def test_a_query_typed_while_the_first_index_runs_shows_its_results_and_ctrl_q_quits(terminal, tmp_path: Path):
    corpus, index_dir = copy_demo(tmp_path), tmp_path / "index"
    _config(corpus)
    app = terminal([*convo_tui(), "--index-dir", str(index_dir)], cols=80, rows=24)
    app.wait_for(FOOTER)
    app.type("qdrant collection")  # typed at once: nothing is published yet
    app.wait_for("How do we set up the Qdrant collection")  # the results followed the index
    app.press("down", "enter")  # the first card opens in place
    app.wait_for(re.compile(r"Qdrant", re.I))
    app.press("ctrl+q")
    assert app.wait_exit() == 0, app.text()
    assert "Traceback" not in app.raw and "terminate called" not in app.raw
    assert not protocol.socket_path(index_dir).exists()


def test_quitting_the_app_while_it_serves_an_index_run_hands_the_run_back(terminal, tmp_path: Path):
    corpus, index_dir = copy_demo(tmp_path), tmp_path / "index"
    _config(corpus)
    with Library.open(Settings(index_dir=index_dir, model=DEFAULT_MODEL)) as library:
        assert library.index([corpus], semantic=False).sessions == 15  # phase 2 is left to do
    app = terminal([*convo_tui(), "--index-dir", str(index_dir)], cols=120, rows=40)
    app.wait_for(FOOTER)
    client = terminal([*convo_tui(), "index", "--index-dir", str(index_dir)], cols=80, rows=24)
    client.wait_for(re.compile(r"handed to pid \d+ \(convo-tui app\)|waiting for pid \d+ \(convo-tui app\)"), everywhere=True)
    app.press("ctrl+q")
    assert app.wait_exit(timeout=30) == 0, app.text()
    assert "Traceback" not in app.raw and "terminate called" not in app.raw
    assert client.wait_exit() == 0, client.scrollback()  # it took the index over and finished
    assert "Traceback" not in client.raw
    assert not protocol.socket_path(index_dir).exists()
    _intact(index_dir)
