"""The holder protocol end to end: bad requests, a holder killed mid-request, thin clients."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.holder import client, protocol
from convo_tui.core.holder.access import attach, open_local
from convo_tui.core.holder.remote import RemoteEngine
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.paths import FIXTURES, ROOT

WORKER = ROOT / "tests" / "helpers" / "index_worker.py"
SAMPLES = FIXTURES / "reliability" / "samples"
HEAVY = ("fastembed", "onnxruntime", "qdrant_client", "qdrant_edge", "huggingface_hub", "textual")


@pytest.fixture
def index_dir(tmp_path: Path, capsys) -> Path:
    src = tmp_path / "src"
    shutil.copytree(SAMPLES / "openai", src)
    folder = tmp_path / "index"
    assert main(["index", str(src), "--index-dir", str(folder)]) == 0
    capsys.readouterr()
    return folder


@pytest.fixture
def holder(index_dir: Path) -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(index_dir), "hold"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "ready"
    yield proc
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGCONT)
        proc.stdin.close()
        proc.wait(timeout=60)


def raw(path: Path, data: bytes) -> list[dict]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        with sock.makefile("rb") as reader:
            return [json.loads(line) for line in reader]


def test_socket_is_private_and_bad_requests_get_one_line_errors(index_dir: Path, holder: subprocess.Popen):
    path = protocol.socket_path(index_dir)
    assert path == index_dir.absolute() / "holder.sock"
    assert path.stat().st_mode & 0o777 == 0o600
    replies = raw(path, b'not json\n{"v":1,"op":"search"}\n{"v":2,"op":"drop_everything"}\n{"v":2,"op":"session","args":{}}\n')
    assert [r.get("kind") for r in replies] == ["ProtocolError", "ProtocolError", "ProtocolError", "ConvoError"]
    assert replies[1]["error"] == "protocol version 1 is not supported (this holder speaks 2)"
    assert replies[2]["error"] == "unknown op 'drop_everything'"
    assert replies[3]["error"] == "session: 'session_id' is required"
    assert all(r["v"] == protocol.VERSION for r in replies)
    # The holder's own errors keep their class on this side.
    with pytest.raises(client.ConvoError, match="no session 'nope' in the index"):
        client.call(path, "session", {"session_id": "nope"})
    hello = client.call(path, "hello")
    assert (hello["pid"], hello["protocol"]) == (holder.pid, protocol.VERSION)


def test_a_long_index_path_gets_a_short_private_socket(tmp_path: Path):
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 5) / "index"
    path = protocol.socket_path(deep)
    assert len(str(path)) < 100 and path.name.endswith(".sock") and path.parent != deep
    with open_local(Settings(index_dir=deep)):
        assert path.exists() and path.parent.stat().st_mode & 0o777 == 0o700
        assert client.call(path, "sessions") == []
    assert not path.exists()


def test_holder_killed_mid_request_client_takes_over_and_index_is_intact(index_dir: Path, holder: subprocess.Popen):
    path = protocol.socket_path(index_dir)
    settings = Settings(index_dir=index_dir)
    remote = attach(settings)
    assert isinstance(remote, RemoteEngine) and remote.holder_pid == holder.pid

    # Freeze the holder, then put requests in flight: the kernel accepts the connections, nobody answers.
    os.kill(holder.pid, signal.SIGSTOP)
    pending = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    pending.settimeout(60)
    pending.connect(str(path))
    pending.sendall(protocol.encode(protocol.request("sessions")))
    answers: list = []
    asking = threading.Thread(target=lambda: answers.append(sorted(s.id for s in remote.sessions())))
    asking.start()
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=60)

    # The low-level client sees the holder go, not a hang or a bad reply.
    with pytest.raises(client.HolderGone):
        client._read_answer(pending, path, 60, None)
    pending.close()
    # The high-level one took the index over and answered from it.
    asking.join(timeout=120)
    assert answers == [["chat_log", "conv-7"]]
    assert isinstance(remote._local, Library)
    # ... and now serves the next process itself.
    served = subprocess.run(
        [sys.executable, "-m", "convo_tui.cli.main", "sessions", "--json", "--index-dir", str(index_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 0, served.stderr
    assert sorted(json.loads(line)["id"] for line in served.stdout.splitlines()) == ["chat_log", "conv-7"]
    remote.close()
    with open_local(settings) as library:
        assert library.store.count() > 0 and len(library.sessions()) == 2


def test_a_served_search_imports_nothing_heavy(index_dir: Path, holder: subprocess.Popen):
    code = (
        "import json, sys\n"
        "from convo_tui.cli.main import main\n"
        f"code = main(['search', 'RAG', '--json', '--index-dir', {str(index_dir)!r}])\n"
        "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = result.stdout.splitlines()
    report = json.loads(lines[-1])
    assert report["code"] == 0 and json.loads(lines[0])["session_id"] == "chat_log"
    loaded = {name.split(".")[0] for name in report["modules"]}
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
    assert "convo_tui.core.library" not in report["modules"]


def test_a_cold_keyword_search_loads_no_model(index_dir: Path):
    code = (
        "import json, sys\n"
        "from convo_tui.cli.main import main\n"
        f"code = main(['search', 'RAG', '--mode', 'keyword', '--json', '--index-dir', {str(index_dir)!r}])\n"
        "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = result.stdout.splitlines()
    report = json.loads(lines[-1])
    assert report["code"] == 0 and json.loads(lines[0])["session_id"] == "chat_log"
    loaded = {name.split(".")[0] for name in report["modules"]}
    assert "convo_tui.core.library" in report["modules"]  # it held the index itself
    assert loaded.isdisjoint({"fastembed", "onnxruntime", "huggingface_hub"})
    # Nor the indexing machinery (phase 1 and 2, the archive, SSH pulls), the session
    # edits (they read source files), the translated meaning search, the stats and
    # their prices, or fuzzy mode's numpy: imported on first use.
    indexing = {
        "convo_tui.core.index.publish",
        "convo_tui.core.index.dense_phase",
        "convo_tui.core.index.reader_process",
        "convo_tui.core.index.source_files",
        "convo_tui.core.library.indexing",
        "convo_tui.core.library.archiving",
        "convo_tui.core.library.edits",
        "convo_tui.core.remote.pull",
        "convo_tui.core.search.translated_search",
        "convo_tui.core.archive.status",
        "convo_tui.core.stats",
        "convo_tui.core.search.fuzzy_scope",
        "numpy",
    }
    assert indexing.isdisjoint(report["modules"]), sorted(indexing & set(report["modules"]))


def test_a_remote_index_run_stops_waiting_when_cancelled_and_the_holder_goes_on(index_dir: Path, holder: subprocess.Popen):
    """The app quitting during an index run it asked the holder for must not hang."""
    remote = attach(Settings(index_dir=index_dir))
    assert isinstance(remote, RemoteEngine)
    cancel = threading.Event()
    phases: list[str] = []

    def progress(p) -> None:
        phases.append(p.phase)
        cancel.set()

    report = remote.index([SAMPLES], progress=progress, cancel=cancel)
    assert report.cancelled and phases
    assert {"chat_log", "conv-7"} <= {s.id for s in remote.sessions()}


def test_a_remote_library_reads_whole_sessions(index_dir: Path, holder: subprocess.Popen):
    remote = attach(Settings(index_dir=index_dir))
    assert isinstance(remote, RemoteEngine)
    sessions = sorted((remote.session(summary.id) for summary in remote.sessions()), key=lambda s: s.id)
    assert [s.id for s in sessions] == ["chat_log", "conv-7"]
    assert all(s.messages for s in sessions)
    assert sessions == [remote.session(s.id) for s in sessions]
    remote.close()


def test_an_index_run_asking_another_model_of_a_holder_is_refused_in_one_line(index_dir: Path, holder: subprocess.Popen, capsys):
    """The holder indexes with its own settings; it would not switch, so the client says so instead."""
    held = json.loads((index_dir / "meta.json").read_text())["model"]
    other = "all-MiniLM-L6-v2-int8" if held == "multilingual-e5-small" else "multilingual-e5-small"
    src = str(index_dir.parent / "src")
    assert main(["index", src, "--index-dir", str(index_dir), "--model", other]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"held by pid {holder.pid}" in err and held in err and f"--model {other}" in err
    # The index's own model, or "auto": the holder runs it.
    for model in (held, "auto"):
        assert main(["index", src, "--index-dir", str(index_dir), "--model", model]) == 0


def test_a_first_index_run_serves_the_index_it_creates(tmp_path: Path):
    """The index folder does not exist yet: the run that creates it must still serve
    it, or the app opened meanwhile waits, then says the index is in use."""
    folder = tmp_path / "data" / "index"
    engine = attach(Settings(index_dir=folder))
    try:
        assert client.call(protocol.socket_path(folder), "hello")
    finally:
        engine.close()
