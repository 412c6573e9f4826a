"""A holder that stops by itself steps down when a command of another release
asks, or when its own engine's files changed on disk since it started: after
an upgrade, no command is answered by the code from before it. Real sockets;
the engine is never asked anything."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from convo_tui.core.holder import client, protocol
from convo_tui.core.holder.release import CodeWatch, code_stamp
from convo_tui.core.holder.server import HolderServer

import convo_tui


def _engine_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "core"
    (folder / "search").mkdir(parents=True)
    (folder / "search" / "run.py").write_text("x = 1\n")
    (folder / "__init__.py").write_text("")
    return folder


def test_the_stamp_changes_when_a_file_is_rewritten_added_or_removed(tmp_path: Path):
    folder = _engine_folder(tmp_path)
    first = code_stamp(folder)
    assert first[0] == 2
    (folder / "search" / "__pycache__").mkdir()
    (folder / "search" / "__pycache__" / "run.py").write_text("")  # not the engine's code
    (folder / "notes.txt").write_text("")
    assert code_stamp(folder) == first
    run = folder / "search" / "run.py"
    os.utime(run, ns=(first[1] + 10**9, first[1] + 10**9))
    assert code_stamp(folder) != first
    stamp = code_stamp(folder)
    (folder / "search" / "new.py").write_text("")
    os.utime(folder / "search" / "new.py", ns=(first[1], first[1]))  # older than the newest
    assert code_stamp(folder) != stamp
    stamp = code_stamp(folder)
    (folder / "search" / "new.py").unlink()
    assert code_stamp(folder) != stamp


def test_a_watch_names_why_the_holder_is_stale(tmp_path: Path):
    folder = _engine_folder(tmp_path)
    watch = CodeWatch(folder)
    assert watch.why_stale(convo_tui.__version__) is None
    assert watch.why_stale(None) is None  # a client that does not say: only the files decide
    assert watch.why_stale("0.0.1") == f"a command of convo-tui 0.0.1 asked; this holder runs {convo_tui.__version__}"
    newest = code_stamp(folder)[1]
    os.utime(folder / "__init__.py", ns=(newest + 10**9, newest + 10**9))
    assert watch.why_stale(convo_tui.__version__) == f"convo-tui's files under {folder} changed since this holder started"


def test_a_keep_warm_holder_steps_down_for_another_release_without_answering(tmp_path: Path):
    told: list[str] = []
    stepped = threading.Event()

    def on_idle(reason: str) -> None:
        told.append(reason)
        stepped.set()

    server = HolderServer(object(), tmp_path, idle_exit=300, on_idle=on_idle).start()  # type: ignore[arg-type]
    path = protocol.socket_path(tmp_path)
    try:
        with pytest.raises(client.HolderGone):
            client.call(path, "hello", {"release": "0.0.1"})
        assert stepped.wait(30)
        with pytest.raises(client.HolderGone):  # stepping down: nobody else is answered either
            client.call(path, "hello", {"release": convo_tui.__version__})
        assert told == [f"a command of convo-tui 0.0.1 asked; this holder runs {convo_tui.__version__}"]
    finally:
        server.stop()


def test_a_holder_the_user_started_keeps_serving_every_release(tmp_path: Path):
    """`serve` (no --idle-exit) and the app are the user's own: they answer, whatever asks."""
    server = HolderServer(object(), tmp_path).start()  # type: ignore[arg-type]
    try:
        # The engine here is no engine, so the answer is its error: an answer all the same.
        with pytest.raises(convo_tui.core.errors.ConvoError, match="internal error") as raised:
            client.call(protocol.socket_path(tmp_path), "hello", {"release": "0.0.1"})
        assert not isinstance(raised.value, client.HolderGone)
    finally:
        server.stop()


def test_a_request_leaves_out_arguments_at_their_default():
    """A holder of an older convo-tui refuses arguments it does not know: the sessions
    browser's every page read failed against one (`unknown argument 'around'`)."""
    from convo_tui.core.holder.ops import OPERATIONS

    page = OPERATIONS["session_page"]
    asked = {"offset": 100, "limit": 100, "sort": "date", "starred_only": False, "text": "", "around": ""}
    assert page.to_wire(asked) == {"offset": 100}
    assert page.to_wire({**asked, "around": "abc"})["around"] == "abc"
    assert page.from_wire(page.to_wire(asked)) == {"offset": 100}  # the method's own defaults for the rest
