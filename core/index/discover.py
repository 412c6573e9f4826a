"""Where transcripts live on this machine, and which files under a folder are candidates.

Discovery only finds paths: it never parses. Whether a candidate is a
transcript, and of which format, is decided later from its content by
`core.sources.detect`, so a folder can mix formats freely.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from convo_tui.core.index.places import (
    CLINE_EXTENSIONS,
    Location,
    app_config_roots,
    checked_locations,
    claude_projects_dirs,
    default_locations,
    describe_path,
    places_looked,
    real_path,
)

# Where the tools' places are defined; imported from here by older callers.
__all__ = [
    "CLINE_EXTENSIONS",
    "Location",
    "LocationReport",
    "app_config_roots",
    "checked_locations",
    "claude_projects_dirs",
    "default_locations",
    "describe_path",
    "iter_source_files",
    "places_looked",
    "survey",
]

# Extensions transcripts come in; extension-less files are candidates too
# when they look like text.
CANDIDATE_SUFFIXES = {".txt", ".md", ".json", ".jsonl"}
# SQLite databases are candidates only when their first bytes say so.
DATABASE_SUFFIXES = {".vscdb", ".db"}
SQLITE_MAGIC = b"SQLite format 3\x00"
# Hidden files that are transcripts.
HIDDEN_FILES = {".aider.chat.history.md"}
# Files and folders beside a transcript that belong to it: read with it (or
# never read), never offered on their own. Keyed by the transcript's name.
COMPANIONS = {
    "api_conversation_history.json": {"ui_messages.json", "task_metadata.json"},  # Cline
    "wire.jsonl": {"context.jsonl", "state.json", "metadata.json"},  # Kimi CLI
    "base_state.json": {"TASKS.json"},  # OpenHands
    "events.jsonl": {"plan.md", "session.db"},  # Copilot CLI
    "transcript.jsonl": {"transcript_full.jsonl"},  # Antigravity
}
COMPANION_FOLDERS = {
    "base_state.json": {"events"},  # OpenHands: one event a file
    "events.jsonl": {"checkpoints", "files", "research"},  # Copilot CLI's session folder
    "wire.jsonl": {"subagents"},  # Kimi CLI
}
# Folders that never hold transcripts and can be huge.
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv"}
# Hidden folders that do hold transcripts (the tools' own data folders).
HIDDEN_ALLOWED = {
    ".specstory",
    ".cursor",
    ".claude",
    ".ai_helper",
    ".codex",
    ".gemini",
    ".system_generated",
    ".copilot",
    ".pi",
    ".qwen",
    ".kimi",
    ".openhands",
    ".factory",
    ".kiro",
    ".crush",
}
# The chat-thread index file: the thread folders' thread.json are the units.
THREAD_INDEX = "threads.json"
SNIFF_BYTES = 1024


ProblemFn = Callable[[Path, str], None]


def _collect(into: list[tuple[Path, str]], path: Path, reason: str) -> None:
    """A ProblemFn (bound with `partial`) that keeps each problem in `into`."""
    into.append((path, reason))


def iter_source_files(paths: Iterable[Path], on_problem: ProblemFn | None = None) -> Iterator[Path]:
    """Candidate transcript files under the given paths, each once, in sorted order.

    A file given directly is yielded as it is. Missing paths are skipped
    silently (the caller reports them). Symlinked folders are followed once:
    a folder already walked is not walked again, so loops end. A folder that
    cannot be read and a link that leads nowhere are told to `on_problem`,
    once each, instead of being skipped in silence.
    """
    seen_files: set[Path] = set()
    seen_dirs: set[Path] = set()
    told: set[Path] = set()

    def tell(path: Path, reason: str) -> None:
        if on_problem is not None and path not in told:
            told.add(path)
            on_problem(path, reason)

    for root in paths:
        root = Path(root).expanduser()
        if root.is_file():
            key = real_path(root)
            if key not in seen_files:
                seen_files.add(key)
                yield root
        elif root.is_dir():
            yield from _walk(root, seen_dirs, seen_files, tell)
        elif _special(root):
            tell(root, _special(root) or "")
        elif root.is_symlink():
            tell(root, _broken_link(root))


def _broken_link(path: Path) -> str:
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of links (it never reaches a file)"
    return "dangling link (its target does not exist)"


def _special(path: Path) -> str | None:
    """Why a path that exists (through its link, if it is one) is neither a file
    nor a folder: a pipe, socket or device is never opened (reading one could
    block forever), but it is told, not skipped in silence."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = "a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"not a regular file ({kind}{', through a link' if path.is_symlink() else ''}): not read"


def _walk(folder: Path, seen_dirs: set[Path], seen_files: set[Path], tell: ProblemFn) -> Iterator[Path]:
    real = real_path(folder)
    if real in seen_dirs:
        return
    seen_dirs.add(real)
    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError as exc:
        tell(folder, f"cannot read folder: {exc.strerror or exc}")
        return
    names = {entry.name for entry in entries}
    for entry in entries:
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()  # follows symlinks; loops end via seen_dirs
            is_file = not is_dir and entry.is_file()
            special = None if (is_dir or is_file) else _special(path)
            dangling = not (is_dir or is_file or special) and entry.is_symlink()
        except OSError as exc:
            tell(path, f"cannot read: {exc.strerror or exc}")
            continue
        if special or dangling:
            if _walk_into(entry.name) and not entry.name.startswith("."):
                tell(path, special or _broken_link(path))
            continue
        if is_dir:
            if _walk_into(entry.name) and not _companion_folder(folder, entry.name, names):
                yield from _walk(path, seen_dirs, seen_files, tell)
        elif is_file and _is_candidate(path) and not _companion_file(entry.name, names):
            # A plain file's real path is its folder's and its name (resolving each one
            # asked the kernel about every part of its path, for each of 42k files at 1M).
            key = real / entry.name if not entry.is_symlink() else real_path(path)
            if key not in seen_files:
                seen_files.add(key)
                yield path


def _walk_into(name: str) -> bool:
    if name in SKIP_DIRS:
        return False
    return not name.startswith(".") or name in HIDDEN_ALLOWED


def _companion_file(name: str, siblings: set[str]) -> bool:
    """A file read together with its transcript (Cline's ui_messages.json, Droid's
    `<id>.settings.json`, Kiro's `<id>.json` beside `<id>.jsonl`)."""
    if any(name in companions and owner in siblings for owner, companions in COMPANIONS.items()):
        return True
    if name.endswith(".settings.json") and f"{name[: -len('.settings.json')]}.jsonl" in siblings:
        return True
    return name.endswith(".json") and f"{name[: -len('.json')]}.jsonl" in siblings and _kiro_session(siblings)


def _kiro_session(siblings: set[str]) -> bool:
    """Kiro CLI keeps `<id>.jsonl`, `<id>.json` and `<id>.history` together."""
    return any(name.endswith(".history") for name in siblings)


def _companion_folder(parent: Path, name: str, siblings: set[str]) -> bool:
    """OpenCode's message/ and part/ records are read through their session file;
    OpenHands' events through base_state.json; Copilot CLI's checkpoints never."""
    if parent.name == "storage" and name in {"message", "part"} and "session" in siblings:
        return True
    return any(name in folders and owner in siblings for owner, folders in COMPANION_FOLDERS.items())


def _is_candidate(path: Path) -> bool:
    name = path.name
    if name in HIDDEN_FILES:
        return True
    if name.startswith(".") or name == THREAD_INDEX:
        return False
    suffix = path.suffix.lower()
    if suffix in CANDIDATE_SUFFIXES:
        return True
    if suffix in DATABASE_SUFFIXES:
        return _starts_with(path, SQLITE_MAGIC)
    return suffix == "" and _looks_like_text(path)


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError:
        return False


def _looks_like_text(path: Path) -> bool:
    """A cheap sniff for extension-less files: non-empty and text (sources.looks_binary)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False
    from convo_tui.core.sources import looks_binary

    return bool(head.strip()) and not looks_binary(head)


@dataclass(frozen=True)
class LocationReport:
    """What one location holds, as `convo-tui sources` tells it."""

    location: Location
    exists: bool
    files: int  # transcript units of a known format
    sessions: int  # a ChatGPT export holds many sessions in one file
    formats: dict[str, int]  # format name -> units
    unknown: int  # candidate files no format recognised
    problems: list[tuple[Path, str]] = field(default_factory=list)  # unreadable folders, dangling links


def survey(locations: Iterable[Location]) -> list[LocationReport]:
    """Count the transcripts in each location by sniffing (never fully parsing) its files."""
    from convo_tui.core.sources import detect

    reports: list[LocationReport] = []
    for location in locations:
        formats: dict[str, int] = {}
        sessions = unknown = 0
        problems: list[tuple[Path, str]] = []
        for path in iter_source_files([location.path], partial(_collect, problems)):
            fmt = detect(path)
            if fmt is None:
                unknown += 1
                continue
            formats[fmt.name] = formats.get(fmt.name, 0) + 1
            sessions += _session_count(fmt.name, path)
        exists = location.path.exists()
        reports.append(LocationReport(location, exists, sum(formats.values()), sessions, formats, unknown, problems))
    return reports


def _session_count(format_name: str, path: Path) -> int:
    """Sessions in one file: exports and databases hold many (counted cheaply, never fully parsed)."""
    from convo_tui.core.sources.chatgpt import count_conversations
    from convo_tui.core.sources.claude_ai import count_conversations as count_claude

    if format_name == "chatgpt":
        return count_conversations(path)
    if format_name == "claude-ai":
        return count_claude(path)
    # Aider histories, OpenAI-style row logs (one conversation_id a session) and databases hold several.
    if format_name in ("aider", "openai") or (
        format_name in ("cursor-ide", "opencode", "goose", "crush") and path.suffix in DATABASE_SUFFIXES
    ):
        from convo_tui.core.errors import ParseError
        from convo_tui.core.sources import parse_path

        try:
            return len(parse_path(path))
        except ParseError:
            return 0
    return 1
