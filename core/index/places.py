"""The tools' usual places on Linux, macOS and Windows, and what a user-given path names.

Every place is checked in all three layouts wherever convo-tui runs: a home
copied from another machine, or a Windows home seen from WSL, is still found.
Each tool's own override (`CODEX_HOME`, `COPILOT_HOME`, ...) replaces its
default. Only paths are computed here; nothing is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.settings import Settings

CURSOR = "Cursor agent transcripts"
CLAUDE = "Claude Code projects"
SPECSTORY = "SpecStory history"
CHATGPT = "ChatGPT export"
CODEX = "Codex CLI sessions"
CURSOR_IDE = "Cursor IDE chats"
CURSOR_CLI = "Cursor CLI chats"
OPENCODE = "OpenCode sessions"
GEMINI = "Gemini CLI chats"
ANTIGRAVITY = "Antigravity conversations"
COPILOT = "VS Code Copilot Chat"
COPILOT_CLI = "GitHub Copilot CLI sessions"
CLINE = "Cline / Roo Code tasks"
AIDER = "Aider chat history"
PI = "Pi sessions"
GOOSE = "Goose sessions"
QWEN = "Qwen Code chats"
KIMI = "Kimi CLI sessions"
AMP = "Amp threads"
OPENHANDS = "OpenHands conversations"
FACTORY = "Factory Droid sessions"
KIRO = "Kiro CLI sessions"
CRUSH = "Crush project database"
CHAT_EXPORT = "Chat export (conversations.json)"
CLAUDE_AI = "Claude.ai export"
CONFIGURED = "Configured path"

# Editors built on VS Code whose user folders may hold Copilot Chat or Cline data.
VSCODE_APPS = ("Code", "Code - Insiders", "VSCodium")
CLINE_HOSTS = (*VSCODE_APPS, "Cursor", "Windsurf")
CLINE_EXTENSIONS = ("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline")


@dataclass(frozen=True)
class Location:
    """One place transcripts were looked for, as `convo-tui sources` reports it."""

    name: str
    path: Path
    format: str | None  # expected SourceFormat.name; None when mixed or unknown
    origin: str  # "default" | "config" | "argument"


@dataclass(frozen=True)
class Place:
    """A tool's folder (or file), or a glob of folders below a base (`tmp/*/chats`)."""

    base: Path
    pattern: str = ""

    def expand(self) -> list[Path]:
        if not self.pattern:
            return [self.base]
        try:
            return sorted(p for p in self.base.glob(self.pattern) if p.is_dir())
        except OSError:
            return []

    def __str__(self) -> str:
        return str(self.base / self.pattern) if self.pattern else str(self.base)


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def app_config_roots(app: str) -> list[Path]:
    """Where an Electron app keeps its user data on Linux, macOS and Windows."""
    home = Path.home()
    xdg = _env_path("XDG_CONFIG_HOME") or home / ".config"
    return [xdg / app, home / "Library" / "Application Support" / app, appdata() / app]


def appdata() -> Path:
    """Windows' roaming application data (`%APPDATA%`)."""
    return _env_path("APPDATA") or Path.home() / "AppData" / "Roaming"


def xdg_data_home() -> Path:
    return _env_path("XDG_DATA_HOME") or Path.home() / ".local" / "share"


def codex_home() -> Path:
    return _env_path("CODEX_HOME") or Path.home() / ".codex"


def opencode_data_dir() -> Path:
    """OpenCode follows the XDG layout on every system (~/.local/share/opencode)."""
    return xdg_data_home() / "opencode"


def gemini_home() -> Path:
    return (_env_path("GEMINI_CLI_HOME") or Path.home()) / ".gemini"


def claude_projects_dirs() -> list[Path]:
    """Claude Code's projects folders: $CLAUDE_CONFIG_DIR (comma-separated) or its defaults."""
    env = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    if env:
        roots = [Path(part.strip()).expanduser() for part in env.split(",") if part.strip()]
    else:
        config_home = _env_path("XDG_CONFIG_HOME") or Path.home() / ".config"
        roots = [config_home / "claude", Path.home() / ".claude"]
    return [root / "projects" for root in roots]


def _home(*parts: str) -> Path:
    return Path.home().joinpath(*parts)


def _first(*candidates: Path | None) -> Path:
    return next(c for c in candidates if c is not None)


def _cursor() -> list[Place]:
    return [Place(_home(".cursor", "projects"), "*/agent-transcripts")]


def _claude() -> list[Place]:
    return [Place(folder) for folder in claude_projects_dirs()]


def _codex() -> list[Place]:
    return [Place(codex_home() / "sessions"), Place(codex_home() / "archived_sessions")]


def _cursor_ide() -> list[Place]:
    return [Place(root / "User" / "globalStorage" / "state.vscdb") for root in app_config_roots("Cursor")]


def _opencode() -> list[Place]:
    return [Place(opencode_data_dir() / "opencode.db"), Place(opencode_data_dir() / "storage" / "session")]


def _gemini() -> list[Place]:
    return [Place(gemini_home() / "tmp", "*/chats")]


def _antigravity() -> list[Place]:
    return [Place(_home(".gemini"), "antigravity*/brain/*/.system_generated/logs")]


def _copilot() -> list[Place]:
    places = []
    for app in VSCODE_APPS:
        for root in app_config_roots(app):
            user = root / "User"
            places += [
                Place(user / "workspaceStorage", "*/chatSessions"),
                Place(user / "globalStorage" / "emptyWindowChatSessions"),
            ]
    return places


def _cline() -> list[Place]:
    return [
        Place(root / "User" / "globalStorage" / ext / "tasks")
        for app in CLINE_HOSTS
        for root in app_config_roots(app)
        for ext in CLINE_EXTENSIONS
    ]


def _copilot_cli() -> list[Place]:
    places = [Place(_first(_env_path("COPILOT_HOME"), _home(".copilot")) / "session-state")]
    state = _env_path("XDG_STATE_HOME")
    return places + ([Place(state / ".copilot" / "session-state")] if state else [])


def _cursor_cli() -> list[Place]:
    return [Place(_home(".cursor", "chats"))]


def _pi() -> list[Place]:
    agent = _first(_env_path("PI_CODING_AGENT_DIR"), _home(".pi", "agent"))
    return [Place(agent / "sessions"), Place(_home(".omp", "agent", "sessions")), Place(_home(".prime", "agent", "sessions"))]


def _goose() -> list[Place]:
    root = _env_path("GOOSE_PATH_ROOT")
    if root is not None and root.is_absolute():
        return [Place(root / "data" / "sessions")]
    return [Place(xdg_data_home() / "goose" / "sessions"), Place(appdata() / "Block" / "goose" / "data" / "sessions")]


def _qwen() -> list[Place]:
    roots = [_env_path("QWEN_RUNTIME_DIR"), _env_path("QWEN_HOME"), _home(".qwen")]
    return [Place(root / "projects") for root in roots if root is not None]


def _kimi() -> list[Place]:
    return [Place(_first(_env_path("KIMI_SHARE_DIR"), _home(".kimi")) / "sessions")]


def _amp() -> list[Place]:
    legacy = [
        Place(root / "User" / "globalStorage" / "sourcegraph.amp" / "threads3")
        for app in CLINE_HOSTS
        for root in app_config_roots(app)
    ]
    return [Place(xdg_data_home() / "amp" / "threads"), *legacy]


def _openhands() -> list[Place]:
    persistence = _env_path("OPENHANDS_PERSISTENCE_DIR")
    folder = _first(
        _env_path("OPENHANDS_CONVERSATIONS_DIR"),
        persistence / "conversations" if persistence else None,
        _home(".openhands", "conversations"),
    )
    return [Place(folder)]


def _factory() -> list[Place]:
    return [Place(_home(".factory", "sessions"))]


def _kiro() -> list[Place]:
    return [Place(_home(".kiro", "sessions", "cli"))]


# (what `sources` calls the place, the format expected there, where it is)
TOOL_PLACES: list[tuple[str, str, Callable[[], list[Place]]]] = [
    (CURSOR, "cursor", _cursor),
    (CLAUDE, "claude-code", _claude),
    (CODEX, "codex", _codex),
    (CURSOR_IDE, "cursor-ide", _cursor_ide),
    (CURSOR_CLI, "cursor-cli", _cursor_cli),
    (OPENCODE, "opencode", _opencode),
    (GEMINI, "gemini-cli", _gemini),
    (ANTIGRAVITY, "antigravity", _antigravity),
    (COPILOT, "copilot-chat", _copilot),
    (COPILOT_CLI, "copilot-cli", _copilot_cli),
    (CLINE, "cline", _cline),
    (PI, "pi", _pi),
    (GOOSE, "goose", _goose),
    (QWEN, "qwen-code", _qwen),
    (KIMI, "kimi-cli", _kimi),
    (AMP, "amp", _amp),
    (OPENHANDS, "openhands", _openhands),
    (FACTORY, "factory-droid", _factory),
    (KIRO, "kiro-cli", _kiro),
]


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
    out: list[Location] = []
    for name, fmt, places in TOOL_PLACES:
        for place in places():
            matched = place.expand()
            out += [Location(name, path, fmt, "default") for path in matched] or [
                Location(name, place.base / place.pattern, fmt, "default")
            ]
    return _unique(out)


def places_looked(settings: Settings) -> list[str]:
    """Every default place discovery checks, for telling the user where nothing was found."""
    places = [str(place) for _, _, tool in TOOL_PLACES for place in tool()] if settings.discover_defaults else []
    return list(dict.fromkeys(places)) + [str(path) for path in settings.sources]


# A user-given path: the first rule whose test holds names it.
_PATH_RULES: list[tuple[Callable[[Path, set[str]], bool], str, str]] = [
    (lambda p, parts: "workspaceStorage" in parts and "chatSessions" in parts, COPILOT, "copilot-chat"),
    (lambda p, parts: p.name == "state.vscdb", CURSOR_IDE, "cursor-ide"),
    (lambda p, parts: p.name == ".aider.chat.history.md" or (p / ".aider.chat.history.md").is_file(), AIDER, "aider"),
    (lambda p, parts: ".codex" in parts or p.name.startswith("rollout-"), CODEX, "codex"),
    (lambda p, parts: "opencode" in parts, OPENCODE, "opencode"),
    (lambda p, parts: any(n.startswith("antigravity") for n in parts) and ".gemini" in parts, ANTIGRAVITY, "antigravity"),
    (lambda p, parts: ".gemini" in parts, GEMINI, "gemini-cli"),
    (lambda p, parts: any(ext in parts for ext in CLINE_EXTENSIONS), CLINE, "cline"),
    (lambda p, parts: "agent-transcripts" in parts, CURSOR, "cursor"),
    (lambda p, parts: ".cursor" in parts and "chats" in parts, CURSOR_CLI, "cursor-cli"),
    (lambda p, parts: p.name == "projects" and p.parent.name in {".claude", "claude"}, CLAUDE, "claude-code"),
    (lambda p, parts: ".copilot" in parts, COPILOT_CLI, "copilot-cli"),
    (lambda p, parts: bool({".pi", ".omp", ".prime"} & parts), PI, "pi"),
    (lambda p, parts: "goose" in parts, GOOSE, "goose"),
    (lambda p, parts: ".qwen" in parts, QWEN, "qwen-code"),
    (lambda p, parts: ".kimi" in parts, KIMI, "kimi-cli"),
    (lambda p, parts: ("amp" in parts and "threads" in parts) or "sourcegraph.amp" in parts, AMP, "amp"),
    (lambda p, parts: ".openhands" in parts, OPENHANDS, "openhands"),
    (lambda p, parts: ".factory" in parts, FACTORY, "factory-droid"),
    (lambda p, parts: ".kiro" in parts, KIRO, "kiro-cli"),
    (lambda p, parts: ".crush" in parts or (p / ".crush" / "crush.db").is_file(), CRUSH, "crush"),
]


def describe_path(path: Path, origin: str) -> Location:
    """A Location for a user-given path, named from what its path suggests."""
    path = Path(path).expanduser()
    parts = set(path.parts)
    if ".specstory" in parts:
        return Location(SPECSTORY, path, "specstory", origin)
    if path.name == "conversations.json" or (path.is_dir() and (path / "conversations.json").is_file()):
        return _export_location(path, origin)
    for test, name, fmt in _PATH_RULES:
        if test(path, parts):
            return Location(name, path, fmt, origin)
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


def _unique(locations: list[Location]) -> list[Location]:
    seen: set[Path] = set()
    kept: list[Location] = []
    for location in locations:
        key = real_path(location.path)
        if key not in seen:
            seen.add(key)
            kept.append(location)
    return kept


def real_path(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()
