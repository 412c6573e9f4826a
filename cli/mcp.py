"""`convo-tui mcp`: a Model Context Protocol server over stdio, for coding agents.

Agents (Claude Code, Cursor, Codex) call its tools to recall past
conversations: `search`, `show_session`, `context`, `list_sessions`. It asks
the index's holder when one runs and holds the index itself otherwise (opened
on the first call, so starting the agent costs nothing). Text leaves redacted
like the app's exports (core/redact.py) unless the settings turn that off.
Built on the official `mcp` SDK (2.x: MCPServer).
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from convo_tui.cli.common import add_store_options, settings_from_args
from convo_tui.core.settings import SEARCH_MODES, Settings

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine
    from convo_tui.core.hits import Hit, SessionSummary

INSTRUCTIONS = (
    "Past conversations between this user and AI coding assistants (Claude Code, Codex, Cursor, ChatGPT...), "
    "indexed on this machine. Use `search` to find earlier discussions, decisions and fixes; `show_session` to read "
    "one; `context` to get an OpenAI chat request body with a session's recent messages and the most relevant past "
    "turns; `list_sessions` to browse. Secrets in the text are masked."
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="run an MCP server over stdio so coding agents can search your past conversations",
        description="Serve the index to AI coding agents over the Model Context Protocol (stdio transport).",
    )
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    tools = RecallTools(settings_from_args(args))
    try:
        build_server(tools).run("stdio")
    finally:
        tools.close()
    return 0


class RecallTools:
    """The tools' logic, over the holder's library or ours (opened on first use)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._library: Engine | None = None
        self._lock = threading.Lock()

    def library(self) -> Engine:
        with self._lock:
            if self._library is None:
                from convo_tui.core.holder.access import attach

                self._library = attach(self.settings, read_only=True)
            return self._library

    def close(self) -> None:
        with self._lock:
            library, self._library = self._library, None
        if library is not None:
            library.close()

    def _clean(self, text: str) -> str:
        if not self.settings.redact:
            return text
        from convo_tui.core.redact import redact

        return redact(text)

    def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        project: str | None = None,
        source: str | None = None,
        after: str | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        if mode not in SEARCH_MODES:
            raise ValueError(f"mode must be one of {', '.join(SEARCH_MODES)}")
        filters = [f'{key}:"{value}"' for key, value in (("project", project), ("source", source)) if value]
        filters += [f"{key}:{value}" for key, value in (("after", after), ("before", before)) if value]
        text = " ".join([query, *filters])
        library = self.library()
        hits = library.search(text, limit=max(1, min(limit, 100)), mode=mode)
        answer: dict[str, Any] = {"hits": [self._hit(hit) for hit in hits]}
        if mode in ("hybrid", "semantic"):  # how much of the history the meaning part searched
            ready = library.readiness()
            answer["coverage"] = {"texts_ready": ready.texts_ready, "texts_total": ready.texts_total}
        return answer

    def _hit(self, hit: Hit) -> dict[str, Any]:
        return {
            "session_id": hit.session_id,
            "title": self._clean(hit.session_title),
            "project": hit.project,
            "source": hit.source,
            "turn_index": hit.turn_index,
            "score": round(hit.score, 4),
            "similarity": round(hit.similarity, 4),
            "stage": hit.stage,
            "timestamp": hit.timestamp.isoformat() if hit.timestamp else None,
            "user_text": self._clean(hit.user_text),
            "ai_text": self._clean(hit.ai_text),
            "tools": hit.tools,
        }

    def show_session(self, session_id: str, first_turn: int | None = None, last_turn: int | None = None) -> dict[str, Any]:
        session = self.library().session(session_id)
        turn_of = {mid: turn.index for turn in session.turns for mid in turn.message_ids}
        low = first_turn if first_turn is not None else -1
        high = last_turn if last_turn is not None else len(session.turns)
        ranged = first_turn is not None or last_turn is not None
        messages = []
        for message in session.messages:
            turn = turn_of.get(message.id)
            if ranged and (turn is None or not low <= turn <= high):
                continue
            messages.append(
                {
                    "turn_index": turn,
                    "role": message.role,
                    "timestamp": message.timestamp.isoformat() if message.timestamp else None,
                    "text": self._clean(message.text),
                    "tools": [tool.name for tool in message.tools],
                }
            )
        return {
            "session_id": session.id,
            "title": self._clean(session.title),
            "project": session.project,
            "source": session.source,
            "started_at": session.started_at.isoformat() if session.started_at else None,
            "updated_at": session.updated_at.isoformat() if session.updated_at else None,
            "turn_count": len(session.turns),
            "messages": messages,
        }

    def context(self, question: str, session_id: str | None = None, recent: int = 10, refs: int = 5) -> dict[str, Any]:
        from convo_tui.core.context import DEFAULT_LLM_MODEL, ChatMessage, request_body

        messages = self.library().context(question, session_id=session_id, recent=max(0, recent), refs=max(0, refs))
        messages = [ChatMessage(m.role, self._clean(m.content)) for m in messages]
        return request_body(DEFAULT_LLM_MODEL, messages)

    def list_sessions(self, project: str | None = None, limit: int = 20) -> dict[str, Any]:
        summaries = self.library().sessions(project or None)[: max(1, limit)]
        return {"sessions": [self._summary(s) for s in summaries]}

    def _summary(self, s: SessionSummary) -> dict[str, Any]:
        data = s.to_json()
        data["title"] = self._clean(s.title)
        data["description"] = self._clean(s.description)
        return data


def build_server(tools: RecallTools) -> Any:
    """The MCPServer with the four tools (typed signatures become their JSON schemas)."""
    from convo_tui.core.errors import ConvoError
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("convo-tui", instructions=INSTRUCTIONS)

    def answer(call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Our one-line errors reach the agent as they are (the SDK hides other exceptions' text)."""
        try:
            return call()
        except (ConvoError, ValueError) as exc:
            raise ToolError(str(exc)) from None

    @server.tool()
    def search(
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        project: str | None = None,
        source: str | None = None,
        after: str | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        """Search past conversations. `query` takes words, "quoted phrases" and filters
        (role:user|ai, tool:NAME, has:tools, session:ID); mode is hybrid, semantic, keyword or fuzzy;
        after/before are YYYY-MM-DD. Each hit is one turn: session id, title, project, turn index,
        score (relevance 0..1, the order), similarity (dense cosine), timestamp, the user's and the AI's text."""
        return answer(lambda: tools.search(query, limit, mode, project, source, after, before))

    @server.tool()
    def show_session(session_id: str, first_turn: int | None = None, last_turn: int | None = None) -> dict[str, Any]:
        """One session's messages, in order (optionally only turns first_turn..last_turn)."""
        return answer(lambda: tools.show_session(session_id, first_turn, last_turn))

    @server.tool()
    def context(question: str, session_id: str | None = None, recent: int = 10, refs: int = 5) -> dict[str, Any]:
        """An OpenAI Chat Completions request body for `question`: a system message, then a user message
        with the session's `recent` last messages and the `refs` most relevant past turns."""
        return answer(lambda: tools.context(question, session_id, recent, refs))

    @server.tool()
    def list_sessions(project: str | None = None, limit: int = 20) -> dict[str, Any]:
        """Indexed sessions, newest first (optionally of one project)."""
        return answer(lambda: tools.list_sessions(project, limit))

    return server
