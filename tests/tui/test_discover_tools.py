"""Discovery of every tool's default places in fake homes laid out like Linux, macOS
and Windows; each tool's own override; unreadable folders and dangling links told once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from convo_tui.core.index.discover import default_locations, iter_source_files, survey
from convo_tui.core.settings import Settings

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

LINUX = {"config": ".config", "data": ".local/share", "goose": ".local/share/goose"}
# OpenCode, Goose and Amp keep the XDG layout on macOS
MAC = {"config": "Library/Application Support", "data": ".local/share", "goose": ".local/share/goose"}
WINDOWS = {"config": "AppData/Roaming", "data": ".local/share", "goose": "AppData/Roaming/Block/goose/data"}


def _home() -> Path:
    return Path(os.environ["HOME"])


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copy(source, target)


def _lay_out(home: Path, layout: dict[str, str]) -> None:
    """Every tool's files where it writes them on one system."""
    config = home / layout["config"]
    _copy(FIXTURES / "codex/sessions", home / ".codex/sessions")
    build_tree(FIXTURES / "cursor_ide/User", config / "Cursor/User")
    build_tree(FIXTURES / "opencode/db", home / layout["data"] / "opencode")
    _copy(FIXTURES / "opencode/storage", home / layout["data"] / "opencode/storage")
    _copy(FIXTURES / "gemini/tmp", home / ".gemini/tmp")
    _copy(FIXTURES / "copilot/Code/User/workspaceStorage", config / "Code/User/workspaceStorage")
    _copy(FIXTURES / "cline/saoudrizwan.claude-dev", config / "Code/User/globalStorage/saoudrizwan.claude-dev")
    _copy(FIXTURES / "cline/rooveterinaryinc.roo-cline", config / "Cursor/User/globalStorage/rooveterinaryinc.roo-cline")
    # The tools that keep their data under the home folder on every system (`%USERPROFILE%` on Windows).
    _copy(FIXTURES / "copilot_cli/session-state", home / ".copilot/session-state")
    _copy(FIXTURES / "antigravity/antigravity-cli", home / ".gemini/antigravity-cli")
    build_tree(FIXTURES / "cursor_cli/chats", home / ".cursor/chats")
    _copy(FIXTURES / "pi/sessions", home / ".pi/agent/sessions")
    build_tree(FIXTURES / "goose/sessions", home / layout["goose"] / "sessions")
    _copy(FIXTURES / "qwen/projects", home / ".qwen/projects")
    _copy(FIXTURES / "kimi", home / ".kimi")
    _copy(FIXTURES / "amp/threads", home / layout["data"] / "amp/threads")
    _copy(FIXTURES / "openhands/conversations", home / ".openhands/conversations")
    _copy(FIXTURES / "factory/sessions", home / ".factory/sessions")
    _copy(FIXTURES / "kiro/sessions", home / ".kiro/sessions")


EXPECTED_FORMATS = {
    "codex": 3,  # three rollouts (one holds no conversation: found, and refused later)
    "cursor-ide": 1,
    "opencode": 3,  # the database and the two older session files
    "gemini-cli": 3,  # two .json sessions and a .jsonl journal of 0.39
    "copilot-chat": 2,
    "cline": 2,
    "copilot-cli": 1,
    "antigravity": 1,
    "cursor-cli": 1,
    "pi": 1,
    "goose": 2,  # sessions.db and an older .jsonl
    "qwen-code": 1,
    "kimi-cli": 1,  # context.jsonl and state.json beside it are read with it
    "amp": 1,
    "openhands": 1,  # the events are read with base_state.json
    "factory-droid": 1,  # <id>.settings.json is read with it
    "kiro-cli": 1,  # <id>.json is read with it
}


@pytest.mark.parametrize("layout", [LINUX, MAC, WINDOWS], ids=["linux", "macos", "windows"])
def test_every_tool_is_found_in_its_usual_place(layout: dict[str, str]):
    home = _home()
    _lay_out(home, layout)
    locations = default_locations(Settings())
    assert {loc.format for loc in locations} >= set(EXPECTED_FORMATS)
    assert all(home in loc.path.parents for loc in locations)
    found: dict[str, int] = {}
    sessions = 0
    for report in survey(locations):
        assert report.unknown == 0, report  # companions (ui_messages.json, message/ and part/ records) are not offered
        assert report.problems == []
        sessions += report.sessions
        for name, count in report.formats.items():
            found[name] = found.get(name, 0) + count
    assert found == EXPECTED_FORMATS
    assert sessions == 3 + 3 + 4 + 3 + 2 + 2 + 12  # Cursor's database holds three chats, OpenCode's two


def test_each_tools_own_home_override_is_respected(tmp_path: Path, monkeypatch):
    codex, data, appdata = tmp_path / "codex-home", tmp_path / "xdg-data", tmp_path / "roaming"
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("APPDATA", str(appdata))
    _copy(FIXTURES / "codex/sessions", codex / "sessions")
    build_tree(FIXTURES / "opencode/db", data / "opencode")
    build_tree(FIXTURES / "cursor_ide/User", appdata / "Cursor/User")
    paths = {loc.path for loc in default_locations(Settings())}
    assert {codex / "sessions", data / "opencode/opencode.db", appdata / "Cursor/User/globalStorage/state.vscdb"} <= paths
    assert not any(_home() in p.parents for p in paths)  # nothing was looked for in the default places


def test_the_new_tools_own_overrides_are_respected(tmp_path: Path, monkeypatch):
    homes = {
        "COPILOT_HOME": ("copilot", "copilot_cli/session-state", "session-state"),
        "PI_CODING_AGENT_DIR": ("pi", "pi/sessions", "sessions"),
        "QWEN_RUNTIME_DIR": ("qwen", "qwen/projects", "projects"),
        "KIMI_SHARE_DIR": ("kimi", "kimi/sessions", "sessions"),
        "OPENHANDS_CONVERSATIONS_DIR": ("openhands", "openhands/conversations", "."),
        "GOOSE_PATH_ROOT": ("goose", "goose/sessions", "data/sessions"),
    }
    wanted = set()
    for variable, (folder, fixture, below) in homes.items():
        monkeypatch.setenv(variable, str(tmp_path / folder))
        target = tmp_path / folder if below == "." else tmp_path / folder / below
        (build_tree if variable == "GOOSE_PATH_ROOT" else _copy)(FIXTURES / fixture, target)
        wanted.add(target)
    found = {loc.path for loc in default_locations(Settings())}
    assert wanted <= found
    assert not any(_home() in p.parents for p in found)


def test_aider_and_claude_ai_are_found_where_the_user_points(tmp_path: Path):
    repo = tmp_path / "habit-tracker"
    _copy(FIXTURES / "aider/habit-tracker", repo)
    export = tmp_path / "claude-export"
    _copy(FIXTURES / "claude_ai/conversations.json", export / "conversations.json")
    settings = Settings(sources=[repo, export], discover_defaults=False)
    (aider, claude) = survey(default_locations(settings))
    assert (aider.location.name, aider.formats, aider.sessions) == ("Aider chat history", {"aider": 1}, 2)
    assert (claude.location.name, claude.formats, claude.sessions) == ("Claude.ai export", {"claude-ai": 1}, 2)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_dangling_links_and_unreadable_folders_are_told_once(tmp_path: Path, monkeypatch):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub/a.jsonl").write_text("{}\n", encoding="utf-8")
    (root / "gone.jsonl").symlink_to(tmp_path / "deleted.jsonl")
    locked = root / "locked"
    locked.mkdir()
    real_scandir = os.scandir

    def scandir(path):  # as root, chmod cannot lock us out: the kernel's answer is simulated
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    told: list[tuple[Path, str]] = []
    with monkeypatch.context() as patch:  # undone before tmp_path is removed (rmtree scans by fd)
        patch.setattr(os, "scandir", scandir)
        files = list(iter_source_files([root, root, root / "sub"], lambda path, reason: told.append((path, reason))))
    assert files == [root / "sub/a.jsonl"]
    assert told == [
        (root / "gone.jsonl", "dangling link (its target does not exist)"),
        (locked, "cannot read folder: Permission denied"),
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_index_reports_a_dangling_link_as_skipped(tmp_path: Path):
    from convo_tui.core.library import Library

    root = tmp_path / "root"
    _copy(FIXTURES / "codex/sample", root / "codex")
    (root / "old.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        report = library.index([root])
    assert report.added == 1
    assert report.skipped == [(str(root / "old.jsonl"), "dangling link (its target does not exist)")]
