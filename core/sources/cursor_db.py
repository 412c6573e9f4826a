"""Cursor IDE chats: the `state.vscdb` SQLite database under Cursor's user folder.

Most of Cursor's history lives here, not in the agent transcripts. One database
holds every chat ("composer"): `cursorDiskKV` rows `composerData:<id>` (name,
createdAt, the ordered `fullConversationHeadersOnly` [{bubbleId, type}]) and
`bubbleId:<composer>:<bubble>` (type 1 user / 2 AI, `text`, `thinking`,
`toolFormerData` {name, params or rawArgs, result}). Older composers keep their
bubbles inline in `conversation`. Which folder a chat belongs to is recorded
per workspace: `workspaceStorage/<hash>/state.vscdb` lists the composers of the
folder named in `workspaceStorage/<hash>/workspace.json`.

The database is opened read-only and never locked (see `_sqlite`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.sources import SourceFormat
from convo_tui.core.sources._common import clip_result, dict_of, to_utc
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import build_session
from convo_tui.core.sources._sqlite import open_readonly, sniff_tables

SOURCE = "cursor-ide"
_USER_TYPE = 1
_AI_TYPE = 2


def sniff(path: Path, head: str) -> bool:
    if not sniff_tables(path, head, {"cursorDiskKV"}):
        return False
    try:
        with open_readonly(path) as db:
            row = db.execute("SELECT 1 FROM cursorDiskKV WHERE key LIKE 'composerData:%' LIMIT 1").fetchone()
    except (ParseError, sqlite3.Error):
        return False
    return row is not None


def _json(value: Any) -> Any:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str) or not value:
        return None
    try:
        return json.loads(value)
    except (json.JSONDecodeError, RecursionError):
        return None


def _file_uri_path(uri: str) -> str:
    """`file:///home/a/b` -> `/home/a/b`; `file:///c%3A/Users/a` -> `c:/Users/a`."""
    parsed = urlparse(uri)
    path = unquote(parsed.path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":
        path = path[1:]  # a Windows drive
    return path


def workspace_folders(global_db: Path) -> dict[str, str]:
    """composer id -> folder, from the per-workspace databases beside the global one."""
    storage = global_db.absolute().parent.parent / "workspaceStorage"
    found: dict[str, str] = {}
    try:
        workspaces = sorted(p for p in storage.iterdir() if p.is_dir())
    except OSError:
        return found
    for workspace in workspaces:
        try:
            described = json.loads((workspace / "workspace.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        uri = described.get("folder") or described.get("workspace") if isinstance(described, dict) else None
        database = workspace / "state.vscdb"
        if not isinstance(uri, str) or not database.is_file():
            continue
        folder = _file_uri_path(uri)
        try:
            with open_readonly(database) as db:
                row = db.execute("SELECT value FROM ItemTable WHERE key = 'composer.composerData'").fetchone()
        except Exception:
            continue
        data = _json(row[0]) if row else None
        for composer in data.get("allComposers", []) if isinstance(data, dict) else []:
            if isinstance(composer, dict) and isinstance(composer.get("composerId"), str):
                found.setdefault(composer["composerId"], folder)
    return found


def _tool(data: dict[str, Any]) -> ToolCall | None:
    former = data.get("toolFormerData")
    if not isinstance(former, dict) or not former.get("name"):
        return None
    args = _json(former.get("params")) or _json(former.get("rawArgs"))
    if not isinstance(args, dict):
        raw = former.get("rawArgs") or former.get("params")
        args = {"input": raw} if raw else {}
    result = former.get("result")
    if not isinstance(result, str):
        result = json.dumps(result, ensure_ascii=False) if result is not None else ""
    return ToolCall(str(former["name"]), args, clip_result(result))


def _thinking(data: dict[str, Any]) -> str:
    thinking = data.get("thinking")
    if isinstance(thinking, dict):
        return str(thinking.get("text") or "").strip()
    return thinking.strip() if isinstance(thinking, str) else ""


def _messages(bubbles: list[dict[str, Any]]) -> list[Message]:
    """User bubbles one message each; a run of AI bubbles one reply, as the panel shows it."""
    messages: list[Message] = []
    for data in bubbles:
        kind = data.get("type")
        timing = dict_of(data.get("timingInfo"))
        stamp = to_utc(data.get("createdAt")) or to_utc(timing.get("clientStartTime"))
        text = str(data.get("text") or "").strip()
        if kind == _USER_TYPE:
            if text:
                messages.append(Message(id="", role=USER, text=text, timestamp=stamp))
            continue
        if kind != _AI_TYPE:
            unknown("record", f"bubble type {kind}")
            continue
        thinking = _thinking(data)
        tool = _tool(data)
        if not (text or thinking or tool):
            continue
        if not messages or messages[-1].role != ASSISTANT:
            messages.append(Message(id="", role=ASSISTANT, text="", timestamp=stamp))
        reply = messages[-1]
        reply.text = "\n\n".join(p for p in (reply.text, text) if p)
        reply.thinking = "\n\n".join(p for p in (reply.thinking, thinking) if p)
        if tool:
            reply.tools.append(tool)
    return messages


def _bubbles(db: sqlite3.Connection, composer_id: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    inline = data.get("conversation")
    if isinstance(inline, list) and inline:
        return [b for b in inline if isinstance(b, dict)]
    rows = db.execute(
        "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid",
        (f"bubbleId:{composer_id}:", f"bubbleId:{composer_id};"),
    ).fetchall()
    by_id: dict[str, dict[str, Any]] = {}
    for key, value in rows:
        bubble = _json(value)
        if isinstance(bubble, dict):
            by_id[str(key).rsplit(":", 1)[-1]] = bubble
    headers = data.get("fullConversationHeadersOnly")
    if isinstance(headers, list) and headers:
        ordered = [by_id.get(str(h.get("bubbleId"))) for h in headers if isinstance(h, dict)]
        return [b for b in ordered if b is not None]
    return list(by_id.values())


def _header_folders(db: sqlite3.Connection) -> dict[str, str]:
    """composer id -> folder from the `composerHeaders` table newer Cursor builds keep."""
    try:
        rows = db.execute("SELECT composerId, value FROM composerHeaders").fetchall()
    except sqlite3.Error:
        return {}
    found = {}
    for composer_id, value in rows:
        head = _json(value)
        uri = head.get("workspaceIdentifier", {}).get("uri", {}) if isinstance(head, dict) else {}
        if isinstance(uri, dict) and isinstance(uri.get("fsPath"), str):
            found[str(composer_id)] = uri["fsPath"]
    return found


def parse(path: Path) -> list[Session]:
    path = Path(path)
    folders = workspace_folders(path)
    sessions: list[Session] = []
    warnings: list[str] = []
    with open_readonly(path) as db:
        folders = {**folders, **_header_folders(db)}
        rows = db.execute("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY rowid").fetchall()
        for key, value in rows:
            composer_id = str(key).split(":", 1)[1]
            data = _json(value)
            if not isinstance(data, dict):
                warnings.append(f"{path}: chat {composer_id} is not readable JSON, skipped")
                continue
            messages = _messages(_bubbles(db, composer_id, data))
            if not messages:
                continue  # drafts and empty chats
            session = build_session(  # no resume: the IDE has no command that reopens one chat
                path,
                SOURCE,
                composer_id,
                messages,
                title=data.get("name"),
                cwd=folders.get(composer_id),
                project="Cursor",
                started=to_utc(data.get("createdAt")),
                updated=to_utc(data.get("lastUpdatedAt")),
                meta={"mode": data.get("unifiedMode") if isinstance(data.get("unifiedMode"), str) else None},
            )
            sessions.append(session)
    if sessions:
        sessions[0].warnings.extend(warnings)
    return sessions


FORMAT = SourceFormat(
    name=SOURCE,
    label="Cursor IDE chat database",
    sniff=sniff,
    parse=parse,
    tool="Cursor IDE",
    versions="`cursorDiskKV` composer data and bubbles of 2025 – 2026",
    places="`<Cursor app dir>/User/globalStorage/state.vscdb`; folders from `workspaceStorage/*/`",
    resume="none (the IDE has no command for one chat)",
    keeps="one database, many chats; opened read-only and never locked (a write-ahead log is read from a private copy); thinking, tool calls with params and results",
)
