"""Discovery: the tools' default places and the candidate files under a folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from convo_tui.core.index.discover import Location, claude_projects_dirs, default_locations, describe_path, iter_source_files
from convo_tui.core.settings import Settings

from tests.paths import FIXTURES


def _touch(path: Path, text: str = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _home() -> Path:
    return Path(os.environ["HOME"])


def test_no_defaults_exist_gives_only_configured_paths(tmp_path):
    missing = tmp_path / "nowhere"
    settings = Settings(sources=[missing])
    assert default_locations(settings) == [Location("Configured path", missing, None, "config")]


def test_defaults_found_in_home_and_claude_config_dir(tmp_path):
    home = _home()
    (home / ".cursor/projects/Users-alice-code-app/agent-transcripts").mkdir(parents=True)
    (home / ".cursor/projects/Users-alice-code-web/agent-transcripts").mkdir(parents=True)
    (home / ".cursor/projects/Users-alice-code-empty").mkdir(parents=True)  # no transcripts folder
    (home / ".claude/projects").mkdir(parents=True)
    specstory = tmp_path / "repo/.specstory/history"
    specstory.mkdir(parents=True)
    export = _touch(tmp_path / "export/conversations.json", "[]")
    settings = Settings(sources=[specstory, export.parent, tmp_path / "other"])
    assert default_locations(settings) == [
        Location(
            "Cursor agent transcripts", home / ".cursor/projects/Users-alice-code-app/agent-transcripts", "cursor", "default"
        ),
        Location(
            "Cursor agent transcripts", home / ".cursor/projects/Users-alice-code-web/agent-transcripts", "cursor", "default"
        ),
        Location("Claude Code projects", home / ".claude/projects", "claude-code", "default"),
        Location("SpecStory history", specstory, "specstory", "config"),
        Location("Chat export (conversations.json)", export.parent, None, "config"),  # "[]": ChatGPT or Claude.ai
        Location("Configured path", tmp_path / "other", None, "config"),
    ]


def test_discover_defaults_off_keeps_configured_paths_only(tmp_path):
    (_home() / ".claude/projects").mkdir(parents=True)
    settings = Settings(sources=[tmp_path], discover_defaults=False)
    assert default_locations(settings) == [Location("Configured path", tmp_path, None, "config")]


def test_configured_path_equal_to_a_default_is_listed_once():
    projects = _home() / ".claude/projects"
    projects.mkdir(parents=True)
    settings = Settings(sources=[projects])
    assert default_locations(settings) == [Location("Claude Code projects", projects, "claude-code", "default")]


def test_claude_config_dir_may_list_several_roots(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tmp_path / 'a'},{tmp_path / 'b'}")
    assert claude_projects_dirs() == [tmp_path / "a/projects", tmp_path / "b/projects"]


def test_claude_defaults_without_env(monkeypatch):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert claude_projects_dirs() == [_home() / ".config/claude/projects", _home() / ".claude/projects"]


def test_describe_path_names_a_single_export_file(tmp_path):
    assert describe_path(tmp_path / "conversations.json", "argument") == Location(
        "Chat export (conversations.json)", tmp_path / "conversations.json", None, "argument"
    )
    chatgpt, claude = FIXTURES / "chatgpt/conversations.json", FIXTURES / "claude_ai/conversations.json"
    assert describe_path(chatgpt, "argument") == Location("ChatGPT export", chatgpt, "chatgpt", "argument")
    assert describe_path(claude.parent, "config") == Location("Claude.ai export", claude.parent, "claude-ai", "config")


def test_iter_source_files_walks_sorted_and_skips_noise(tmp_path):
    root = tmp_path / "root"
    wanted = [
        _touch(root / ".claude/projects/p/s1.jsonl"),
        _touch(root / ".specstory/history/2025-01-01_chat.md"),
        _touch(root / "a.txt"),
        _touch(root / "b/thread-1/thread.json", "{}"),
        _touch(root / "b/transcript"),  # extension-less text
        _touch(root / "c.JSON", "{}"),
        _touch(root / "d.md"),
    ]
    _touch(root / "b/threads.json", "{}")  # the thread index, not a unit
    _touch(root / ".git/HEAD.txt")
    _touch(root / ".hidden/x.txt")
    _touch(root / ".notes.md")  # hidden file
    _touch(root / "node_modules/pkg/readme.md")
    _touch(root / "__pycache__/x.txt")
    _touch(root / ".venv/lib/x.txt")
    _touch(root / "image.png")
    (root / "blob").write_bytes(b"\x00\x01binary")  # extension-less binary
    _touch(root / "empty-noext", "")
    assert list(iter_source_files([root])) == wanted


def test_iter_source_files_yields_given_files_as_they_are_and_each_once(tmp_path):
    odd = _touch(tmp_path / "export.data")  # not a usual suffix, but asked for by name
    folder_file = _touch(tmp_path / "dir/a.txt")
    got = list(iter_source_files([odd, tmp_path / "dir", folder_file, tmp_path / "missing"]))
    assert got == [odd, folder_file]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_loops_end_and_linked_files_come_once(tmp_path):
    root = tmp_path / "root"
    real = _touch(root / "sub/a.txt")
    (root / "sub/loop").symlink_to(root, target_is_directory=True)
    (root / "alias").symlink_to(root / "sub", target_is_directory=True)
    got = list(iter_source_files([root]))
    assert got == [root / "alias/a.txt"]
    assert real.resolve() == got[0].resolve()


def test_iter_source_files_does_not_parse(tmp_path):
    # A file with broken content is still a candidate: judging content is detect()'s job.
    broken = _touch(tmp_path / "broken.jsonl", "{not json")
    assert list(iter_source_files([tmp_path])) == [broken]


def _config(lines: str) -> None:
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text(lines, encoding="utf-8")


def _checked_places(home: Path) -> dict[str, list[str]]:
    """Every default place `sources` must name, by tool, in its order (the temp home's layout)."""
    roots = [f"{home}/.config", f"{home}/Library/Application Support", f"{home}/AppData/Roaming"]
    return {
        "Cursor agent transcripts": [f"{home}/.cursor/projects/*/agent-transcripts"],
        "Claude Code projects": [f"{home}/.claude/projects"],
        "Codex CLI sessions": [f"{home}/.codex/sessions", f"{home}/.codex/archived_sessions"],
        "Cursor IDE chats": [f"{root}/Cursor/User/globalStorage/state.vscdb" for root in roots],
        "OpenCode sessions": [f"{home}/.local/share/opencode/opencode.db", f"{home}/.local/share/opencode/storage/session"],
        "Gemini CLI chats": [f"{home}/.gemini/tmp/*/chats"],
        "VS Code Copilot Chat": [
            f"{root}/{app}/User/{where}"
            for app in ("Code", "Code - Insiders", "VSCodium")
            for root in roots
            for where in ("workspaceStorage/*/chatSessions", "globalStorage/emptyWindowChatSessions")
        ],
        "Cline / Roo Code tasks": [
            f"{root}/{app}/User/globalStorage/{ext}/tasks"
            for app in ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
            for root in roots
            for ext in ("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline")
        ],
    }


def _listed(places: dict[str, list[str]]) -> str:
    """As `sources` lists them: by tool, the home folder written `~`."""
    home = str(_home())
    return "".join(
        f"  {name}:\n" + "".join(f"    ~{place.removeprefix(home)}\n" for place in paths) for name, paths in places.items()
    )


def test_sources_command_says_where_it_looked_when_nothing_is_found(capsys):
    from convo_tui.cli.main import main

    assert main(["sources"]) == 0
    home = _home()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "No transcripts found. Looked in:"
    assert (
        lines[-1] == f"Add folders or files to `sources` in {os.environ['CONVO_TUI_CONFIG']}, or pass paths to `convo-tui index`."
    )
    # By tool ("  Name:"), then each place under it, the home folder written `~`.
    looked = [str(home) + line.strip().removeprefix("~") for line in lines[1:-1] if line.startswith("    ")]
    assert len(looked) == len(set(looked))
    assert all(line.startswith("    ") or (line.startswith("  ") and line.endswith(":")) for line in lines[1:-1])
    for place in [
        f"{home}/.cursor/projects/*/agent-transcripts",
        f"{home}/.claude/projects",
        f"{home}/.codex/sessions",
        f"{home}/AppData/Roaming/Cursor/User/globalStorage/state.vscdb",
        f"{home}/.local/share/opencode/opencode.db",
        f"{home}/.gemini/tmp/*/chats",
        f"{home}/Library/Application Support/Code/User/workspaceStorage/*/chatSessions",
        f"{home}/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
        f"{home}/.gemini/antigravity*/brain/*/.system_generated/logs",
        f"{home}/.copilot/session-state",
        f"{home}/.cursor/chats",
        f"{home}/.pi/agent/sessions",
        f"{home}/.local/share/goose/sessions",
        f"{home}/AppData/Roaming/Block/goose/data/sessions",
        f"{home}/.qwen/projects",
        f"{home}/.kimi/sessions",
        f"{home}/.local/share/amp/threads",
        f"{home}/.openhands/conversations",
        f"{home}/.factory/sessions",
        f"{home}/.kiro/sessions/cli",
    ]:
        assert place in looked


def test_sources_command_names_every_place_it_checked_not_only_those_with_transcripts(capsys):
    """Issue 23: with Claude Code found, the other tools' places still show (nothing there)."""
    import shutil

    from convo_tui.cli.main import main

    projects = _home() / ".claude/projects/-home-dev-code-webshop"
    projects.mkdir(parents=True)
    shutil.copy(FIXTURES / "claude_code/truncated.jsonl", projects / "s1.jsonl")
    assert main(["sources"]) == 0
    out = capsys.readouterr().out
    others = _checked_places(_home())
    del others["Claude Code projects"]
    assert out.startswith(f"Claude Code projects (default): {_home() / '.claude/projects'}\n")
    assert "Also looked in (nothing there):\n" in out
    listed = out.split("Also looked in (nothing there):\n", 1)[1]
    for name, paths in others.items():  # each tool's places under its name, in order
        assert _listed({name: paths}) in listed, name
    assert "No transcripts found" not in out
    assert main(["sources", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    places = [row for row in rows if "path" in row]
    assert (places[0]["path"], places[0]["exists"]) == (str(_home() / ".claude/projects"), True)
    assert not any(row["exists"] for row in places[1:])
    assert {place for paths in others.values() for place in paths} <= {row["path"] for row in places[1:]}


def test_sources_command_counts_sessions_per_location(capsys):
    import shutil

    from convo_tui.cli.main import main

    projects = _home() / ".claude/projects/-home-dev-code-webshop"
    projects.mkdir(parents=True)
    shutil.copy(FIXTURES / "claude_code/truncated.jsonl", projects / "s1.jsonl")
    _touch(projects / "notes.txt", "not a transcript\n")
    history = FIXTURES / "specstory/widgets/.specstory/history"
    _config(f'sources = ["{FIXTURES / "chatgpt"}", "{history}", "/nowhere/at/all"]\n')
    assert main(["sources", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rows = [row for row in rows if row["exists"] or row["origin"] == "config"]  # the places with nothing are tested above
    assert rows == [
        {
            "name": "Claude Code projects",
            "path": str(_home() / ".claude/projects"),
            "origin": "default",
            "format": "claude-code",
            "exists": True,
            "files": 1,
            "sessions": 1,
            "formats": {"claude-code": 1},
            "unknown": 1,
            "problems": [],
        },
        {
            "name": "ChatGPT export",
            "path": str(FIXTURES / "chatgpt"),
            "origin": "config",
            "format": "chatgpt",
            "exists": True,
            "files": 3,
            "sessions": 4,
            "formats": {"chatgpt": 3},
            "unknown": 0,
            "problems": [],
        },
        {
            "name": "SpecStory history",
            "path": str(history),
            "origin": "config",
            "format": "specstory",
            "exists": True,
            "files": 3,
            "sessions": 3,
            "formats": {"specstory": 3},
            "unknown": 0,
            "problems": [],
        },
        {
            "name": "Configured path",
            "path": "/nowhere/at/all",
            "origin": "config",
            "format": None,
            "exists": False,
            "files": 0,
            "sessions": 0,
            "formats": {},
            "unknown": 0,
            "problems": [],
        },
    ]
    assert main(["sources"]) == 0
    assert capsys.readouterr().out.startswith(
        f"Claude Code projects (default): {_home() / '.claude/projects'}\n"
        "  1 session in 1 file (claude-code 1); 1 file of unknown format skipped\n"
        f"ChatGPT export (config): {FIXTURES / 'chatgpt'}\n"
        "  4 sessions in 3 files (chatgpt 3)\n"
        f"SpecStory history (config): {history}\n"
        "  3 sessions in 3 files (specstory 3)\n"
        "Configured path (config): /nowhere/at/all\n"
        "  missing\n"
        "Also looked in (nothing there):\n"
    )
