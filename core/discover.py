"""Where transcripts live on this machine, and which files under a folder are candidates.

Discovery only finds paths: it never parses. Whether a candidate is a
transcript, and of which format, is decided later from its content by
`core.sources.detect`, so a folder can mix formats freely.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.settings import Settings

CURSOR = "Cursor agent transcripts"
CLAUDE = "Claude Code projects"
SPECSTORY = "SpecStory history"
CHATGPT = "ChatGPT export"
CONFIGURED = "Configured path"

# Extensions transcripts come in; extension-less files are candidates too
# when they look like text.
CANDIDATE_SUFFIXES = {".txt", ".md", ".json", ".jsonl"}
# Folders that never hold transcripts and can be huge.
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv"}
# Hidden folders that do hold transcripts (the tools' own data folders).
HIDDEN_ALLOWED = {".specstory", ".cursor", ".claude", ".ai_helper"}
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
        found += _cursor_locations()
        found += _claude_locations()
    found += [describe_path(path, "config") for path in settings.sources]
    return _unique(found)


def describe_path(path: Path, origin: str) -> Location:
    """A Location for a user-given path, named from what its path suggests."""
    path = Path(path).expanduser()
    parts = set(path.parts)
    if ".specstory" in parts:
        return Location(SPECSTORY, path, "specstory", origin)
    if path.name == "conversations.json" or (path.is_dir() and (path / "conversations.json").is_file()):
        return Location(CHATGPT, path, "chatgpt", origin)
    if "agent-transcripts" in parts:
        return Location(CURSOR, path, "cursor", origin)
    if path.name == "projects" and path.parent.name in {".claude", "claude"}:
        return Location(CLAUDE, path, "claude-code", origin)
    return Location(CONFIGURED, path, None, origin)


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
    projects = Path.home() / ".cursor" / "projects"
    if not projects.is_dir():
        return []
    return [
        Location(CURSOR, folder, "cursor", "default")
        for folder in sorted(projects.glob("*/agent-transcripts"))
        if folder.is_dir()
    ]


def _claude_locations() -> list[Location]:
    return [Location(CLAUDE, folder, "claude-code", "default") for folder in claude_projects_dirs() if folder.is_dir()]


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


def iter_source_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Candidate transcript files under the given paths, each once, in sorted order.

    A file given directly is yielded as it is. Missing paths are skipped
    silently (the caller reports them). Symlinked folders are followed once:
    a folder already walked is not walked again, so loops end.
    """
    seen_files: set[Path] = set()
    seen_dirs: set[Path] = set()
    for root in paths:
        root = Path(root).expanduser()
        if root.is_file():
            key = _real(root)
            if key not in seen_files:
                seen_files.add(key)
                yield root
        elif root.is_dir():
            yield from _walk(root, seen_dirs, seen_files)


def _walk(folder: Path, seen_dirs: set[Path], seen_files: set[Path]) -> Iterator[Path]:
    real = _real(folder)
    if real in seen_dirs:
        return
    seen_dirs.add(real)
    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return  # unreadable folder: nothing to offer from it
    for entry in entries:
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()  # follows symlinks; loops end via seen_dirs
            is_file = not is_dir and entry.is_file()
        except OSError:
            continue
        if is_dir:
            if _walk_into(entry.name):
                yield from _walk(path, seen_dirs, seen_files)
        elif is_file and _is_candidate(path):
            key = _real(path)
            if key not in seen_files:
                seen_files.add(key)
                yield path


def _walk_into(name: str) -> bool:
    if name in SKIP_DIRS:
        return False
    return not name.startswith(".") or name in HIDDEN_ALLOWED


def _is_candidate(path: Path) -> bool:
    name = path.name
    if name.startswith(".") or name == THREAD_INDEX:
        return False
    suffix = path.suffix.lower()
    if suffix in CANDIDATE_SUFFIXES:
        return True
    return suffix == "" and _looks_like_text(path)


def _looks_like_text(path: Path) -> bool:
    """A cheap sniff for extension-less files: non-empty and no NUL byte."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False
    return bool(head.strip()) and b"\x00" not in head


@dataclass(frozen=True)
class LocationReport:
    """What one location holds, as `convo-tui sources` tells it."""

    location: Location
    exists: bool
    files: int  # transcript units of a known format
    sessions: int  # a ChatGPT export holds many sessions in one file
    formats: dict[str, int]  # format name -> units
    unknown: int  # candidate files no format recognised


def places_looked(settings: Settings) -> list[str]:
    """Every default place discovery checks, for telling the user where nothing was found."""
    places = [str(Path.home() / ".cursor" / "projects" / "*" / "agent-transcripts")] if settings.discover_defaults else []
    if settings.discover_defaults:
        places += [str(folder) for folder in claude_projects_dirs()]
    return places + [str(path) for path in settings.sources]


def survey(locations: Iterable[Location]) -> list[LocationReport]:
    """Count the transcripts in each location by sniffing (never fully parsing) its files."""
    from convo_tui.core.sources import detect
    from convo_tui.core.sources.chatgpt import count_conversations

    reports: list[LocationReport] = []
    for location in locations:
        formats: dict[str, int] = {}
        sessions = unknown = 0
        for path in iter_source_files([location.path]):
            fmt = detect(path)
            if fmt is None:
                unknown += 1
                continue
            formats[fmt.name] = formats.get(fmt.name, 0) + 1
            sessions += count_conversations(path) if fmt.name == "chatgpt" else 1
        exists = location.path.exists()
        reports.append(LocationReport(location, exists, sum(formats.values()), sessions, formats, unknown))
    return reports
