"""`convo-tui mcp` driven by the official SDK's stdio client, as an agent would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from convo_tui.cli.main import main
from convo_tui.cli.mcp_tools import TOOL_NAMES

from tests.helpers.mcp_client import mcp_session
from tests.paths import FIXTURES, ROOT

SAMPLES = FIXTURES / "reliability" / "samples"
WORKER = ROOT / "tests" / "helpers" / "index_worker.py"


@pytest.fixture
def index_dir(tmp_path: Path, capsys) -> Path:
    src = tmp_path / "src"
    shutil.copytree(SAMPLES / "openai", src)
    folder = tmp_path / "index"
    assert main(["index", str(src), "--index-dir", str(folder)]) == 0
    capsys.readouterr()
    return folder


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def drive(index_dir: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    args = ["-m", "convo_tui.cli.main", "mcp", "--index-dir", str(index_dir)]
    async with mcp_session(sys.executable, args, env={**os.environ}, cwd=str(ROOT)) as session:
        init = await session.initialize()
        seen["server"] = init.server_info.name
        seen["tools"] = sorted(tool.name for tool in (await session.list_tools()).tools)
        seen["search"] = structured(await session.call_tool("search", {"query": "RAG", "mode": "keyword", "limit": 3}))
        seen["show"] = structured(await session.call_tool("show_session", {"session_id": "conv-7"}))
        seen["turn1"] = structured(
            await session.call_tool("show_session", {"session_id": "conv-7", "first_turn": 1, "last_turn": 1})
        )
        seen["context"] = structured(
            await session.call_tool("context", {"question": "what is RAG?", "session_id": "conv-7", "refs": 2})
        )
        seen["list"] = structured(await session.call_tool("list_sessions", {"limit": 5}))
        seen["missing"] = await session.call_tool("show_session", {"session_id": "no-such"})
    return seen


def check(seen: dict[str, Any]) -> None:
    assert seen["server"] == "convo-tui"
    assert seen["tools"] == sorted(TOOL_NAMES)
    first = seen["search"]["hits"][0]
    assert (first["session_id"], first["turn_index"], first["user_text"]) == ("chat_log", 0, "Summarise RAG in one line.")
    assert {"title", "project", "score", "similarity", "timestamp", "ai_text"} <= set(first)
    show = seen["show"]
    assert show["session_id"] == "conv-7" and [m["text"] for m in show["messages"]][:2] == [
        "怎么设置 Qdrant 集合?",
        "用 ensure(dim) 创建集合。",
    ]
    assert [m["text"] for m in seen["turn1"]["messages"]] == ["BM25 呢?", "稀疏向量加 IDF。"]
    body = seen["context"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"].startswith("Conversation (recent):\nUser: 怎么设置 Qdrant 集合?")
    assert body["messages"][1]["content"].endswith("用户提问: what is RAG?")
    assert sorted(s["id"] for s in seen["list"]["sessions"]) == ["chat_log", "conv-7"]
    assert seen["missing"].is_error and "no session 'no-such'" in seen["missing"].content[0].text


def test_mcp_server_over_stdio_holds_the_index(index_dir: Path):
    check(anyio.run(drive, index_dir))


def test_mcp_server_uses_a_running_holder(index_dir: Path):
    holder = subprocess.Popen(
        [sys.executable, str(WORKER), str(index_dir), "hold"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        check(anyio.run(drive, index_dir))
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
