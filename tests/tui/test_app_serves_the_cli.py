"""With the app open, every CLI command works: the app holds the index and
serves the other processes (issue 13). The commands run as real subprocesses
while the app runs under Pilot; two of them at once get right answers."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from convo_tui.cli.main import main
from convo_tui.core.holder import client, protocol
from convo_tui.core.settings import Settings
from convo_tui.tui.app import create_app
from textual.notifications import Notify

from tests.helpers.cli_output import problems
from tests.paths import FIXTURES, ROOT

SAMPLES = FIXTURES / "reliability" / "samples"


def cli(index_dir: Path, *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "convo_tui.cli.main", *argv, "--index-dir", str(index_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and problems(done.stderr) == [], (argv, done.returncode, done.stderr)  # index: progress
    return done.stdout


def test_every_command_works_while_the_app_is_open(tmp_path: Path, capsys) -> None:
    sources = tmp_path / "src"
    shutil.copytree(SAMPLES, sources)
    index_dir = tmp_path / "index"
    assert main(["index", str(sources / "openai"), "--index-dir", str(index_dir)]) == 0
    capsys.readouterr()

    async def scenario() -> tuple[int, list[str]]:
        app = create_app(Settings(index_dir=index_dir, discover_defaults=False), index_on_start=False)
        notes: list[Notify] = []
        hook = lambda message: notes.append(message) if isinstance(message, Notify) else None  # noqa: E731
        async with app.run_test(size=(100, 30), message_hook=hook) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            assert app.library is not None
            hello = client.call(protocol.socket_path(index_dir), "hello")
            assert hello["pid"] == os.getpid()  # the app (this process) holds the index and serves it

            def commands() -> None:
                assert "[chat_log #0]" in cli(index_dir, "search", "RAG")
                assert cli(index_dir, "index", str(sources)).startswith("sessions: 5 added, 0 updated, 2 unchanged")
                assert cli(index_dir, "session", "star", "conv-7") == "conv-7: starred\n"
                assert cli(index_dir, "session", "rename", "conv-7", "Qdrant setup") == "conv-7: title is now 'Qdrant setup'\n"
                shown = json.loads(cli(index_dir, "show", "conv-7", "--json"))
                assert shown["session"]["title"] == "Qdrant setup"
                body = json.loads(cli(index_dir, "context", "--session", "conv-7", "what is RAG?"))
                assert body["messages"][1]["content"].startswith("Conversation (recent):")
                assert "conv-7" in cli(index_dir, "sessions")
                assert cli(index_dir, "prune") == "pruned 0 session(s)\n"
                # `sources` asks the holder how much is searchable (it used to say "in use").
                assert "index: 7 sessions searchable by keyword" in cli(index_dir, "sources")
                # Two clients at once, each with its own right answer.
                with ThreadPoolExecutor(2) as pool:
                    rag = pool.submit(cli, index_dir, "search", "--json", "--mode", "keyword", "RAG")
                    listed = pool.submit(cli, index_dir, "sessions", "--json")
                    assert json.loads(rag.result().splitlines()[0])["session_id"] == "chat_log"
                    assert "conv-7" in {json.loads(line)["id"] for line in listed.result().splitlines()}

            await asyncio.to_thread(commands)
            await pilot.pause()
            # The app's own library sees what the commands did.
            ids = [s.id for s in await asyncio.to_thread(app.library.sessions)]
            return len(notes), ids

    errors, ids = asyncio.run(scenario())
    assert errors == 0
    assert "conv-7" in ids and "chat_log" in ids and len(ids) == 7
