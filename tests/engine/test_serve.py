"""`convo-tui serve`: new transcripts become searchable while it runs; Ctrl+C stops it cleanly."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from convo_tui.core.holder import client, protocol
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.paths import ROOT

SESSION = "5b0c7e52-1f4d-4c8e-9a3b-2d6f8e1a9c40"


def claude_transcript() -> str:
    """Two lines in Claude Code's shape (a user turn and the answer), written by hand."""
    common = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/code/zoo",
        "sessionId": SESSION,
        "version": "1.0.98",
    }
    lines = [
        {
            **common,
            "parentUuid": None,
            "uuid": "u1",
            "timestamp": "2026-03-02T09:00:00.000Z",
            "type": "user",
            "message": {"role": "user", "content": "How do I feed the zebracorn in the petting zoo app?"},
        },
        {
            **common,
            "parentUuid": "u1",
            "uuid": "a1",
            "timestamp": "2026-03-02T09:00:04.000Z",
            "type": "assistant",
            "message": {
                "id": "msg_01ZZ",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": "Add a feed() method to the Zebracorn model."}],
                "stop_reason": "end_turn",
            },
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def wait_for_line(proc: subprocess.Popen, text: str) -> list[str]:
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if text in line:
            return seen
    raise AssertionError(f"serve ended before {text!r}: {''.join(seen)}")


def test_serve_indexes_a_new_transcript_and_stops_on_ctrl_c(tmp_path: Path):
    watched = tmp_path / "claude" / "projects" / "-home-dev-code-zoo"
    watched.mkdir(parents=True)
    index_dir = tmp_path / "index"
    serve = subprocess.Popen(
        [sys.executable, "-m", "convo_tui.cli.main", "serve", str(tmp_path / "claude"), "--index-dir", str(index_dir)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_line(serve, "convo-tui: ready")
        socket_path = protocol.socket_path(index_dir)
        assert client.call(socket_path, "search", {"query": "zebracorn", "mode": "keyword"}) == []

        (watched / f"{SESSION}.jsonl").write_text(claude_transcript(), encoding="utf-8")
        hits: list = []
        deadline = time.monotonic() + 120  # a bound for a loaded machine, not a speed claim
        while not hits and time.monotonic() < deadline:
            time.sleep(0.2)
            hits = client.call(socket_path, "search", {"query": "zebracorn", "mode": "keyword"})
        assert hits, "the new transcript never became searchable"
        assert (hits[0]["session_id"], hits[0]["project"]) == (SESSION, "zoo")

        serve.send_signal(signal.SIGINT)
        _, err = serve.communicate(timeout=60)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert serve.returncode == 0, err
    assert err.endswith("convo-tui: stopped serving\n") and "Traceback" not in err
    assert not socket_path.exists()
    with Library.open(Settings(index_dir=index_dir)) as library:  # the lock is free and nothing was lost
        assert [s.id for s in library.sessions()] == [SESSION]


def test_a_transcript_written_before_the_watch_is_live_is_not_missed(tmp_path: Path):
    """Between serve's first index run and the moment the watch is in place a
    file may be written: the watcher indexes the roots once more when it goes live."""
    import threading

    from convo_tui.core.holder.watch import watch_and_index

    root = tmp_path / "claude"
    watched = root / "projects" / "-home-dev-code-zoo"
    watched.mkdir(parents=True)
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        library.index([root])  # serve's first run: nothing yet
        (watched / f"{SESSION}.jsonl").write_text(claude_transcript(), encoding="utf-8")  # no watch yet
        stop, live, found = threading.Event(), threading.Event(), []

        def on_watching() -> None:
            found.extend(library.search("zebracorn", mode="keyword"))
            live.set()
            stop.set()

        watcher = threading.Thread(target=watch_and_index, args=(library, [root], stop), kwargs={"on_watching": on_watching})
        watcher.start()
        assert live.wait(120)
        watcher.join(30)
    assert [hit.session_id for hit in found] == [SESSION]
