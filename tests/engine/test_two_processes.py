"""Two convo-tui processes on one index: the one that opened it serves the other.

Qdrant Edge cannot share a folder between processes, so one process holds the
index (core/store/lock.py) and answers the others over its socket
(core/holder/). These tests hold it from a real second process
(tests/helpers/index_worker.py) and check every face: each CLI command is
answered (edits and index runs included), `show FILE` needs no index, the app
opened beside a holder uses it, a holder that stops answering is named in one
line, and the holder's work is intact afterwards, also when it was killed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.holder.access import open_local
from convo_tui.core.settings import Settings

from tests.paths import FIXTURES, ROOT

WORKER = ROOT / "tests" / "helpers" / "index_worker.py"
SAMPLES = FIXTURES / "reliability" / "samples"


def start(index_dir: Path, *args: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(index_dir), *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    assert line.strip() == "ready", f"holder did not start: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}"
    return proc


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(SAMPLES, src)
    return src


@pytest.fixture
def index_dir(tmp_path: Path, sources: Path, capsys) -> Path:
    folder = tmp_path / "index"
    assert main(["index", str(sources / "openai"), "--index-dir", str(folder)]) == 0
    capsys.readouterr()
    return folder


@pytest.fixture
def holder(index_dir: Path) -> Iterator[subprocess.Popen]:
    proc = start(index_dir, "hold")
    yield proc
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGCONT)
        proc.stdin.close()
        proc.wait(timeout=30)


def test_every_command_is_served_by_the_holder(index_dir: Path, holder: subprocess.Popen, sources: Path, capsys):
    index = ["--index-dir", str(index_dir)]

    def run(*argv: str) -> str:
        code = main([*argv, *index])
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        if argv[0] == "index":  # progress, and first who runs it: the holder
            assert err.startswith(f"convo-tui: handed to pid {holder.pid} "), err
        else:
            assert err == "", (argv, err)
        return out

    assert "[chat_log #0]" in run("search", "RAG")
    hits = [json.loads(line) for line in run("search", "--mode", "keyword", "--json", "RAG").splitlines()]
    assert hits and hits[0]["session_id"] == "chat_log"
    assert run("sessions").count("\n") == 4  # 2 sessions, two lines each
    assert run("index", str(sources)).startswith("sessions: 5 added, 0 updated, 2 unchanged")
    assert [json.loads(line)["id"] for line in run("sessions", "--json").splitlines()].count("conv-7") == 1
    assert run("session", "star", "conv-7") == "conv-7: starred\n"
    assert run("session", "rename", "conv-7", "Qdrant setup") == "conv-7: title is now 'Qdrant setup'\n"
    assert run("session", "tag", "conv-7", "db") == "conv-7: tags db\n"
    assert run("session", "describe", "conv-7", "how to make a collection") == "conv-7: description set\n"
    assert run("session", "settings", "conv-7", "--hide-tools") == "hide_thinking = false\nhide_tools = true\n"
    shown = json.loads(run("show", "conv-7", "--json"))
    assert (shown["session"]["title"], len(shown["messages"])) == ("Qdrant setup", 4)
    body = json.loads(run("context", "--session", "conv-7", "what is RAG?"))
    assert body["messages"][1]["content"].startswith("Conversation (recent):\nUser: 怎么设置 Qdrant 集合?")
    assert run("session", "delete", "--yes", "conv-7").startswith("conv-7: deleted from the index")
    assert "conv-7" not in run("sessions")
    assert run("session", "restore", "conv-7").startswith("conv-7: restored")
    assert run("prune") == "pruned 0 session(s)\n"
    # Reading a transcript needs no index.
    assert "Summarise RAG in one line." in run("show", str(sources / "openai" / "chat_log.json"))
    # The holder wrote all of it: once it closes, the index has the edits and the new sessions.
    holder.stdin.close()
    assert holder.wait(timeout=60) == 0
    with open_local(Settings(index_dir=index_dir)) as library:
        assert len(library.sessions()) == 6  # conv-7 waits for the next index run
        assert library.annotations.get("conv-7").starred


def test_a_real_second_process_is_answered_and_two_clients_at_once_too(index_dir: Path, holder: subprocess.Popen):
    command = [sys.executable, "-m", "convo_tui.cli.main", "--index-dir", str(index_dir)]
    clients = [
        subprocess.Popen(
            [*command, "search", "--json", "--mode", "keyword", query],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for query in ("RAG", "Qdrant")
    ]
    answers = [c.communicate(timeout=120) for c in clients]
    for client, (_out, err) in zip(clients, answers, strict=True):
        assert client.returncode == 0 and err == "", err
    assert json.loads(answers[0][0].splitlines()[0])["session_id"] == "chat_log"
    assert json.loads(answers[1][0].splitlines()[0])["session_id"] == "conv-7"


def test_two_clients_at_once_with_no_holder_both_answered(index_dir: Path):
    """Both race for the lock: one holds the index, the other is served by it."""
    command = [sys.executable, "-m", "convo_tui.cli.main", "--index-dir", str(index_dir), "sessions", "--json"]
    clients = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for client in clients:
        out, err = client.communicate(timeout=120)
        assert client.returncode == 0, err
        assert sorted(json.loads(line)["id"] for line in out.splitlines()) == ["chat_log", "conv-7"]


def test_a_holder_that_stops_answering_is_named_in_one_line(index_dir: Path, holder: subprocess.Popen):
    os.kill(holder.pid, signal.SIGSTOP)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "convo_tui.cli.main", "sessions", "--index-dir", str(index_dir)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "CONVO_TUI_HOLDER_TIMEOUT": "1"},
        )
    finally:
        os.kill(holder.pid, signal.SIGCONT)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("convo-tui: the index holder at ")
    assert "stopped answering" in result.stderr


def test_the_holders_work_is_intact_after_it_ends_or_is_killed(index_dir: Path, sources: Path, capsys):
    # The holder indexes more while a second process is served, then finishes.
    writer = start(index_dir, "index", str(sources), "8")
    assert main(["sessions", "--json", "--index-dir", str(index_dir)]) == 0
    assert {"chat_log", "conv-7"} <= {json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()}
    out, err = writer.communicate(timeout=300)
    assert writer.returncode == 0, err
    assert out.startswith("done 5 0 2")  # 5 new sessions, the 2 OpenAI ones unchanged
    with open_local(Settings(index_dir=index_dir)) as library:
        assert len(library.sessions()) == 7

    # A holder killed outright leaves a stale socket and no lock: the next process takes over.
    killed = start(index_dir, "hold")
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    assert (index_dir / "holder.sock").exists()
    assert main(["sessions", "--index-dir", str(index_dir)]) == 0
    assert capsys.readouterr().out.count("\n") == 14  # 7 sessions, two lines each


def test_the_app_opened_beside_a_holder_uses_it(index_dir: Path, holder: subprocess.Popen):
    from convo_tui.core.holder.remote import RemoteEngine
    from convo_tui.tui.app import create_app

    async def scenario() -> tuple[list[str], object, list[str]]:
        app = create_app(Settings(index_dir=index_dir), index_on_start=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            messages = [n.message for n in app._notifications]
            assert app.library is not None
            return messages, app.library, [s.id for s in app.library.sessions()]

    messages, library, ids = asyncio.run(scenario())
    assert messages == []
    assert isinstance(library, RemoteEngine) and library.holder_pid == holder.pid
    assert sorted(ids) == ["chat_log", "conv-7"]


def test_stats_are_counted_by_the_holder(index_dir: Path, holder: subprocess.Popen):
    """The stats screen of an app beside a holder (e.g. `serve`) asks the holder to count."""
    from convo_tui.core.holder.access import attach
    from convo_tui.core.holder.remote import RemoteEngine

    remote = attach(Settings(index_dir=index_dir))
    assert isinstance(remote, RemoteEngine)
    served = remote.stats()
    holder.stdin.close()
    assert holder.wait(timeout=60) == 0
    with open_local(Settings(index_dir=index_dir)) as library:
        assert served == library.stats()
    assert served.total.sessions == 2 and set(served.by_source) == {"openai"}
