"""`convo-tui serve` in a terminal: it answers other processes, and Ctrl+C or SIGTERM
stops it in order, also while a client's index run goes through it (issue 23: the
holder hung, then aborted with `terminate called without an active exception`)."""

from __future__ import annotations

import random
import re
import signal
from pathlib import Path

from convo_tui.core.holder import protocol
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.e2e.terminal import convo_tui
from tests.helpers.demo_corpus import copy_demo
from tests.helpers.index_copy import copy_index

DEMO_SESSIONS = 15
EXTRA_SESSIONS = 80
WORDS = [
    "cache",
    "retry",
    "queue",
    "worker",
    "schema",
    "migration",
    "index",
    "shard",
    "token",
    "budget",
    "deploy",
    "rollback",
    "socket",
    "lock",
    "timeout",
    "parser",
    "config",
    "export",
    "import",
    "archive",
    "search",
    "ranking",
    "vector",
    "keyword",
    "session",
    "project",
    "folder",
    "branch",
    "commit",
    "review",
    "latency",
    "memory",
    "thread",
    "signal",
    "process",
    "terminal",
]


def _intact(index_dir: Path, sessions: int = DEMO_SESSIONS) -> None:
    with Library.open(Settings(index_dir=index_dir)) as library:  # the lock is free
        assert len(library.sessions()) == sessions
        status = library.semantic_status()
        assert status.ready == status.total > 0


def _more_sessions(corpus: Path, count: int) -> None:
    """Cursor sessions of distinct English sentences: phase 2 gets hundreds of texts to
    embed, so the client's run is still going through the holder when Ctrl+C lands
    (with the demo's 55 texts the holder could finish them first: 1 run in 12)."""
    words = random.Random(23)
    folder = corpus / ".cursor" / "projects" / "Users-dana-code-extra" / "agent-transcripts"
    folder.mkdir(parents=True)
    for n in range(count):
        turns = []
        for t in range(3):
            question = " ".join(words.choice(WORDS) for _ in range(12))
            answer = " ".join(words.choice(WORDS) for _ in range(30))
            turns.append(f"user:\nSession {n} turn {t}: {question}?\n\nassistant:\n{answer}.\n\n")
        (folder / f"extra-{n}.txt").write_text("".join(turns), encoding="utf-8")


def test_serve_answers_a_search_and_stops_on_ctrl_c_while_a_client_indexes_through_it(terminal, tmp_path: Path):
    corpus, index_dir = copy_demo(tmp_path), tmp_path / "index"
    _more_sessions(corpus, EXTRA_SESSIONS)
    with Library.open(Settings(index_dir=index_dir, model=DEFAULT_MODEL)) as library:
        report = library.index([corpus], semantic=False)  # phase 2 is left for the client's run
        assert report.sessions == DEMO_SESSIONS + EXTRA_SESSIONS
    serve = terminal([*convo_tui(), "serve", "--no-watch", "--index-dir", str(index_dir)], cols=80, rows=24)
    serve.wait_for("convo-tui: ready")

    search = terminal([*convo_tui(), "search", "qdrant collection", "--mode", "keyword", "--index-dir", str(index_dir)])
    assert search.wait_exit() == 0
    assert "Qdrant collection" in search.scrollback()

    client = terminal([*convo_tui(), "index", "--index-dir", str(index_dir)], cols=80, rows=24)
    client.wait_for(re.compile(r"handed to pid \d+ \(convo-tui serve\), which holds the index"), everywhere=True)
    client.wait_for(re.compile(r"^semantic .*texts", re.M))  # the holder is embedding for it
    serve.press("ctrl+c")
    assert serve.wait_exit() == 0, serve.scrollback()
    told = serve.scrollback()
    assert told.rstrip().endswith("convo-tui: stopped serving") and "Traceback" not in serve.raw
    assert "terminate called" not in serve.raw

    assert client.wait_exit() == 0, client.scrollback()  # it took the index over (and served it) meanwhile
    assert not protocol.socket_path(index_dir).exists()
    shown = client.scrollback()
    assert "(convo-tui serve) stopped; the run goes on here" in shown
    assert re.search(r"^semantic: (\d+)/\1 texts with vectors \(100%\)", shown, re.M), shown
    _intact(index_dir, DEMO_SESSIONS + EXTRA_SESSIONS)


def test_serve_stops_on_sigterm_after_answering(terminal, tmp_path: Path, demo_built: Path):
    index_dir = tmp_path / "index"
    copy_index(demo_built / "index", index_dir)
    serve = terminal([*convo_tui(), "serve", "--no-watch", "--index-dir", str(index_dir)], cols=120, rows=40)
    serve.wait_for("convo-tui: ready")
    sessions = terminal([*convo_tui(), "sessions", "--index-dir", str(index_dir)])
    assert sessions.wait_exit() == 0
    assert len(re.findall(r" · \d+ messages? · ", sessions.scrollback())) == 15
    serve.signal(signal.SIGTERM)
    assert serve.wait_exit() == 0, serve.scrollback()
    assert serve.scrollback().rstrip().endswith("convo-tui: stopped serving")
    assert not protocol.socket_path(index_dir).exists()
    _intact(index_dir)
