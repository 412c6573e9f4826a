"""Goose sessions: `sessions.db` (since about 1.10) and the older `<id>.jsonl` files.

Goose (block/goose) keeps its sessions under its data folder (`sessions/`):
a SQLite database with `sessions` (id `YYYYMMDD_N`, name, description,
working_dir, times, session_type, token totals, newer builds a model) and
`messages` (role, `content_json`, `created_timestamp` in seconds,
`metadata_json`), or, before it, one JSONL file per session whose first line
is the session's metadata (working_dir, description, token totals) and every
other line a message. A message's content is a list of blocks: `text`,
`thinking`, `toolRequest` {id, toolCall: {value: {name, arguments}}},
`toolResponse` {id, toolResult: {value: [content] | {content, isError}}} (in
a message of role `user`, but the tool talking), `image` and UI notices.
Messages not shown to the user (`metadata.userVisible` false) are left out;
hidden sessions too. Tokens are kept per session (totals in the meta).
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, is_sqlite, read_text
from convo_tui.core.sources._common import (
    IMAGE,
    Names,
    arguments,
    dict_of,
    head_records,
    json_records,
    list_of,
    result_text,
    str_of,
    to_utc,
    token_count,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, Reply, build_session
from convo_tui.core.sources._sqlite import columns, open_readonly, sniff_columns

SOURCE = "goose"
_QUIET_BLOCKS = Names(
    {
        "redactedThinking",
        "toolConfirmationRequest",
        "actionRequired",
        "systemNotification",
        "contextLengthExceeded",
        "summarizationRequested",
    }
)
_TOKEN_COLUMNS = ("accumulated_input_tokens", "accumulated_output_tokens", "accumulated_total_tokens")
_MAX_MESSAGES = 200_000
SESSION_ID = re.compile(r"[0-9]{8}_[0-9]+")


def sniff(path: Path, head: str) -> bool:
    if head.startswith("SQLite format 3"):
        return sniff_columns(path, head, {"sessions": {"id", "working_dir"}, "messages": {"session_id", "role", "content_json"}})
    if path.is_dir():
        return False
    records = head_records(head, 2)
    if not records:
        return False
    first = records[0]
    return "working_dir" in first and ("message_count" in first or "description" in first) and "role" not in first


def _tool_output(response: dict[str, Any]) -> str:
    result = dict_of(response.get("toolResult"))
    if result.get("status") == "error":
        return str_of(result.get("error"))
    value = result.get("value")
    if isinstance(value, dict):
        value = value.get("content")
    return result_text(value)


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()

    def message(self, role: Any, content: Any, stamp: Any, metadata: dict[str, Any]) -> None:
        if metadata.get("userVisible") is False:
            return
        reply = Reply()
        for block in list_of(content):
            self._block(reply, dict_of(block))
        if role == "user":
            built = reply.message(USER, stamp)
        elif role == "assistant":
            built = reply.message(ASSISTANT, stamp)
        else:
            unknown("event", f"message.{role}")
            return
        if built is not None:
            self.messages.append(built)

    def _block(self, reply: Reply, block: dict[str, Any]) -> None:
        kind = block.get("type")
        if kind == "text":
            reply.texts.append(str_of(block.get("text")))
        elif kind == "thinking":
            reply.thinking.append(str_of(block.get("thinking")))
        elif kind in ("toolRequest", "frontendToolRequest"):
            request = dict_of(block.get("toolCall"))
            value = dict_of(request.get("value"))
            name = str_of(value.get("name")) or "tool"
            call = ToolCall(name, arguments(value.get("arguments")))
            if request.get("status") == "error":
                call.result = str_of(request.get("error"))
            reply.tools.append(self.calls.add(block.get("id"), call))
        elif kind == "toolResponse":
            self.calls.answer(block.get("id"), _tool_output(block))
        elif kind == "image":
            reply.texts.append(IMAGE)
        elif kind not in _QUIET_BLOCKS:
            unknown("part", kind)


def _loaded(value: Any) -> Any:
    if not isinstance(value, (str, bytes)):
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None


def _from_database(path: Path) -> list[Session]:
    sessions: list[Session] = []
    with open_readonly(path) as db:
        try:
            have = columns(db, "sessions")
            wanted = [
                c
                for c in (
                    "id",
                    "name",
                    "description",
                    "working_dir",
                    "created_at",
                    "updated_at",
                    "session_type",
                    "model_config_json",
                    *_TOKEN_COLUMNS,
                )
                if c in have
            ]
            rows = db.execute(f"SELECT {', '.join(wanted)} FROM sessions ORDER BY created_at, id").fetchall()
            for row in rows:
                record = dict(zip(wanted, row, strict=True))
                if record.get("session_type") == "hidden":
                    continue
                messages = db.execute(
                    "SELECT role, content_json, created_timestamp, metadata_json FROM messages "
                    "WHERE session_id = ? ORDER BY created_timestamp, id LIMIT ?",
                    (record.get("id"), _MAX_MESSAGES),
                ).fetchall()
                reader = _Reader()
                for role, content, stamp, metadata in messages:
                    reader.message(role, _loaded(content), to_utc(stamp), dict_of(_loaded(metadata)))
                if reader.messages:
                    sessions.append(_session(path, record, reader.messages, []))
        except sqlite3.Error as exc:
            raise ParseError(path, f"not a readable Goose session database ({exc})") from None
    return sessions


def _session(path: Path, record: dict[str, Any], messages: list[Message], warnings: list[str]) -> Session:
    session_id = str_of(record.get("id")) or path.stem
    totals = {key.removeprefix("accumulated_"): token_count(record.get(key)) for key in _TOKEN_COLUMNS}
    model = str_of(dict_of(_loaded(record.get("model_config_json"))).get("model_name"))
    return build_session(
        path,
        SOURCE,
        session_id,
        messages,
        title=str_of(record.get("name")) or str_of(record.get("description")),
        cwd=record.get("working_dir"),
        project="Goose",
        started=to_utc(record.get("created_at")),
        updated=to_utc(record.get("updated_at")),
        meta={"model": model, "session_usage": {k: v for k, v in totals.items() if v}, "kind": record.get("session_type")},
        resume=resume_command("goose", session_id),
        warnings=warnings,
    )


def _from_jsonl(path: Path) -> list[Session]:
    warnings: list[str] = []
    reader = _Reader()
    header: dict[str, Any] = {}
    for number, line in json_records(path, read_text(path), warnings):
        if number == 1 and "role" not in line:
            header = line
            continue
        reader.message(line.get("role"), line.get("content"), to_utc(line.get("created")), dict_of(line.get("metadata")))
    if not reader.messages:
        return []
    record = {**header, "id": header.get("id") or path.stem}
    return [_session(path, record, reader.messages, warnings)]


def parse(path: Path) -> list[Session]:
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            database = is_sqlite(handle.read(16))
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    return _from_database(path) if database else _from_jsonl(path)


FORMAT = SourceFormat(
    name=SOURCE,
    label="Goose session",
    sniff=sniff,
    parse=parse,
    tool="Goose",
    versions="legacy JSONL (2025) and `sessions.db` schema 5 (goose 1.10 on)",
    places="`$GOOSE_PATH_ROOT/data`, else `$XDG_DATA_HOME/goose` or `~/.local/share/goose` (Linux and macOS), "
    "`%APPDATA%\\Block\\goose\\data` (Windows): `sessions/sessions.db` and `sessions/*.jsonl`",
    resume="`goose session --resume --session-id <id>`",
    keeps="your words, replies, thinking, tool calls with arguments and results (tool output is not your words), "
    "the session's name, folder and token totals; hidden messages and sessions left out",
)
