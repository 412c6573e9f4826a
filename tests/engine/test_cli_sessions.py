"""`convo-tui sessions`: the user's stars, tags and descriptions are in the list."""

import os
import shutil
import time

import pytest
from convo_tui.cli.main import main

from tests.paths import FIXTURES

RAGDOCS = FIXTURES / "relevance" / "Users-alice-code-ragdocs"
MTIME = 1767960000  # 2026-01-09 12:00:00 UTC


@pytest.fixture
def utc_zone(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_sessions_lists_star_tags_and_description(tmp_path, capsys, utc_zone):
    src = tmp_path / "src" / "Users-alice-code-ragdocs"
    shutil.copytree(RAGDOCS, src)
    os.utime(src / "agent-transcripts" / "rag-chunking.txt", (MTIME, MTIME))
    assert main(["index", str(tmp_path / "src")]) == 0
    assert main(["session", "star", "rag-chunking"]) == 0
    assert main(["session", "tag", "rag-chunking", "rag", "db"]) == 0
    assert main(["session", "describe", "rag-chunking", "Chunk sizes\n and rollbacks"]) == 0
    capsys.readouterr()
    assert main(["sessions"]) == 0
    assert capsys.readouterr().out == (
        "★ rag-chunking  我们讨论一下 RAG 检索增强生成的文档分块策略  #rag #db\n"
        "    ragdocs · cursor · 4 messages · 2 turns · - → 2026-01-09 12:00\n"
        "    Chunk sizes and rollbacks\n"
    )


def test_sessions_limit_lists_the_newest(tmp_path, capsys):
    src = tmp_path / "src"
    for name in ("Users-alice-code-ragdocs", "Users-alice-code-vectordb"):
        shutil.copytree(FIXTURES / "relevance" / name, src / name)
    assert main(["index", str(src)]) == 0
    capsys.readouterr()
    assert main(["sessions", "--json"]) == 0
    every = capsys.readouterr().out.splitlines()
    assert len(every) > 2
    assert main(["sessions", "--json", "--limit", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == every[:2]
    assert main(["sessions", "--limit", "0"]) == 1
    assert capsys.readouterr().err == "convo-tui: --limit must be a whole number from 1 to 100,000 (got 0)\n"
