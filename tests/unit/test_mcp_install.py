"""`convo-tui mcp install`: each agent's own config file, round-tripped.

The fixture configs (tests/fixtures/agent_configs) are written by hand in each
tool's documented shape, with other servers and settings around: after the
install, everything but our entry is unchanged, the backup is the original,
and a second install changes nothing.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from convo_tui.cli.agent_configs import AGENTS
from convo_tui.cli.main import main

from tests.paths import FIXTURES

CONFIGS = FIXTURES / "agent_configs"
COMMAND = "/opt/convo/bin/convo-tui"
FIXTURE_OF = {
    "claude-code": "claude-code.json",
    "codex": "codex.toml",
    "cursor": "cursor.json",
    "gemini": "gemini.json",
    "opencode": "opencode.json",
    "windsurf": "windsurf.json",
    "vscode": "vscode.json",
}


def where(agent: str, home: Path) -> Path:
    """Each tool's documented user-wide file, in the test home (conftest: CLAUDE_CONFIG_DIR=~/.claude, XDG_CONFIG_HOME=~/.config)."""
    return {
        "claude-code": home / ".claude" / ".claude.json",
        "codex": home / ".codex" / "config.toml",
        "cursor": home / ".cursor" / "mcp.json",
        "gemini": home / ".gemini" / "settings.json",
        "opencode": home / ".config" / "opencode" / "opencode.json",
        "windsurf": home / ".codeium" / "windsurf" / "mcp_config.json",
        "vscode": home / ".config" / "Code" / "User" / "mcp.json",
    }[agent]


def expected_entry(agent: str, args: list[str]) -> dict[str, Any]:
    return {
        "claude-code": {"type": "stdio", "command": COMMAND, "args": args, "env": {}},
        "codex": {"command": COMMAND, "args": args},
        "cursor": {"command": COMMAND, "args": args},
        "gemini": {"command": COMMAND, "args": args},
        "opencode": {"type": "local", "command": [COMMAND, *args], "enabled": True},
        "windsurf": {"command": COMMAND, "args": args},
        "vscode": {"type": "stdio", "command": COMMAND, "args": args},
    }[agent]


def load(agent: str, path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if agent == "codex" else json.loads(text)


@pytest.fixture
def home(isolated_dirs) -> Path:
    return isolated_dirs / "home"


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_install_round_trips_each_agents_config(agent, home, tmp_path, capsys):
    path = where(agent, home)
    assert AGENTS[agent].file() == path
    path.parent.mkdir(parents=True, exist_ok=True)
    original = (CONFIGS / FIXTURE_OF[agent]).read_bytes()
    path.write_bytes(original)
    index = tmp_path / "index"
    args = ["mcp", "--index-dir", str(index)]
    key = AGENTS[agent].servers_key

    assert main(["mcp", "install", agent, "--command", COMMAND, "--index-dir", str(index)]) == 0
    backup = path.with_name(path.name + ".convo-tui.bak")
    assert capsys.readouterr().out == f"{agent}: added convo-tui to {path} (backup: {backup})\n"
    after = load(agent, path)
    assert after[key]["convo-tui"] == expected_entry(agent, args)
    before = load(agent, path.with_name(backup.name))
    assert backup.read_bytes() == original
    del after[key]["convo-tui"]
    assert after == before  # everything else as it was: other servers, settings, projects

    written = path.read_bytes()
    assert main(["mcp", "install", agent, "--command", COMMAND, "--index-dir", str(index)]) == 0
    assert capsys.readouterr().out == f"{agent}: convo-tui already in {path} (unchanged)\n"
    assert path.read_bytes() == written and backup.read_bytes() == original

    assert main(["mcp", "install", agent, "--print", "--command", "/elsewhere/convo-tui"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"{agent}: {path}\n") and "/elsewhere/convo-tui" in shown
    assert path.read_bytes() == written  # --print writes nothing

    assert main(["mcp", "install", agent, "--command", "/elsewhere/convo-tui"]) == 0
    assert capsys.readouterr().out == f"{agent}: updated convo-tui to {path} (backup: {backup})\n"
    assert load(agent, path)[key]["convo-tui"] == expected_entry(agent, ["mcp"]) | (
        {"command": ["/elsewhere/convo-tui", "mcp"]} if agent == "opencode" else {"command": "/elsewhere/convo-tui"}
    )
    assert backup.read_bytes() == original  # the state before convo-tui first changed the file


def test_a_missing_config_is_created_private(home, capsys):
    assert main(["mcp", "install", "cursor", "--command", COMMAND]) == 0
    path = where("cursor", home)
    assert json.loads(path.read_text(encoding="utf-8")) == {"mcpServers": {"convo-tui": {"command": COMMAND, "args": ["mcp"]}}}
    assert path.stat().st_mode & 0o777 == 0o600
    assert not path.with_name("mcp.json.convo-tui.bak").exists()
    assert capsys.readouterr().out == f"cursor: added convo-tui to {path}\n"


def test_keys_the_user_added_to_our_entry_are_kept(home):
    path = where("gemini", home)
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"mcpServers": {"convo-tui": {"command": "old", "args": ["mcp"], "trust": True}}}), encoding="utf-8"
    )
    assert main(["mcp", "install", "gemini", "--command", COMMAND]) == 0
    assert load("gemini", path)["mcpServers"]["convo-tui"] == {"command": COMMAND, "args": ["mcp"], "trust": True}


def test_codex_keeps_the_tables_of_our_entry(home):
    path = where("codex", home)
    path.parent.mkdir(parents=True)
    path.write_text(
        '[mcp_servers.convo-tui]\ncommand = "old"\nargs = ["mcp"]\nstartup_timeout_sec = 20\n\n'
        '[mcp_servers.convo-tui.env]\nCONVO_TUI_INDEX_DIR = "/data/index"\n',
        encoding="utf-8",
    )
    assert main(["mcp", "install", "codex", "--command", COMMAND]) == 0
    assert load("codex", path)["mcp_servers"]["convo-tui"] == {
        "command": COMMAND,
        "args": ["mcp"],
        "startup_timeout_sec": 20,
        "env": {"CONVO_TUI_INDEX_DIR": "/data/index"},
    }


@pytest.mark.parametrize(
    ("agent", "text", "reason"),
    [
        ("vscode", '{\n  // my servers\n  "servers": {}\n}\n', "not plain JSON"),
        ("cursor", "[1, 2]\n", "the top level is not an object"),
        ("opencode", '{"mcp": []}\n', "'mcp' is not an object"),
        ("codex", 'mcp_servers = { convo-tui = { command = "old" } }\n', "written in a form this cannot edit"),
        ("codex", "model = \n", "not TOML"),
    ],
)
def test_files_it_cannot_edit_safely_are_left_alone(agent, text, reason, home, capsys):
    path = where(agent, home)
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    assert main(["mcp", "install", agent, "--command", COMMAND]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"convo-tui: {agent}: {path}: ") and reason in error and error.count("\n") == 1
    assert "convo-tui" in error.split("by hand: ")[-1]  # the entry to add by hand
    assert path.read_text(encoding="utf-8") == text
    assert not path.with_name(path.name + ".convo-tui.bak").exists()


def test_with_no_names_every_agent_found_here(home, capsys):
    assert main(["mcp", "install", "--command", COMMAND]) == 1
    assert "no agent's config folder found" in capsys.readouterr().err
    (home / ".cursor").mkdir()
    (home / ".codex").mkdir()
    assert main(["mcp", "install", "--command", COMMAND]) == 0
    assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == ["codex", "cursor"]


def test_the_default_command_is_this_installations_script():
    from convo_tui.cli.mcp_install import server_command

    command = Path(server_command())
    assert command.is_absolute() and command.name == "convo-tui" and command.is_file()
