"""`convo-tui mcp`, the installed program, driven over stdio by the official MCP client as an
agent drives it: the tools and their arguments, four of them called on the demo index, a session named by its id prefix."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.e2e.terminal import convo_tui
from tests.helpers.mcp_client import mcp_session

QDRANT_SESSION = "c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f"


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content if result.structured_content is not None else json.loads(result.content[0].text)


async def _drive(index_dir: Path) -> dict[str, Any]:
    program, *args = convo_tui()
    seen: dict[str, Any] = {}
    async with mcp_session(program, [*args, "mcp", "--index-dir", str(index_dir)], env={**os.environ}) as session:
        await session.initialize()
        seen["tools"] = {tool.name: sorted(tool.input_schema["properties"]) for tool in (await session.list_tools()).tools}
        seen["search"] = _data(await session.call_tool("search", {"query": "qdrant collection", "limit": 3}))
        seen["show"] = _data(await session.call_tool("show_session", {"session_id": QDRANT_SESSION[:8], "last_turn": 0}))
        seen["context"] = _data(
            await session.call_tool("context", {"question": "how do I store bm25", "session_id": QDRANT_SESSION[:8]})
        )
        seen["list"] = _data(await session.call_tool("list_sessions", {"project": "recall"}))
        seen["missing"] = await session.call_tool("show_session", {"session_id": "deadbeef"})
    return seen


def test_mcp_over_stdio_with_the_official_client(demo_folder: Path):
    seen = anyio.run(_drive, demo_folder / "index")
    assert seen["tools"] == {
        "context": ["question", "recent", "refs", "session_id"],
        "context_bundle": ["max_tokens", "mode", "project", "question"],
        "list_sessions": ["limit", "project"],
        "recent_sessions": ["limit", "project"],
        "search": ["after", "before", "limit", "mode", "project", "query", "role", "session_id", "source", "tool"],
        "show_session": ["first_turn", "last_turn", "session_id", "with_tools"],
        "show_turn": ["session_id", "turn_index"],
    }
    assert seen["search"]["hits"][0]["session_id"] == QDRANT_SESSION
    show = seen["show"]
    assert show["session_id"] == QDRANT_SESSION and {m["turn_index"] for m in show["messages"]} == {0}
    assert show["messages"][0]["text"].startswith("How do we set up the Qdrant collection")
    content = seen["context"]["messages"][1]["content"]
    assert content.startswith("Conversation (recent):\nUser: How do we set up the Qdrant collection")
    assert {s["project"] for s in seen["list"]["sessions"]} == {"recall"}
    assert seen["missing"].is_error and seen["missing"].content[0].text.endswith(
        "no session 'deadbeef' in the index (no id starts with it either)"
    )
    with Library.open(Settings(index_dir=demo_folder / "index")):  # the server let go of the index when the agent left
        pass
