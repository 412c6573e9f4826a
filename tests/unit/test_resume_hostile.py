"""Session ids and folders read from transcripts never steer the resume command
(issue 24, item 1): per source, a hostile id gives no command at all, a hostile
folder is never run in, and what is copied is quoted."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from convo_tui.core import resume
from convo_tui.core.errors import shown
from convo_tui.core.model import Session
from convo_tui.core.sources import parse_path

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

HOSTILE_IDS = [
    "--dangerously-skip-permissions",
    "-rf",
    "$(touch pwned)",
    "; rm -rf ~",
    "0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f\n--dangerously-skip-permissions",
    "0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f\x00",
    "0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f --yolo",
]
HOSTILE_FOLDERS = ["-rf", "$(touch pwned)", "/tmp/x; rm -rf ~", "/tmp/a\nb", "/tmp/a\x00b", "--dangerously-skip-permissions"]
GOOD_UUID = "0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f"


def _installed(program: str) -> str:
    """Every tool's program is on PATH (the PATH check has its own tests: test_resume.py)."""
    return f"/usr/bin/{program}"


def _claude(tmp_path: Path, session_id: str, cwd: str) -> Path:
    source = FIXTURES / "claude_code" / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if "sessionId" in record:
            record["sessionId"] = session_id
        if "cwd" in record:
            record["cwd"] = cwd
        lines.append(json.dumps(record))
    target = tmp_path / "claude" / "session.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def _codex(tmp_path: Path, session_id: str, cwd: str) -> Path:
    source = next((FIXTURES / "codex").rglob("rollout-*0199e3a1*.jsonl"))
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "session_meta":
            record["payload"]["id"] = session_id
            record["payload"]["cwd"] = cwd
        lines.append(json.dumps(record))
    target = tmp_path / "codex" / "rollout-2025-10-14T16-20-00-hostile.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def _gemini(tmp_path: Path, session_id: str, cwd: str) -> Path:
    project = tmp_path / "gemini" / "tmp" / "recipe-site"
    shutil.copytree(FIXTURES / "gemini" / "tmp" / "recipe-site", project)
    chat = next((project / "chats").glob("*.json"))
    data = json.loads(chat.read_text(encoding="utf-8"))
    data["sessionId"] = session_id
    chat.write_text(json.dumps(data, indent=2), encoding="utf-8")  # as Gemini writes it
    (project / ".project_root").write_text(cwd, encoding="utf-8")
    return chat


def _opencode(tmp_path: Path, session_id: str, cwd: str) -> Path:
    folder = build_tree(FIXTURES / "opencode" / "db", tmp_path / "opencode")
    import sqlite3

    database = folder / "opencode.db"
    connection = sqlite3.connect(database)
    try:
        old = "ses_5f00aa11bffe7Hk2Lm3Nn4Op5Q"
        for table, column in (("session", "id"), ("session", "parent_id"), ("message", "session_id"), ("part", "session_id")):
            connection.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (session_id, old))
        connection.execute("UPDATE session SET directory = ?", (cwd,))
        connection.commit()
    finally:
        connection.close()
    return database


def _specstory(tmp_path: Path, session_id: str, cwd: str) -> Path:
    # SpecStory writes the id into an HTML comment on one line: a newline or NUL cannot be there.
    del cwd  # the folder is where the export lies, not a value of the file
    source = FIXTURES / "specstory" / "kiosk" / ".specstory" / "history" / "2025-12-06_19-04-39Z-flaky-printer-test.md"
    target = tmp_path / "kiosk" / ".specstory" / "history" / source.name
    target.parent.mkdir(parents=True)
    text = source.read_text(encoding="utf-8").replace("6e5d4c3b-2a19-4f08-b7c6-d5e4f3a2b1c0", session_id.split("\n")[0])
    target.write_text(text, encoding="utf-8")
    return target


SOURCES = {"claude-code": _claude, "codex": _codex, "gemini-cli": _gemini, "opencode": _opencode, "specstory": _specstory}
GOOD_IDS = {"opencode": "ses_5f00aa11bffe7Hk2Lm3Nn4Op5Q"}


def _session(sessions: list[Session], source: str) -> Session:
    return next(s for s in sessions if not s.meta.get("parent")) if source == "opencode" else sessions[0]


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("session_id", HOSTILE_IDS)
def test_a_hostile_session_id_never_reaches_a_command_line(tmp_path, source, session_id):
    session = _session(parse_path(SOURCES[source](tmp_path, session_id, "/home/dev/code/webshop")), source)
    plan = resume.plan(session, which=_installed)
    if session_id.startswith(GOOD_UUID) and session.resume is not None:
        # A reader that takes only the id's own shape from the line (SpecStory's header) is fine too.
        assert session.resume[-1] == GOOD_UUID and plan.argv == session.resume
        return
    assert session.resume is None  # the id stays the session's name, never an argument
    assert plan.argv is None and not plan.runnable and plan.shell_line() is None
    assert plan.refused and "\n" not in plan.refused and "\x00" not in plan.refused


@pytest.mark.parametrize("source", sorted(set(SOURCES) - {"specstory"}))
@pytest.mark.parametrize("folder", HOSTILE_FOLDERS)
def test_a_hostile_folder_is_never_run_in_and_copied_quoted(tmp_path, source, folder):
    good = GOOD_IDS.get(source, GOOD_UUID)
    session = _session(parse_path(SOURCES[source](tmp_path, good, folder)), source)
    plan = resume.plan(session, which=_installed)
    assert plan.argv is not None and plan.argv[-1] == good
    assert not plan.runnable and plan.cwd is None  # not an existing absolute folder: copied, not run
    line = plan.shell_line()
    assert line is not None and "\n" not in line and "\x00" not in line
    words = shlex.split(line)
    if words[0] == "cd":  # a clean absolute path: one quoted word, then the command
        assert words[1] == folder and words[2] == "&&" and words[3:] == plan.argv
    else:
        assert words == plan.argv


def test_aider_runs_in_the_repository_folder_it_was_read_from(tmp_path):
    repo = tmp_path / "$(touch pwned)"
    shutil.copytree(FIXTURES / "aider" / "habit-tracker", repo)
    session = parse_path(repo / ".aider.chat.history.md")[0]
    plan = resume.plan(session, which=_installed)
    assert plan.argv == ["aider", "--restore-chat-history"] and plan.runnable and plan.cwd == str(repo)
    assert shlex.split(plan.shell_line() or "") == ["cd", str(repo), "&&", "aider", "--restore-chat-history"]
    assert not (tmp_path / "pwned").exists()


def test_codex_ids_come_after_end_of_options():
    assert resume.command("codex", GOOD_UUID) == ["codex", "resume", "--", GOOD_UUID]
    assert resume.command("claude", GOOD_UUID) == ["claude", "--resume", GOOD_UUID]
    assert resume.command("gemini", GOOD_UUID) == ["gemini", "--resume", GOOD_UUID]
    assert resume.command("opencode", "ses_5f00aa11bffe7Hk2Lm3Nn4Op5Q") == [
        "opencode",
        "--session",
        "ses_5f00aa11bffe7Hk2Lm3Nn4Op5Q",
    ]
    assert resume.command("opencode", GOOD_UUID) is None  # each tool its own shape


@pytest.mark.parametrize(
    "stored",
    [
        ["claude", "--resume", "--dangerously-skip-permissions"],
        ["claude", "--resume", GOOD_UUID, "--dangerously-skip-permissions"],
        ["codex", "resume", "--", "-rf"],
        ["sh", "-c", "touch pwned"],
        ["aider", "--restore-chat-history", "--yes-always"],
        "claude --resume x",
        [1, 2],
    ],
)
def test_a_stored_command_is_checked_again_before_it_runs(stored):
    """An index written before this check (or edited on disk) holds commands as data too."""
    session = Session(id="s", title="t", project="p", source="claude-code", path="/x", resume=stored)  # type: ignore[arg-type]
    plan = resume.plan(session, which=_installed)
    assert plan.argv is None and plan.refused


def test_an_older_stored_codex_command_is_rebuilt_with_end_of_options(tmp_path):
    session = Session(id=GOOD_UUID, title="t", project="p", source="codex", path="/x", cwd=str(tmp_path))
    session.resume = ["codex", "resume", GOOD_UUID]
    plan = resume.plan(session, which=_installed)
    assert plan.argv == ["codex", "resume", "--", GOOD_UUID] and plan.runnable and plan.cwd == str(tmp_path)
    assert str(tmp_path) in plan.announce() and GOOD_UUID in plan.announce()


def test_values_shown_in_messages_are_one_line():
    assert shown("a\nb\x00c\x1b[31m") == "a\\x0ab\\x00c\\x1b[31m"
    assert len(shown("x" * 500)) == 120
