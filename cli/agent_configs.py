"""Where each coding agent keeps its MCP servers, and the entry it expects for a stdio server.

From each tool's own documentation (checked 2026-11):
- Claude Code: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`; top-level
  `mcpServers` is the user scope (`claude mcp add -s user`), entries
  `{"type": "stdio", "command", "args", "env"}`.
- Codex CLI: `$CODEX_HOME/config.toml` (default `~/.codex`), table
  `[mcp_servers.NAME]` with `command` and `args`.
- Cursor: `~/.cursor/mcp.json`, `mcpServers`, `{"command", "args"}`.
- Gemini CLI: `$GEMINI_CLI_HOME/.gemini/settings.json` (default home `~`),
  `mcpServers`, `{"command", "args"}`.
- OpenCode: `$OPENCODE_CONFIG`, else `$XDG_CONFIG_HOME/opencode/opencode.json`
  (or `.jsonc`; default `~/.config`), `mcp`, `{"type": "local", "command": [cmd, ...args], "enabled": true}`.
- Windsurf: `~/.codeium/windsurf/mcp_config.json`, `mcpServers`, `{"command", "args"}`.
- VS Code (Copilot agent mode): the user profile's `mcp.json` (`Code/User/` in the
  app's config folder), `servers`, `{"type": "stdio", "command", "args"}`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from convo_tui.core.index.places import app_config_roots, codex_home, gemini_home

SERVER_NAME = "convo-tui"


def _env_dir(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser() if value else None


def claude_code_file() -> Path:
    return (_env_dir("CLAUDE_CONFIG_DIR") or Path.home()) / ".claude.json"


def opencode_file() -> Path:
    given = _env_dir("OPENCODE_CONFIG")
    if given is not None:
        return given
    folder = (_env_dir("XDG_CONFIG_HOME") or Path.home() / ".config") / "opencode"
    plain, commented = folder / "opencode.json", folder / "opencode.jsonc"
    return commented if commented.exists() and not plain.exists() else plain


def vscode_file() -> Path:
    """The user profile's mcp.json: an existing Code/User folder, else this system's usual one."""
    roots = app_config_roots("Code")  # Linux, macOS, Windows layouts
    for root in roots:
        if (root / "User").is_dir():
            return root / "User" / "mcp.json"
    native = {"darwin": 1, "win32": 2}.get(sys.platform, 0)
    return roots[native] / "User" / "mcp.json"


@dataclass(frozen=True)
class Agent:
    name: str
    label: str
    file: Callable[[], Path]
    # JSON: the key of the servers' object; TOML (Codex): the table's name
    servers_key: str
    entry: Callable[[str, list[str]], dict[str, Any]]
    toml: bool = False
    # The tool is here (for `mcp install` with no names): by default its config file's folder exists.
    present: Callable[[], bool] | None = None

    def installed(self) -> bool:
        return self.present() if self.present is not None else self.file().parent.is_dir()


def _plain(command: str, args: list[str]) -> dict[str, Any]:
    return {"command": command, "args": args}


def _typed(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": args}


AGENTS: dict[str, Agent] = {
    agent.name: agent
    for agent in (
        Agent(
            "claude-code",
            "Claude Code",
            claude_code_file,
            "mcpServers",
            lambda c, a: {**_typed(c, a), "env": {}},
            present=lambda: claude_code_file().exists() or (_env_dir("CLAUDE_CONFIG_DIR") or Path.home() / ".claude").is_dir(),
        ),
        Agent("codex", "Codex CLI", lambda: codex_home() / "config.toml", "mcp_servers", _plain, toml=True),
        Agent("cursor", "Cursor", lambda: Path.home() / ".cursor" / "mcp.json", "mcpServers", _plain),
        Agent("gemini", "Gemini CLI", lambda: gemini_home() / "settings.json", "mcpServers", _plain),
        Agent(
            "opencode",
            "OpenCode",
            opencode_file,
            "mcp",
            lambda c, a: {"type": "local", "command": [c, *a], "enabled": True},
        ),
        Agent("windsurf", "Windsurf", lambda: Path.home() / ".codeium" / "windsurf" / "mcp_config.json", "mcpServers", _plain),
        Agent("vscode", "VS Code", vscode_file, "servers", _typed),
    )
}
