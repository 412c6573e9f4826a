""" "My Assistant" chat threads: `chat_threads/threads.json` + `<thread_id>/thread.json`.

Each `thread.json` is one session (the unit the index tracks); `threads.json`
is only the index of names, so pointing at it, or at the `chat_threads`
folder, means "all threads". Virtual messages are kept for display; pairing
and indexing leave them out. HTML bodies are reduced to text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Role, Session
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import json_error_reason, number_messages, strip_bom, title_from_messages, to_utc
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._html import html_to_text

SOURCE = "chat-thread"
THREAD_FILE = "thread.json"
INDEX_FILE = "threads.json"
APP_FOLDER = ".ai_helper"
_ROLES: dict[str, Role] = {"user": USER, "human": USER, "bot": ASSISTANT, "assistant": ASSISTANT, "ai": ASSISTANT}


def _load_json(path: Path) -> Any:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, json_error_reason(exc, text), line=exc.lineno) from None
    except RecursionError:
        raise ParseError(path, "JSON nested too deeply") from None


def load_index(folder: Path, warnings: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """threads.json as {thread id: entry}; a missing or broken index is not fatal."""
    index_path = folder / INDEX_FILE
    if not index_path.is_file():
        return {}
    try:
        data = _load_json(index_path)
    except ParseError as exc:
        if warnings is not None:
            warnings.append(str(exc))
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(key): value for key, value in data.items() if isinstance(value, dict)}


def project_for(threads_folder: Path) -> str:
    """The folder holding `.ai_helper` (the user's workspace), else the chat_threads parent."""
    folder = threads_folder.absolute()
    for ancestor in (folder, *folder.parents):
        if ancestor.name == APP_FOLDER and ancestor.parent.name:
            return ancestor.parent.name
    return folder.parent.name


def _message(entry: dict[str, Any]) -> Message:
    sender = str(entry.get("sender", "")).lower()
    role = _ROLES.get(sender, SYSTEM)
    if sender not in _ROLES and sender != "system":
        unknown("field", f"sender={sender}")
    raw = entry.get("text")
    text = raw if isinstance(raw, str) else ("" if raw is None else json.dumps(raw, ensure_ascii=False))
    is_html = bool(entry.get("isHtml"))
    if is_html:
        text = html_to_text(text)
    tasks = entry.get("availableTasks")
    meta = entry.get("meta")
    attachment = entry.get("filePath")
    return Message(
        id="",
        role=role,
        text=text,
        timestamp=to_utc(entry.get("timestamp")),
        virtual=bool(entry.get("isVirtual")),
        is_html=is_html,
        attachment=attachment if isinstance(attachment, str) and attachment else None,
        available_tasks=tasks if isinstance(tasks, list) else [],
        meta=meta if isinstance(meta, dict) else {},
    )


def parse_thread_file(path: Path, index: dict[str, dict[str, Any]] | None = None) -> Session:
    data = _load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ParseError(path, "not a chat thread (no `messages` list)")
    threads_folder = path.absolute().parent.parent
    if index is None:
        index = load_index(threads_folder)
    thread_id = str(data.get("id") or path.absolute().parent.name)
    warnings: list[str] = []
    messages = []
    for position, entry in enumerate(data["messages"]):
        if isinstance(entry, dict):
            messages.append(_message(entry))
        else:
            warnings.append(f"{path}: message {position} is not an object, skipped")
    number_messages(messages)
    listed = index.get(thread_id, {})
    name = data.get("name") or listed.get("name")
    agent = data.get("agent") or listed.get("agent")
    meta = {key: value for key, value in (("agent", agent), ("settings", data.get("settings"))) if value}
    session = Session(
        id=thread_id,
        title=str(name) if name else title_from_messages(messages, thread_id),
        project=project_for(threads_folder),
        source=SOURCE,
        path=str(path.absolute()),
        messages=messages,
        meta=meta,
        warnings=warnings,
    )
    session.fill_times()
    return session


def parse_threads_folder(folder: Path) -> list[Session]:
    """Every thread of a chat_threads folder: the index's order first, then the rest."""
    problems: list[str] = []
    index = load_index(folder, problems)
    ordered = [folder / thread_id for thread_id in index]
    ordered += sorted(p for p in folder.iterdir() if p.is_dir() and p not in ordered)
    sessions: list[Session] = []
    first_error: ParseError | None = None
    for thread_folder in ordered:
        thread_file = thread_folder / THREAD_FILE
        if not thread_file.is_file():
            if thread_folder.name in index:
                problems.append(f"{folder / INDEX_FILE}: thread {thread_folder.name} is listed but {thread_file} is missing")
            continue
        try:
            sessions.append(parse_thread_file(thread_file, index))
        except ParseError as exc:
            first_error = first_error or exc
            problems.append(str(exc))
    if not sessions:
        if first_error:
            raise first_error
        raise ParseError(folder, f"no threads found (no <thread_id>/{THREAD_FILE})")
    sessions[0].warnings.extend(problems)
    return sessions


def parse(path: Path) -> list[Session]:
    path = Path(path)
    if path.is_dir():
        if (path / THREAD_FILE).is_file():
            return [parse_thread_file(path / THREAD_FILE)]
        return parse_threads_folder(path)
    if path.name == INDEX_FILE and not _is_thread(strip_bom(read_text(path))):
        return parse_threads_folder(path.absolute().parent)
    return [parse_thread_file(path)]


def _is_thread(head: str) -> bool:
    return head.lstrip().startswith("{") and '"messages"' in head and '"sender"' in head


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        if (path / THREAD_FILE).is_file() or (path / INDEX_FILE).is_file():
            return True
        return any((child / THREAD_FILE).is_file() for child in path.iterdir() if child.is_dir())
    head = strip_bom(head)
    if path.name in (INDEX_FILE, THREAD_FILE):
        return head.lstrip().startswith("{")
    return _is_thread(head)


FORMAT = SourceFormat(
    name=SOURCE,
    label="chat thread",
    sniff=sniff,
    parse=parse,
    tool='"My Assistant" chat threads',
    versions="`threads.json` + `thread.json` folders",
    places="`chat_threads/threads.json` + `<id>/thread.json` (add the folder to `sources`)",
    resume="none",
    keeps="HTML reduced to text; virtual messages shown apart and never indexed",
)
