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

from convo_tui.core.settings import Settings

CURSOR = "Cursor agent transcripts"
CLAUDE = "Claude Code projects"
SPECSTORY = "SpecStory history"
CHATGPT = "ChatGPT export"
CODEX = "Codex CLI sessions"
CURSOR_IDE = "Cursor IDE chats"
OPENCODE = "OpenCode sessions"
GEMINI = "Gemini CLI chats"
COPILOT = "VS Code Copilot Chat"
CLINE = "Cline / Roo Code tasks"
AIDER = "Aider chat history"
CHAT_EXPORT = "Chat export (conversations.json)"
CLAUDE_AI = "Claude.ai export"
CONFIGURED = "Configured path"

# Editors built on VS Code whose user folders may hold Copilot Chat or Cline data.
VSCODE_APPS = ("Code", "Code - Insiders", "VSCodium")
CLINE_HOSTS = (*VSCODE_APPS, "Cursor", "Windsurf")
CLINE_EXTENSIONS = ("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline")

# Extensions transcripts come in; extension-less files are candidates too
# when they look like text.
CANDIDATE_SUFFIXES = {".txt", ".md", ".json", ".jsonl"}
# SQLite databases are candidates only when their first bytes say so.
DATABASE_SUFFIXES = {".vscdb", ".db"}
SQLITE_MAGIC = b"SQLite format 3\x00"
# Hidden files that are transcripts.
HIDDEN_FILES = {".aider.chat.history.md"}
# Files beside a transcript that belong to it: read with it, never on their own.
COMPANIONS = {"api_conversation_history.json": {"ui_messages.json", "task_metadata.json"}}
# Folders that never hold transcripts and can be huge.
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv"}
# Hidden folders that do hold transcripts (the tools' own data folders).
HIDDEN_ALLOWED = {".specstory", ".cursor", ".claude", ".ai_helper", ".codex", ".gemini"}
# The chat-thread index file: the thread folders' thread.json are the units.
THREAD_INDEX = "threads.json"
SNIFF_BYTES = 1024


@dataclass(frozen=True)
class Location:
    """One place transcripts were looked for, as `convo-tui sources` reports it."""

    name: str
    path: Path
    format: str | None  # expected SourceFormat.name; None when mixed or unknown
    origin: str  # "default" | "config" | "argument"


def default_locations(settings: Settings) -> list[Location]:
    """The tools' default places that exist here, then the configured paths.

    Configured paths are listed even when missing, so the user is told about a
    stale entry; defaults appear only when they exist.
    """
    found: list[Location] = []
    if settings.discover_defaults:
        found += [loc for loc in checked_locations() if loc.path.exists()]
    found += [describe_path(path, "config") for path in settings.sources]
    return _unique(found)


def checked_locations() -> list[Location]:
    """Every default place discovery looks in, there or not: the folders a
    pattern matched, or the pattern itself (`.../*/chats`) when it matched none."""
    return [*_cursor_locations(), *_claude_locations(), *_tool_locations()]


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def app_config_roots(app: str) -> list[Path]:
    """Where an Electron app keeps its user data on Linux, macOS and Windows.

    All three are checked wherever we run: a home copied from another machine,
    or a Windows home seen from WSL, is still found.
    """
    home = Path.home()
    xdg = _env_path("XDG_CONFIG_HOME") or home / ".config"
    appdata = _env_path("APPDATA") or home / "AppData" / "Roaming"
    return [xdg / app, home / "Library" / "Application Support" / app, appdata / app]


def codex_home() -> Path:
    return _env_path("CODEX_HOME") or Path.home() / ".codex"


def opencode_data_dir() -> Path:
    """OpenCode follows the XDG layout on every system (~/.local/share/opencode)."""
    return (_env_path("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "opencode"


def gemini_home() -> Path:
    return (_env_path("GEMINI_CLI_HOME") or Path.home()) / ".gemini"


def _tool_locations() -> list[Location]:
    """Every default place of the tools other than Cursor agent transcripts and Claude Code."""
    out = [
        Location(CODEX, codex_home() / "sessions", "codex", "default"),
        Location(CODEX, codex_home() / "archived_sessions", "codex", "default"),
    ]
    out += [
        Location(CURSOR_IDE, root / "User" / "globalStorage" / "state.vscdb", "cursor-ide", "default")
        for root in app_config_roots("Cursor")
    ]
    data = opencode_data_dir()
    out += [
        Location(OPENCODE, data / "opencode.db", "opencode", "default"),
        Location(OPENCODE, data / "storage" / "session", "opencode", "default"),
    ]
    out += _matched(GEMINI, gemini_home() / "tmp", "*/chats", "gemini-cli")
    for app in VSCODE_APPS:
        for root in app_config_roots(app):
            user = root / "User"
            out += _matched(COPILOT, user / "workspaceStorage", "*/chatSessions", "copilot-chat")
            out.append(Location(COPILOT, user / "globalStorage" / "emptyWindowChatSessions", "copilot-chat", "default"))
    for app in CLINE_HOSTS:
        for root in app_config_roots(app):
            out += [
                Location(CLINE, root / "User" / "globalStorage" / ext / "tasks", "cline", "default") for ext in CLINE_EXTENSIONS
            ]
    return out


def _matched(name: str, folder: Path, pattern: str, fmt: str) -> list[Location]:
    """The folders under `folder` that `pattern` matches, or the pattern itself when none does."""
    found = _sorted_glob(folder, pattern)
    return [Location(name, path, fmt, "default") for path in found] or [Location(name, folder / pattern, fmt, "default")]


def _sorted_glob(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted(p for p in folder.glob(pattern) if p.is_dir())
    except OSError:
        return []


def describe_path(path: Path, origin: str) -> Location:
    """A Location for a user-given path, named from what its path suggests."""
    path = Path(path).expanduser()
    parts = set(path.parts)
    if ".specstory" in parts:
        return Location(SPECSTORY, path, "specstory", origin)
    if path.name == "conversations.json" or (path.is_dir() and (path / "conversations.json").is_file()):
        return _export_location(path, origin)
    if path.name == "state.vscdb" or ("workspaceStorage" in parts and "chatSessions" in parts):
        return Location(
            COPILOT if "chatSessions" in parts else CURSOR_IDE,
            path,
            "copilot-chat" if "chatSessions" in parts else "cursor-ide",
            origin,
        )
    if path.name == ".aider.chat.history.md" or (path.is_dir() and (path / ".aider.chat.history.md").is_file()):
        return Location(AIDER, path, "aider", origin)
    if ".codex" in parts or path.name.startswith("rollout-"):
        return Location(CODEX, path, "codex", origin)
    if "opencode" in parts:
        return Location(OPENCODE, path, "opencode", origin)
    if ".gemini" in parts:
        return Location(GEMINI, path, "gemini-cli", origin)
    if any(ext in parts for ext in CLINE_EXTENSIONS):
        return Location(CLINE, path, "cline", origin)
    if "agent-transcripts" in parts:
        return Location(CURSOR, path, "cursor", origin)
    if path.name == "projects" and path.parent.name in {".claude", "claude"}:
        return Location(CLAUDE, path, "claude-code", origin)
    return Location(CONFIGURED, path, None, origin)


def _export_location(path: Path, origin: str) -> Location:
    """ChatGPT and Claude.ai both export a `conversations.json`: told apart by its content."""
    from convo_tui.core.sources import detect

    file = path / "conversations.json" if path.is_dir() else path
    fmt = detect(file) if file.is_file() else None
    if fmt is not None and fmt.name == "chatgpt":
        return Location(CHATGPT, path, "chatgpt", origin)
    if fmt is not None and fmt.name == "claude-ai":
        return Location(CLAUDE_AI, path, "claude-ai", origin)
    return Location(CHAT_EXPORT, path, None, origin)


def claude_projects_dirs() -> list[Path]:
    """Claude Code's projects folders: $CLAUDE_CONFIG_DIR (comma-separated) or its defaults."""
    env = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    if env:
        roots = [Path(part.strip()).expanduser() for part in env.split(",") if part.strip()]
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
        config_home = Path(xdg).expanduser() if xdg else Path.home() / ".config"
        roots = [config_home / "claude", Path.home() / ".claude"]
    return [root / "projects" for root in roots]


def _cursor_locations() -> list[Location]:
    return _matched(CURSOR, Path.home() / ".cursor" / "projects", "*/agent-transcripts", "cursor")


def _claude_locations() -> list[Location]:
    return [Location(CLAUDE, folder, "claude-code", "default") for folder in claude_projects_dirs()]


def _unique(locations: list[Location]) -> list[Location]:
    seen: set[Path] = set()
    kept: list[Location] = []
    for location in locations:
        key = _real(location.path)
        if key not in seen:
            seen.add(key)
            kept.append(location)
    return kept


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


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
            key = _real(root)
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
    real = _real(folder)
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
            key = _real(path)
            if key not in seen_files:
                seen_files.add(key)
                yield path


def _walk_into(name: str) -> bool:
    if name in SKIP_DIRS:
        return False
    return not name.startswith(".") or name in HIDDEN_ALLOWED


def _companion_file(name: str, siblings: set[str]) -> bool:
    """A file read together with its transcript (Cline's ui_messages.json)."""
    return any(name in companions and owner in siblings for owner, companions in COMPANIONS.items())


def _companion_folder(parent: Path, name: str, siblings: set[str]) -> bool:
    """OpenCode's message/ and part/ records are read through their session file."""
    return parent.name == "storage" and name in {"message", "part"} and "session" in siblings


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
    if format_name in ("aider", "openai") or (format_name in ("cursor-ide", "opencode") and path.suffix in DATABASE_SUFFIXES):
        from convo_tui.core.errors import ParseError
        from convo_tui.core.sources import parse_path

        try:
            return len(parse_path(path))
        except ParseError:
            return 0
    return 1
