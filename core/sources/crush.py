"""Crush sessions (`<project>/.crush/crush.db`).

Crush (charmbracelet/crush) keeps one SQLite database per project: `sessions`
(id, parent_session_id, title, token and cost totals, times in milliseconds
or, after an update, seconds) and `messages` (role user | assistant | tool |
system, `parts` JSON, model). Parts are `{type, data}`: `text`, `reasoning`
(thinking), `tool_call` {id, name, input as JSON text}, `tool_result`
{tool_call_id, content, is_error} (in `tool` messages), `finish`,
`image_url`, `binary` and `shell_command` (a `!` command the user ran).
Title-generation sessions (`title-<id>`) are Crush's own, not yours; a
sub-agent's session (`parent_session_id`) stands as a session of its own.
The project is the folder holding `.crush`. Tokens are session totals.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat
from convo_tui.core.sources._common import (
    IMAGE,
    Names,
    arguments,
    dict_of,
    list_of,
    result_text,
    str_of,
    to_utc,
    token_count,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, Reply, build_session
from convo_tui.core.sources._sqlite import columns, open_readonly, sniff_columns

SOURCE = "crush"
_QUIET = Names({"finish"})
_MAX_MESSAGES = 200_000


def sniff(path: Path, head: str) -> bool:
    return sniff_columns(
        path, head, {"sessions": {"id", "title", "parent_session_id"}, "messages": {"session_id", "role", "parts"}}
    )


def _parts(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, (str, bytes)):
        return []
    try:
        parts = json.loads(value)
    except (ValueError, RecursionError):
        return []
    return [dict_of(p) for p in list_of(parts)]


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()

    def message(self, role: Any, parts: list[dict[str, Any]], model: Any, stamp: Any) -> None:
        if role == "tool":
            for part in parts:
                data = dict_of(part.get("data"))
                if part.get("type") == "tool_result":
                    self.calls.answer(data.get("tool_call_id"), result_text(data.get("content")))
            return
        if role not in ("user", "assistant"):
            if role != "system":
                unknown("event", f"message.{role}")
            return
        reply = Reply()
        for part in parts:
            self._part(reply, part.get("type"), dict_of(part.get("data")))
        built = reply.message(USER if role == "user" else ASSISTANT, stamp, {"model": model} if role == "assistant" else None)
        if built is not None:
            self.messages.append(built)

    def _part(self, reply: Reply, kind: Any, data: dict[str, Any]) -> None:
        if kind == "text":
            reply.texts.append(str_of(data.get("text")))
        elif kind == "reasoning":
            reply.thinking.append(str_of(data.get("thinking")))
        elif kind == "tool_call":
            call = ToolCall(str_of(data.get("name")) or "tool", arguments(data.get("input")))
            reply.tools.append(self.calls.add(data.get("id"), call))
        elif kind == "image_url":
            reply.texts.append(IMAGE)
        elif kind == "binary":
            reply.texts.append(f"[file: {str_of(data.get('path')) or 'attachment'}]")
        elif kind == "shell_command":
            reply.texts.append(f"!{str_of(data.get('command'))}")
        elif kind not in _QUIET:
            unknown("part", kind)


def project_folder(path: Path) -> str | None:
    folder = path.absolute().parent
    return str(folder.parent) if folder.name == ".crush" else None


def parse(path: Path) -> list[Session]:
    path = Path(path)
    sessions: list[Session] = []
    cwd = project_folder(path)
    with open_readonly(path) as db:
        try:
            summary = "is_summary_message" in columns(db, "messages")
            rows = db.execute(
                "SELECT id, parent_session_id, title, prompt_tokens, completion_tokens, cost, created_at, updated_at "
                "FROM sessions ORDER BY created_at, rowid"
            ).fetchall()
            for session_id, parent, title, prompt, completion, cost, created, updated in rows:
                if not isinstance(session_id, str) or session_id.startswith("title-"):
                    continue
                skip = " AND is_summary_message = 0" if summary else ""
                messages = db.execute(
                    f"SELECT role, parts, model, created_at FROM messages WHERE session_id = ?{skip} "
                    "ORDER BY created_at, rowid LIMIT ?",
                    (session_id, _MAX_MESSAGES),
                ).fetchall()
                reader = _Reader()
                for role, parts, model, stamp in messages:
                    reader.message(role, _parts(parts), model, to_utc(stamp))
                if not reader.messages:
                    continue
                usage = {"prompt_tokens": token_count(prompt), "completion_tokens": token_count(completion)}
                sessions.append(
                    build_session(
                        path,
                        SOURCE,
                        session_id,
                        reader.messages,
                        title=title,
                        cwd=cwd,
                        project="Crush",
                        started=to_utc(created),
                        updated=to_utc(updated),
                        meta={
                            "session_usage": {k: v for k, v in usage.items() if v},
                            "cost": cost if isinstance(cost, float) and cost > 0 else None,
                            "parent_session": parent,
                        },
                        resume=resume_command("crush", session_id) if cwd else None,
                    )
                )
        except sqlite3.Error as exc:
            raise ParseError(path, f"not a readable Crush database ({exc})") from None
    return sessions


FORMAT = SourceFormat(
    name=SOURCE,
    label="Crush project database",
    sniff=sniff,
    parse=parse,
    tool="Crush",
    versions="database migrations up to 2026-01 (crush source of 2026-08)",
    places="`.crush/crush.db` in each project (add the project to `sources`)",
    resume="`crush --session <id>`",
    keeps="your words and `!` commands, replies, thinking, tool calls with inputs and results, model; session "
    "titles, sub-agent sessions apart, token totals per session",
)
