"""Two convo-tui processes on one index: the second says who holds it, in one line.

Qdrant Edge cannot share a folder between processes, so the index takes a lock
(core/store/lock.py). These tests hold it from a real second process
(tests/helpers/index_worker.py) and check every face: each CLI command exits 1
with one line naming the holder's pid and what to do (never a traceback), the
app shows the same and keeps running, `show` (no index) still works, and the
holder's work is intact afterwards, also when it was killed.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "helpers" / "index_worker.py"
SAMPLES = Path(__file__).parent / "fixtures" / "reliability" / "samples"
HINT = "; wait for it to finish or close it, then try again"


def holder_line(index_dir: Path, pid: int) -> re.Pattern[str]:
    return re.compile(
        rf"convo-tui: index {re.escape(str(index_dir))} is in use by pid {pid} \(.*index_worker\.py.*\){re.escape(HINT)}\n"
    )


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
    assert line.strip() == "ready", f"holder did not start: {line!r}"
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
        proc.stdin.close()
        proc.wait(timeout=30)


def test_every_command_names_the_holder_in_one_line(index_dir: Path, holder: subprocess.Popen, sources: Path, capsys):
    index = ["--index-dir", str(index_dir)]
    commands = [
        ["search", "RAG", *index],
        ["search", "--mode", "keyword", "--json", "RAG", *index],
        ["sessions", *index],
        ["index", str(sources), *index],
        ["index", "--rebuild", str(sources), *index],
        ["prune", *index],
        ["session", "star", "conv-7", *index],
        ["context", "--session", "conv-7", "what is RAG?", *index],
    ]
    pattern = holder_line(index_dir, holder.pid)
    for argv in commands:
        assert main(argv) == 1, argv
        out, err = capsys.readouterr()
        assert pattern.fullmatch(err), f"{argv}: {err!r}"
        assert out == ""
    # Reading a transcript needs no index: it works while the index is held.
    assert main(["show", str(sources / "openai" / "chat_log.json")]) == 0
    assert "Summarise RAG in one line." in capsys.readouterr().out


def test_a_real_second_process_gets_no_traceback(index_dir: Path, holder: subprocess.Popen):
    result = subprocess.run(
        [sys.executable, "-m", "convo_tui.cli.main", "search", "RAG", "--index-dir", str(index_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert holder_line(index_dir, holder.pid).fullmatch(result.stderr), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_the_holders_work_is_intact_after_it_ends_or_is_killed(index_dir: Path, sources: Path, capsys):
    # The holder indexes more while a second process is refused, then finishes.
    writer = start(index_dir, "index", str(sources), "8")
    assert main(["search", "RAG", "--index-dir", str(index_dir)]) == 1
    assert holder_line(index_dir, writer.pid).fullmatch(capsys.readouterr().err)
    out, err = writer.communicate(timeout=300)
    assert writer.returncode == 0, err
    assert out.startswith("done 5 0 2")  # 5 new sessions, the 2 OpenAI ones unchanged
    with Library.open(Settings(index_dir=index_dir)) as library:
        assert len(library.sessions()) == 7

    # A holder killed outright leaves no stale lock: the next process opens the index.
    killed = start(index_dir, "hold")
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    assert main(["sessions", "--index-dir", str(index_dir)]) == 0
    assert capsys.readouterr().out.count("\n") == 14  # 7 sessions, two lines each


def test_the_app_says_who_holds_the_index_and_keeps_running(index_dir: Path, holder: subprocess.Popen):
    from convo_tui.tui.app import create_app

    async def scenario() -> tuple[list[str], str, bool]:
        app = create_app(Settings(index_dir=index_dir), index_on_start=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            messages = [n.message for n in app._notifications]
            status = str(app.search_screen.query_one("#index-label").render())
            return messages, status, app.library is None

    messages, status, no_library = asyncio.run(scenario())
    assert no_library
    assert "Could not open the index" in status
    assert len(messages) == 1
    assert messages[0].startswith(f"Could not open the index: index {index_dir} is in use by pid {holder.pid} (")
    assert messages[0].endswith(HINT[2:])
