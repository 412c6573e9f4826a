"""The app itself, `convo-tui`, in a real terminal as a person runs it (issue 23):
a query typed while the first index run goes shows its results once they are
published, a card opens, and quitting is clean also while the app serves
another process's `convo-tui index` (it hung 21 s, then aborted with
`terminate called without an active exception`)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from convo_tui.core.holder import protocol
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.e2e.terminal import convo_tui
from tests.helpers.demo_corpus import copy_demo
from tests.helpers.hostile import SEQUENCES, hostile_transcript
from tests.helpers.hostile_corpus import ESCAPED_FOLDER
from tests.helpers.index_copy import copy_index

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


def test_ctrl_t_opens_a_read_only_copy_of_the_transcript_never_the_source(terminal, tmp_path: Path, demo_folder: Path):
    """The editor may write what it opens (here it does): the source must not change."""
    index_dir = tmp_path / "index"
    copy_index(demo_folder / "index", index_dir)
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text(
        f'model = "{DEFAULT_MODEL}"\ndiscover_defaults = false\nsources = []\n', encoding="utf-8"
    )
    opened = tmp_path / "opened.txt"
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import pathlib, sys\n"
        f"pathlib.Path({str(opened)!r}).write_text(sys.argv[1])\n"
        "try:\n"  # refused unless root, whom a mode does not stop
        "    with open(sys.argv[1], 'a') as f:\n"
        "        f.write('edited by the editor')\n"
        "except PermissionError:\n"
        "    pass\n"
        "print('THE EDITOR RAN', flush=True)\n",  # its last step: then the app takes the terminal back
        encoding="utf-8",
    )
    with Library.open(Settings(index_dir=index_dir)) as library:
        hit = library.search("Decimal rounding", limit=1, mode="keyword")[0]
        source = Path(library.session(hit.session_id).path)
    before = source.read_bytes()
    app = terminal(
        [*convo_tui(), "--index-dir", str(index_dir)],
        cols=120,
        rows=40,
        env={"VISUAL": f"{sys.executable} {editor}", "EDITOR": ""},
    )
    app.wait_for(FOOTER)
    app.type("Decimal rounding")
    app.wait_for("Fix checkout rounding with Decimal")
    app.press("down", "ctrl+t")
    # its last words, then the app draws itself again (maybe in the same read: so in the raw output)
    app.wait_until(lambda: "Quit" in app.raw.partition("THE EDITOR RAN")[2], "the editor to run and the app to be back")
    copy = Path(opened.read_text())
    assert copy != source and copy.name == source.name and copy.parent.parent.name == "sources"
    assert source.read_bytes() == before
    assert copy.stat().st_mode & 0o777 == 0o400
    assert copy.read_bytes().startswith(before)  # the transcript as the tool wrote it (then the editor's line)
    app.press("ctrl+q")
    assert app.wait_exit() == 0, app.text()


def test_terminal_control_in_a_transcript_never_reaches_the_terminal(terminal, tmp_path: Path):
    """Its title change and screen clear acted on the terminal (tmux, session 30)."""
    corpus, index_dir = tmp_path / "corpus", tmp_path / "index"
    hostile_transcript(corpus / f"-home-dev-{ESCAPED_FOLDER}")
    _config(corpus)
    with Library.open(Settings(index_dir=index_dir, model=DEFAULT_MODEL)) as library:
        assert library.index([corpus], semantic=False).sessions == 1
    app = terminal([*convo_tui(), "--index-dir", str(index_dir)], cols=100, rows=30)
    app.wait_for(FOOTER)
    app.type("build fail")
    app.wait_for("why does the build fail?")
    app.press("down", "enter")  # the card opens: its messages and the tool call
    app.wait_for("pytest -q")
    app.press("ctrl+o")  # the whole session in the reader
    app.wait_for("Next hit")  # the reader's footer: the card showed the text below already
    app.wait_for("look at the log")
    app.press("ctrl+q")
    assert app.wait_exit() == 0, app.text()
    assert not [seq for seq in SEQUENCES if seq in app.raw]
