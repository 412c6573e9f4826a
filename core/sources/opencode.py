"""OpenCode sessions: `opencode.db` (SQLite, OpenCode 1.2 on) and the older JSON storage.

Both hold the same three records. A session (`id`, `directory`, `title`,
times in ms, `parentID` for a sub-agent's session), its messages (`role`,
`time.created`, model) and each message's parts: `text` (with `synthetic`
for text OpenCode wrote itself), `reasoning`, `tool` (`tool`, `state.input`,
`state.output`), `file`, and bookkeeping (`step-start`, `step-finish`,
`snapshot`, `patch`). The database keeps each record's JSON in a `data`
column; the older storage keeps one file per record:
`storage/session/<project>/<session>.json`, `storage/message/<session>/*.json`
and `storage/part/<message>/*.json`. The session file is the unit read.

Token usage: each model request of an answer ends in a `step-finish` part with
`tokens: {input, output, reasoning, cache: {read, write}}` (`input` without
the cache); the message's own `tokens` is only the last request's, so the
steps are added up, and the message's count is the fallback. Since OpenCode
writes `tokens.total`, `output` leaves the reasoning out; before, it held it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Role, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    add_usage,
    clip,
    clip_result,
    dict_of,
    folder_name,
    load_json,
    number_messages,
    title_from_messages,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._sqlite import open_readonly, sniff_tables

SOURCE = "opencode"
_SESSION_JSON = re.compile(r'"id"\s*:\s*"ses_[^"]*"')
_ROLES: dict[str, Role] = {"user": USER, "assistant": ASSISTANT}
# Parts that mark steps or carry state, not words: `step-finish` is read for tokens.
_QUIET_PARTS = Names({"step-start", "step-finish", "snapshot", "patch", "agent", "subtask", "compaction", "retry"})


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    if head.startswith("SQLite format 3"):
        return sniff_tables(path, head, {"session", "message", "part"})
    text = head.lstrip()
    return text.startswith("{") and bool(_SESSION_JSON.search(text)) and ('"projectID"' in text or '"directory"' in text)


def _json(value: Any) -> Any:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    try:
        return json.loads(value) if isinstance(value, str) else None
    except (json.JSONDecodeError, RecursionError):
        return None


def _created(record: dict[str, Any]) -> Any:
    time = record.get("time")
    return time.get("created") if isinstance(time, dict) else None


def _step_usage(tokens: Any) -> dict[str, int]:
    """OpenCode's `tokens` as an Anthropic-style usage object (cache counts apart from input)."""
    if not isinstance(tokens, dict):
        return {}
    cache = tokens.get("cache")
    if not isinstance(cache, dict):
        cache = {}
    output = token_count(tokens.get("output"))
    if "total" in tokens:  # newer OpenCode: `output` without the reasoning
        output += token_count(tokens.get("reasoning"))
    return usage_of(
        input_tokens=token_count(tokens.get("input")),
        cache_read_input_tokens=token_count(cache.get("read")),
        cache_creation_input_tokens=token_count(cache.get("write")),
        output_tokens=output,
    )


def _usage(info: dict[str, Any], parts: list[dict[str, Any]]) -> dict[str, int]:
    usage: dict[str, int] = {}
    for part in parts:
        if part.get("type") == "step-finish":
            usage = add_usage(usage, _step_usage(part.get("tokens")))
    return usage or _step_usage(info.get("tokens"))


def _message(info: dict[str, Any], parts: list[dict[str, Any]]) -> Message | None:
    role = _ROLES.get(str(info.get("role")))
    if role is None:
        return None
    texts: list[str] = []
    thinking: list[str] = []
    tools: list[ToolCall] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            if not part.get("synthetic") and not part.get("ignored"):
                texts.append(part["text"])
        elif kind == "reasoning" and isinstance(part.get("text"), str):
            thinking.append(part["text"])
        elif kind == "tool":
            state = dict_of(part.get("state"))
            args = dict_of(state.get("input"))
            output = state.get("output") if state.get("status") == "completed" else state.get("error")
            tools.append(ToolCall(str(part.get("tool") or "tool"), args, clip_result(output) if isinstance(output, str) else ""))
        elif kind == "file":
            texts.append(f"[file: {part.get('filename') or part.get('url') or 'attachment'}]")
        elif kind not in _QUIET_PARTS:
            unknown("part", kind)
    text = "\n\n".join(t.strip() for t in texts if t.strip())
    reasoning = "\n\n".join(t.strip() for t in thinking if t.strip())
    if not (text or reasoning or tools):
        return None
    model = info.get("modelID")
    if not model and isinstance(info.get("model"), dict):
        model = info["model"].get("modelID")
    meta: dict[str, Any] = {"model": model} if isinstance(model, str) and model else {}
    usage = _usage(info, parts) if role == ASSISTANT else {}
    if usage:
        meta["usage"] = usage
    return Message(
        id="",
        role=role,
        text=text,
        thinking=reasoning if role == ASSISTANT else "",
        timestamp=to_utc(_created(info)),
        tools=tools if role == ASSISTANT else [],
        meta=meta,
    )


def _session(info: dict[str, Any], messages: list[Message], path: Path) -> Session | None:
    if not messages:
        return None
    number_messages(messages)
    session_id = str(info.get("id"))
    cwd = info.get("directory") if isinstance(info.get("directory"), str) and info.get("directory") else None
    title = info.get("title")
    default_title = isinstance(title, str) and title.startswith(("New session - ", "Child session - "))
    session = Session(
        id=session_id,
        title=clip(title)
        if isinstance(title, str) and title.strip() and not default_title
        else title_from_messages(messages, session_id),
        project=folder_name(cwd) if cwd else "OpenCode",
        source=SOURCE,
        path=str(path),
        messages=messages,
        started_at=to_utc(_created(info)),
        updated_at=to_utc((info.get("time") or {}).get("updated") if isinstance(info.get("time"), dict) else None),
        meta={"parent": info["parentID"]} if info.get("parentID") else {},
        cwd=cwd,
        resume=resume_command("opencode", session_id),
    )
    session.fill_times()
    return session


# -- the SQLite database ------------------------------------------------------


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}


def _parse_db(path: Path) -> list[Session]:
    sessions: list[Session] = []
    with open_readonly(path) as db:
        columns = _columns(db, "session")
        wanted = [c for c in ("id", "directory", "title", "parent_id", "time_created", "time_updated") if c in columns]
        rows = db.execute(
            f"SELECT {', '.join(wanted)} FROM session ORDER BY {'time_created' if 'time_created' in columns else 'id'}"
        ).fetchall()
        for row in rows:
            record = dict(zip(wanted, row, strict=True))
            info = {
                "id": record["id"],
                "directory": record.get("directory"),
                "title": record.get("title"),
                "parentID": record.get("parent_id"),
                "time": {"created": record.get("time_created"), "updated": record.get("time_updated")},
            }
            parts: dict[str, list[dict[str, Any]]] = {}
            for message_id, data in db.execute(
                "SELECT message_id, data FROM part WHERE session_id = ? ORDER BY id", (record["id"],)
            ):
                part = _json(data)
                if isinstance(part, dict):
                    parts.setdefault(str(message_id), []).append(part)
            messages = []
            order = "time_created, id" if "time_created" in _columns(db, "message") else "id"
            for message_id, data in db.execute(
                f"SELECT id, data FROM message WHERE session_id = ? ORDER BY {order}", (record["id"],)
            ):
                message_info = _json(data)
                if isinstance(message_info, dict):
                    message = _message(message_info, parts.get(str(message_id), []))
                    if message is not None:
                        messages.append(message)
            session = _session(info, messages, path)
            if session is not None:
                sessions.append(session)
    return sessions


# -- the older JSON storage -----------------------------------------------------


def _load(path: Path) -> Any:
    try:
        return json.loads(read_text(path))
    except (json.JSONDecodeError, RecursionError, ParseError):
        return None


def _records(folder: Path) -> list[dict[str, Any]]:
    try:
        files = sorted(folder.glob("*.json"))
    except OSError:
        return []
    loaded = [_load(f) for f in files]
    return [r for r in loaded if isinstance(r, dict)]


def _parse_storage(path: Path) -> list[Session]:
    info = load_json(path, read_text(path))
    if not isinstance(info, dict) or not isinstance(info.get("id"), str):
        raise ParseError(path, "not an OpenCode session (no `id`)")
    storage = path.absolute().parent.parent.parent  # storage/session/<project>/<id>.json
    records = _records(storage / "message" / info["id"])
    records.sort(key=lambda r: (to_utc(_created(r)) is None, str(_created(r) or ""), str(r.get("id"))))
    messages = []
    for record in records:
        parts = record["parts"] if isinstance(record.get("parts"), list) else _records(storage / "part" / str(record.get("id")))
        message = _message(record, [p for p in parts if isinstance(p, dict)])
        if message is not None:
            messages.append(message)
    session = _session(info, messages, path)
    return [session] if session else []


def parse(path: Path) -> list[Session]:
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            is_db = handle.read(16).startswith(b"SQLite format 3")
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    return _parse_db(path) if is_db else _parse_storage(path)


FORMAT = SourceFormat(
    name=SOURCE,
    label="OpenCode session",
    sniff=sniff,
    parse=parse,
    version=2,
    tool="OpenCode",
    versions="`storage/` JSON (before 1.2) and `opencode.db` (1.2 on)",
    places="`$XDG_DATA_HOME/opencode` or `~/.local/share/opencode` on every system: `opencode.db` (1.2 on) and the older `storage/session/**.json`",
    resume="`opencode --session <id>`",
    keeps="text, reasoning, tool calls with input and output; OpenCode's synthetic text is not yours; sub-agent sessions are sessions of their own; tokens per step",
)
