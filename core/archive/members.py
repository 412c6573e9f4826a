"""What the archive keeps of one transcript, format by format.

Most formats are one file and the archive keeps its bytes. Some readers also
read files beside the transcript, and without them a session read back from
the archive would lose its project or its times; those are the unit's
members, archived with it and put back beside it when it is restored:

- Cline / Roo Code: `ui_messages.json` and `task_metadata.json` in the task folder;
- Gemini CLI: `.project_root` beside the `chats` folder (the project's folder);
- VS Code Copilot Chat: the workspace's `workspace.json` (its folder);
- chat threads: `threads.json` (the thread names);
- OpenCode's JSON storage: the session's `message/<id>/*.json` and `part/<message>/*.json`;
- Cursor IDE chats: each workspace's `workspace.json` and the composer list
  of its `state.vscdb` (which chat belongs to which folder).

SQLite databases (Cursor's `state.vscdb`, `opencode.db`) are kept as the rows
their reader reads (core/archive/sqlite_dump.py), not as the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.archive.records import RAW, SQLITE_DUMP
from convo_tui.core.archive.sqlite_dump import Tables

# The rows each database reader reads.
CURSOR_CHATS: Tables = {"cursorDiskKV": "key LIKE 'composerData:%' OR key LIKE 'bubbleId:%'", "composerHeaders": None}
CURSOR_WORKSPACE: Tables = {"ItemTable": "key = 'composer.composerData'"}
OPENCODE_DB: Tables = {"session": None, "message": None, "part": None}
# More members than this (an OpenCode session of thousands of parts) are kept all the same;
# past it the listing stops, so a hostile folder cannot make one unit hold everything.
MAX_MEMBERS = 20_000


@dataclass(frozen=True)
class Part:
    """One file to archive: its path, how (raw bytes or a SQLite dump) and, for a dump, which rows."""

    path: Path
    encoding: str = RAW
    tables: Tables | None = None


def is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def unit_part(fmt: str, path: Path) -> Part:
    """How the transcript itself is kept."""
    if fmt == "cursor-ide":
        return Part(path, SQLITE_DUMP, CURSOR_CHATS)
    if fmt == "opencode" and is_sqlite(path):
        return Part(path, SQLITE_DUMP, OPENCODE_DB)
    return Part(path)


def members(fmt: str, path: Path) -> list[Part]:
    """The files read with the transcript that exist now, in a stable order."""
    path = path.absolute()
    found: list[Part]
    if fmt == "cline":
        found = [Part(path.parent / name) for name in ("ui_messages.json", "task_metadata.json")]
    elif fmt == "gemini-cli":
        found = [Part(path.parent.parent / ".project_root")]
    elif fmt == "copilot-chat":
        found = [Part(path.parent.parent / "workspace.json")] if path.parent.name == "chatSessions" else []
    elif fmt == "chat-thread":
        found = [Part(path.parent.parent / "threads.json")]
    elif fmt == "opencode" and not is_sqlite(path):
        found = _opencode_storage(path)
    elif fmt == "cursor-ide":
        found = _cursor_workspaces(path)
    else:
        found = []
    return [part for part in found if part.path.is_file()][:MAX_MEMBERS]


def _plain_name(value: object) -> str | None:
    """An id read from a transcript, usable as one folder name (never a way out of the folder)."""
    if not isinstance(value, str) or not value or value in (".", "..") or "/" in value or "\\" in value or "\0" in value:
        return None
    return value


def _json_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.glob("*.json") if p.is_file())
    except OSError:
        return []


def _opencode_storage(path: Path) -> list[Part]:
    """storage/session/<project>/<id>.json reads storage/message/<id>/*.json and their parts."""
    try:
        info = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return []
    session_id = _plain_name(info.get("id")) if isinstance(info, dict) else None
    if session_id is None:
        return []
    storage = path.parent.parent.parent
    found: list[Part] = []
    for message in _json_files(storage / "message" / session_id):
        found.append(Part(message))
        try:
            record = json.loads(message.read_bytes())
        except (OSError, ValueError, RecursionError):
            continue
        message_id = (
            _plain_name(record.get("id")) if isinstance(record, dict) and not isinstance(record.get("parts"), list) else None
        )
        if message_id is not None:
            found += [Part(p) for p in _json_files(storage / "part" / message_id)]
        if len(found) >= MAX_MEMBERS:
            break
    return found


def _cursor_workspaces(global_db: Path) -> list[Part]:
    storage = global_db.parent.parent / "workspaceStorage"
    try:
        folders = sorted(p for p in storage.iterdir() if p.is_dir())
    except OSError:
        return []
    found: list[Part] = []
    for folder in folders:
        if (folder / "workspace.json").is_file() and (folder / "state.vscdb").is_file():
            found += [Part(folder / "workspace.json"), Part(folder / "state.vscdb", SQLITE_DUMP, CURSOR_WORKSPACE)]
    return found
