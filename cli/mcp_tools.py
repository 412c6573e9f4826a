"""What `convo-tui mcp` answers: the tools' logic over an Engine, one public method per tool.

Each method's signature is the tool's JSON schema and its docstring the tool's
description (cli/mcp.py registers them as they are), and `mcp --help` lists
them from the same signatures, so the three never disagree. Sessions are
named by id or by a unique id prefix (8 characters or more). Text leaves
masked like the app's exports (core/redact.py) unless the settings turn that off.
"""

from __future__ import annotations

import inspect
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.cli.common import resolve_session_id
from convo_tui.core.limits import check_count
from convo_tui.core.settings import SEARCH_MODES, Settings

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine
    from convo_tui.core.hits import Hit, SessionSummary
    from convo_tui.core.model import Message, ToolCall

# The tools, in the order `mcp --help` and the server list them.
TOOL_NAMES = (
    "search",
    "show_session",
    "show_turn",
    "recent_sessions",
    "context_bundle",
    "context",
    "list_sessions",
)
RESULT_CHARS = 4000  # a tool's output shown to an agent, per call
MIN_BUNDLE = 200


def current_project(folder: Path | None = None) -> str:
    """The project the agent works in: the name of the folder it started the server in,
    as the sources name projects (the last folder of the session's working directory)."""
    return (folder or Path.cwd()).name


def _clip(text: str, limit: int = RESULT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters)"


class RecallTools:
    """The tools over the holder's engine or ours (opened on first use)."""

    def __init__(self, settings: Settings, engine: Engine | None = None, folder: Path | None = None):
        self.settings = settings
        self._library = engine
        self._folder = folder
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

    def _session_id(self, ident: str) -> str:
        return resolve_session_id(self.library(), ident)

    # -- the tools -----------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        project: str | None = None,
        source: str | None = None,
        after: str | None = None,
        before: str | None = None,
        role: str | None = None,
        tool: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """Search past conversations with AI coding assistants. `query` takes words and "quoted phrases";
        filters: project, source (claude-code, codex, cursor, gemini-cli, opencode, ...), after/before
        (YYYY-MM-DD, or 7d / 2w / 3m back from today), role (user or ai), tool (a tool name the AI called),
        session_id (an id or a unique prefix). mode: hybrid, semantic, keyword or fuzzy. Each hit is one turn:
        session id, title, project, turn index, score (relevance 0..1), stage (what placed it: keyword, meaning,
        both, exact, fuzzy), timestamp, the user's and the AI's text; coverage: texts searchable by meaning so far."""
        from convo_tui.core.errors import shown
        from convo_tui.core.search.query import session_filter

        if mode not in SEARCH_MODES:
            raise ValueError(f"mode must be one of {', '.join(SEARCH_MODES)} (got {shown(mode, 40)})")
        if role not in (None, "", "user", "ai"):
            raise ValueError(f"role must be user or ai (got {shown(role, 40)})")
        limit = check_count("limit", limit, minimum=1)
        named = (("project", project), ("source", source), ("tool", tool), ("after", after), ("before", before))
        for key, value in named:
            if value is not None and '"' in value:
                raise ValueError(f"{key} must not contain a double quote (got {shown(value, 60)})")
        filters = [f'{key}:"{value}"' for key, value in named if value]
        if role:
            filters.append(f"role:{role}")
        if session_id:
            filters.append(session_filter(self._session_id(session_id)))
        library = self.library()
        hits = library.search(" ".join([query, *filters]), limit=limit, mode=mode)
        answer: dict[str, Any] = {"hits": [self._hit(hit) for hit in hits]}
        if mode in ("hybrid", "semantic"):  # how much of the history the meaning part searched
            ready = library.readiness()
            answer["coverage"] = {"texts_ready": ready.texts_ready, "texts_total": ready.texts_total}
        return answer

    def show_session(
        self, session_id: str, first_turn: int | None = None, last_turn: int | None = None, with_tools: bool = False
    ) -> dict[str, Any]:
        """One session's messages in order (optionally only turns first_turn..last_turn). `session_id` is an id
        or a unique prefix of 8+ characters. `with_tools` adds each tool call's arguments and result (clipped)."""
        for name, value in (("first_turn", first_turn), ("last_turn", last_turn)):
            if value is not None:
                check_count(name, value)
        session = self.library().session(self._session_id(session_id))
        turn_of = {mid: turn.index for turn in session.turns for mid in turn.message_ids}
        low = first_turn if first_turn is not None else -1
        high = last_turn if last_turn is not None else len(session.turns)
        ranged = first_turn is not None or last_turn is not None
        messages = []
        for message in session.messages:
            turn = turn_of.get(message.id)
            if ranged and (turn is None or not low <= turn <= high):
                continue
            messages.append(self._message(message, turn, with_tools=with_tools, thinking=False))
        return {
            "session_id": session.id,
            "title": self._clean(session.title),
            "project": session.project,
            "source": session.source,
            "cwd": session.cwd,
            "started_at": session.started_at.isoformat() if session.started_at else None,
            "updated_at": session.updated_at.isoformat() if session.updated_at else None,
            "turn_count": len(session.turns),
            "messages": messages,
        }

    def show_turn(self, session_id: str, turn_index: int) -> dict[str, Any]:
        """One turn whole: the user's messages, the AI's answer with its thinking, and every tool call with
        its arguments and result (clipped). `session_id` is an id or a unique prefix of 8+ characters;
        turn_index comes from a search hit."""
        session = self.library().session(self._session_id(session_id))
        if not 0 <= turn_index < len(session.turns):
            raise ValueError(f"session {session.id} has turns 0 to {len(session.turns) - 1}, not {turn_index}")
        turn = session.turns[turn_index]
        messages = [m for m in (session.message(i) for i in turn.message_ids) if m is not None]
        return {
            "session_id": session.id,
            "title": self._clean(session.title),
            "project": session.project,
            "turn_index": turn_index,
            "turn_count": len(session.turns),
            "timestamp": turn.timestamp.isoformat() if turn.timestamp else None,
            "messages": [self._message(m, turn_index, with_tools=True, thinking=True) for m in messages],
        }

    def recent_sessions(self, project: str | None = None, limit: int = 10) -> dict[str, Any]:
        """The newest sessions of the current project: by default the folder this server was started in
        (coding agents start it in the project they work on); `project` names another one."""
        name = project or current_project(self._folder)
        limit = check_count("limit", limit, minimum=1)
        summaries = self.library().sessions(name, limit)
        return {"project": name, "sessions": [self._summary(s) for s in summaries]}

    def context_bundle(
        self, question: str, max_tokens: int = 4000, project: str | None = None, mode: str = "hybrid"
    ) -> dict[str, Any]:
        """A prompt-sized Markdown bundle of the past turns most relevant to `question`, fitted to
        `max_tokens` (estimated; at least 200), each turn headed by its session id and turn index so it can
        be opened with show_turn. `project` limits it to one project."""
        from convo_tui.core.bundle import context_bundle

        if max_tokens < MIN_BUNDLE:
            raise ValueError(f"max_tokens must be at least {MIN_BUNDLE}")
        if mode not in SEARCH_MODES:
            raise ValueError(f"mode must be one of {', '.join(SEARCH_MODES)}")
        filters = f'project:"{project}"' if project else ""
        bundle = context_bundle(self.library(), question, max_tokens, filters=filters, mode=mode, shown=self._clean)
        return {"max_tokens": max_tokens, **bundle.to_json()}

    def context(self, question: str, session_id: str | None = None, recent: int = 10, refs: int = 5) -> dict[str, Any]:
        """An OpenAI Chat Completions request body for `question`: a system message, then a user message
        with the session's `recent` last messages and the `refs` most relevant past turns."""
        from convo_tui.core.context import DEFAULT_LLM_MODEL, ChatMessage, request_body

        sid = self._session_id(session_id) if session_id else None
        recent, refs = check_count("recent", recent), check_count("refs", refs)
        messages = self.library().context(question, session_id=sid, recent=recent, refs=refs)
        messages = [ChatMessage(m.role, self._clean(m.content)) for m in messages]
        return request_body(DEFAULT_LLM_MODEL, messages)

    def list_sessions(self, project: str | None = None, limit: int = 20) -> dict[str, Any]:
        """Indexed sessions, newest first (optionally of one project)."""
        limit = check_count("limit", limit, minimum=1)
        summaries = self.library().sessions(project or None, limit)
        return {"sessions": [self._summary(s) for s in summaries]}

    # -- shapes ------------------------------------------------------------------------------

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

    def _tool(self, tool: ToolCall) -> dict[str, Any]:
        import json

        return {
            "name": tool.name,
            "args": _clip(self._clean(json.dumps(tool.args, ensure_ascii=False))),
            "result": _clip(self._clean(tool.result)),
        }

    def _message(self, message: Message, turn: int | None, *, with_tools: bool, thinking: bool) -> dict[str, Any]:
        shaped: dict[str, Any] = {
            "turn_index": turn,
            "role": message.role,
            "timestamp": message.timestamp.isoformat() if message.timestamp else None,
            "text": self._clean(message.text),
        }
        if thinking and message.thinking:
            shaped["thinking"] = _clip(self._clean(message.thinking))
        shaped["tools"] = [self._tool(t) for t in message.tools] if with_tools else [t.name for t in message.tools]
        return shaped

    def _summary(self, s: SessionSummary) -> dict[str, Any]:
        data = s.to_json()
        data["title"] = self._clean(s.title)
        data["description"] = self._clean(s.description)
        return data


def tool_methods(tools: RecallTools) -> list[Callable[..., dict[str, Any]]]:
    return [getattr(tools, name) for name in TOOL_NAMES]


def tools_help() -> str:
    """The tools and their arguments, from the methods' own signatures (for `mcp --help`)."""
    lines = ["tools (arguments; = default):"]
    for name in TOOL_NAMES:
        method = getattr(RecallTools, name)
        params = []
        for param in list(inspect.signature(method).parameters.values())[1:]:
            params.append(param.name if param.default is inspect.Parameter.empty else f"{param.name}={param.default!r}")
        doc = " ".join((method.__doc__ or "").split())
        first = doc.split(". ")[0].rstrip(".")
        signature = f"  {name}({', '.join(params)})"
        lines.append(textwrap.fill(signature, 80, subsequent_indent=" " * (len(name) + 3), break_long_words=False))
        lines.append(textwrap.fill(f"{first}.", 80, initial_indent=" " * 6, subsequent_indent=" " * 6))
    return "\n".join(lines)
