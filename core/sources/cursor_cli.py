"""Cursor CLI chat stores (`~/.cursor/chats/<md5 of folder>/<chat id>/store.db`).

`cursor-agent` keeps each chat in a content-addressed SQLite store: `meta`
(one row `"0"` whose value is the hex of a JSON object {agentId,
latestRootBlobId, name, mode, createdAt, lastUsedModel}; some builds keep
plain key/value rows) and `blobs` (id = sha256 of data). The blob named by
`latestRootBlobId` is a protobuf listing the chat: field 1 repeats the ids
(32 raw bytes) of the message blobs in order, field 9 is the workspace URI.
Message blobs are JSON chat messages in the AI SDK's shape: `user` (the
words inside `<user_query>`; `<user_info>` blocks are the environment, not
the user), `assistant` (text, `reasoning`, `tool-call` {toolCallId,
toolName, args}), `tool` (`tool-result` {toolCallId, result}); `system` is
skipped. When the root cannot be read the message blobs are taken in the
order they were stored. Closed source: the shape follows several
independent public readers (the part keys of tool calls least surely).
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat
from convo_tui.core.sources._common import (
    arguments,
    dict_of,
    file_mtime,
    list_of,
    result_text,
    str_of,
    to_utc,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import UUID, Calls, Reply, build_session
from convo_tui.core.sources._sqlite import open_readonly, sniff_columns

SOURCE = "cursor-cli"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
_CONTEXT = re.compile(r"<(user_info|system_reminder|attached_files|open_and_recently_viewed_files)>.*?</\1>", re.DOTALL)
_MAX_BLOBS = 50_000


def sniff(path: Path, head: str) -> bool:
    return sniff_columns(path, head, {"meta": {"key", "value"}, "blobs": {"id", "data"}})


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data) and shift < 64:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
    raise ValueError("truncated varint")


def root_fields(data: bytes) -> tuple[list[str], str]:
    """(message blob ids, workspace URI) from a root blob's protobuf fields 1 and 9."""
    ids: list[str] = []
    workspace = ""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, at = _varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            size, at = _varint(data, at)
            value = data[at : at + size]
            at += size
            if number == 1 and len(value) == 32:
                ids.append(value.hex())
            elif number == 9 and not workspace:
                workspace = value.decode("utf-8", errors="replace")
        else:
            raise ValueError(f"protobuf wire type {wire}")
    if at != len(data):
        raise ValueError("truncated field")
    return ids, workspace


def _meta(db: sqlite3.Connection) -> dict[str, Any]:
    rows = db.execute("SELECT key, value FROM meta").fetchall()
    plain = {str(key): value for key, value in rows}
    raw = plain.get("0")
    if isinstance(raw, (str, bytes)):
        try:
            decoded = json.loads(bytes.fromhex(raw.decode() if isinstance(raw, bytes) else raw))
        except (ValueError, UnicodeDecodeError, RecursionError):
            decoded = None
        if isinstance(decoded, dict):
            return decoded
    return plain


def _json_blob(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, (bytes, str)) or not data or (data[:1] not in (b"{", "{")):
        return None
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) and "role" in value else None


def _ordered_messages(
    db: sqlite3.Connection, meta: dict[str, Any], warnings: list[str], path: Path
) -> tuple[list[dict[str, Any]], str]:
    root_id = meta.get("latestRootBlobId")
    row = db.execute("SELECT data FROM blobs WHERE id = ?", (root_id,)).fetchone() if isinstance(root_id, str) else None
    if row is not None and isinstance(row[0], bytes):
        try:
            ids, workspace = root_fields(row[0])
        except ValueError as exc:
            warnings.append(f"{path}: the chat's root blob is not readable ({exc}); messages taken in stored order")
        else:
            found = []
            for blob_id in ids:
                blob = db.execute("SELECT data FROM blobs WHERE id = ?", (blob_id,)).fetchone()
                message = _json_blob(blob[0]) if blob else None
                if message is not None:
                    found.append(message)
            return found, workspace
    rows = db.execute("SELECT data FROM blobs ORDER BY rowid LIMIT ?", (_MAX_BLOBS,)).fetchall()
    return [m for m in (_json_blob(r[0]) for r in rows) if m is not None], ""


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()

    def message(self, message: dict[str, Any]) -> None:
        role, content = message.get("role"), message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else [dict_of(p) for p in list_of(content)]
        if role == "user":
            self._user(parts)
        elif role == "assistant":
            self._assistant(parts)
        elif role == "tool":
            for part in parts:
                if part.get("type") == "tool-result":
                    self.calls.answer(part.get("toolCallId"), result_text(part.get("result", part.get("output"))))
        elif role != "system":
            unknown("event", f"message.{role}")

    def _user(self, parts: list[dict[str, Any]]) -> None:
        texts: list[str] = []
        for part in parts:
            text = str_of(part.get("text"))
            query = _QUERY.findall(text)
            texts.extend(query if query else [_CONTEXT.sub("", text)])
        words = "\n\n".join(t.strip() for t in texts if t.strip())
        if words:
            self.messages.append(Message(id="", role=USER, text=words, timestamp=None))

    def _assistant(self, parts: list[dict[str, Any]]) -> None:
        reply = Reply()
        for part in parts:
            kind = part.get("type")
            if kind == "text":
                reply.texts.append(str_of(part.get("text")))
            elif kind == "reasoning":
                reply.thinking.append(str_of(part.get("text")) or str_of(part.get("reasoning")))
            elif kind == "tool-call":
                call = ToolCall(str_of(part.get("toolName")) or "tool", arguments(part.get("args", part.get("input"))))
                reply.tools.append(self.calls.add(part.get("toolCallId"), call))
            else:
                unknown("part", kind)
        built = reply.message(ASSISTANT, None)
        if built is not None:
            self.messages.append(built)


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    reader = _Reader()
    with open_readonly(path) as db:
        try:
            meta = _meta(db)
            messages, workspace = _ordered_messages(db, meta, warnings, path)
        except sqlite3.Error as exc:
            raise ParseError(path, f"not a readable Cursor CLI chat store ({exc})") from None
    for message in messages:
        reader.message(message)
    if not reader.messages:
        return []
    folder = path.absolute().parent.name
    session_id = folder if UUID.fullmatch(folder) else str_of(meta.get("agentId")) or folder
    cwd = unquote(urlparse(workspace).path) if workspace.startswith("file:") else workspace or None
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            title=meta.get("name"),
            cwd=cwd,
            project="Cursor CLI",
            started=to_utc(meta.get("createdAt")),
            updated=file_mtime(path),
            meta={"model": meta.get("lastUsedModel"), "mode": meta.get("mode")},
            resume=resume_command("cursor-agent", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Cursor CLI chat store",
    sniff=sniff,
    parse=parse,
    tool="Cursor CLI",
    versions="cursor-agent chat stores of 2025-11 – 2026-06 (closed source: several public readers agree)",
    places="`~/.cursor/chats/<hash>/<chat id>/store.db` (`%USERPROFILE%\\.cursor\\chats`)",
    resume="`cursor-agent --resume <id>`",
    keeps="your words inside `<user_query>` (the environment block dropped), replies, reasoning as thinking, tool "
    "calls with arguments and results, the chat's name, folder and model; no per-message times",
)
