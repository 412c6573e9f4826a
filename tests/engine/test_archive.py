"""The archive end to end: sessions outlive their files, the tools' retention is told,
the history moves to a new data folder (real model, real index, the CLI)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from convo_tui.cli.main import main
from convo_tui.core.index import reader_process

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

QUERIES = (
    "flaky login test",
    "cart badge accessible",
    "print stylesheet",
    "git switch checkout",
    "forecast cache",
    "invoice rounding",
)


def corpus(root: Path) -> list[Path]:
    """Transcripts of every shape the archive keeps differently: plain files, files read
    with companions (Cline, Gemini, OpenCode storage, chat threads, Cursor's workspaces)
    and databases. Returns the places to index."""
    src = root / "src"
    for name in ("5b5b5b5b-3333-4333-8333-00000000dddd.jsonl", "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"):
        (src / "claude").mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / "claude_code" / name, src / "claude" / name)
    shutil.copytree(FIXTURES / "cline" / "saoudrizwan.claude-dev", src / "saoudrizwan.claude-dev")
    shutil.copytree(FIXTURES / "gemini" / "tmp" / "recipe-site", src / ".gemini" / "tmp" / "recipe-site")
    storage = src / "opencode" / "storage"
    shutil.copytree(FIXTURES / "opencode" / "storage" / "message", storage / "message")
    shutil.copytree(FIXTURES / "opencode" / "storage" / "part", storage / "part")
    session = next((FIXTURES / "opencode" / "storage" / "session").rglob("ses_6a1f03e2bffeQx2kZc9d8LmN4p.json"))
    (storage / "session" / session.parent.name).mkdir(parents=True)
    shutil.copy(session, storage / "session" / session.parent.name / session.name)
    build_tree(FIXTURES / "opencode" / "db", src / "opencode-db" / "opencode")
    build_tree(FIXTURES / "cursor_ide" / "User", src / "Cursor" / "User")
    shutil.copytree(FIXTURES / "chat_threads" / "workspace-notes", src / "workspace-notes")
    return [
        src / "claude",
        src / "saoudrizwan.claude-dev",
        src / ".gemini" / "tmp" / "recipe-site" / "chats",
        storage / "session",
        src / "opencode-db" / "opencode" / "opencode.db",
        src / "Cursor" / "User" / "globalStorage" / "state.vscdb",
        src / "workspace-notes",
    ]


def configure(sources: list[Path], extra: str = "") -> None:
    paths = ", ".join(json.dumps(str(p)) for p in sources)
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text(f"sources = [{paths}]\ndiscover_defaults = false\n{extra}", encoding="utf-8")


def cli_json(capsys, *argv: str) -> list[dict]:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def snapshot(capsys) -> dict:
    """What a user sees: the sessions, each whole as the reader opens it, and search results
    (through the engine the app and the CLI use, opened once)."""
    from convo_tui.core.holder.access import open_engine
    from convo_tui.core.serialize import session_to_json
    from convo_tui.core.settings import Settings

    with open_engine(Settings.load(), read_only=True) as engine:
        listed = [s.to_json() for s in engine.sessions()]
        sessions = {s["id"]: {k: v for k, v in s.items() if k != "orphaned"} for s in listed}
        shown = {sid: session_to_json(engine.session(sid)) for sid in sessions}
        found = {q: [(h.session_id, h.turn_index, round(h.score, 4)) for h in engine.search(q, limit=5)] for q in QUERIES}
    return {"sessions": sessions, "shown": shown, "found": found}


def test_after_every_source_is_deleted_a_rebuild_keeps_every_session_read_from_the_archive(tmp_path, capsys, monkeypatch):
    configure(corpus(tmp_path))
    assert main(["index"]) == 0
    before = snapshot(capsys)
    assert len(before["sessions"]) == 12 and all(before["found"].values())
    assert {s["project"] for s in before["sessions"].values() if s["source"] == "cursor-ide"} != {
        "Cursor"
    }  # read with its workspaces
    shutil.rmtree(tmp_path / "src")  # every source file is gone (a tool's retention, a new disk)
    # Read by a reader process (as a large history is): the archive's copies are labelled across it.
    monkeypatch.setattr(reader_process, "PROCESS_BYTES", 0)
    assert main(["index", "--rebuild"]) == 0
    capsys.readouterr()
    after = snapshot(capsys)
    assert after == before
    some = next(iter(before["shown"]))
    assert cli_json(capsys, "show", some, "--json") == [json.loads(json.dumps(before["shown"][some], default=str))]
    listed = cli_json(capsys, "sessions", "--json")
    assert all(s["orphaned"] for s in listed)  # their files are gone: read from the archive
    # A plain run afterwards finds everything as it was: nothing re-read, nothing lost.
    assert main(["index"]) == 0
    assert "0 added, 0 updated" in capsys.readouterr().out


def test_deleted_and_pruned_sessions_stay_out_when_the_rest_is_re_read_from_the_archive(tmp_path, capsys):
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "claude_code", src)
    (src / "truncated.jsonl").unlink()
    configure([src])
    assert main(["index"]) == 0
    before = {s["id"] for s in cli_json(capsys, "sessions", "--json")}
    assert main(["session", "delete", "-y", "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"]) == 0
    (src / "plan-handoff.jsonl").unlink()
    pruned = before - {"7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"} - {s.stem for s in src.glob("*.jsonl")}
    assert main(["prune"]) == 0
    shutil.rmtree(src)
    assert main(["index", "--rebuild"]) == 0
    after = {s["id"] for s in cli_json(capsys, "sessions", "--json")}
    assert after == before - {"7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"} - pruned and len(after) == 2


def test_sources_reports_claude_codes_retention_and_the_sessions_kept_only_here(tmp_path, capsys):
    home = Path.home()
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 7}))
    projects = home / ".claude" / "projects" / "-home-dev-code-shop"
    projects.mkdir(parents=True)
    for name in (
        "4a4a4a4a-2222-4222-8222-00000000cccc.jsonl",
        "5b5b5b5b-3333-4333-8333-00000000dddd.jsonl",
        "plan-handoff.jsonl",
    ):
        shutil.copy(FIXTURES / "claude_code" / name, projects / name)
    stale = time.time() - 10 * 86400
    os.utime(projects / "plan-handoff.jsonl", (stale, stale))  # older than 7 days: Claude deletes it at its next start
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text("", encoding="utf-8")
    assert main(["index"]) == 0
    (projects / "4a4a4a4a-2222-4222-8222-00000000cccc.jsonl").unlink()  # what Claude Code's cleanup does
    capsys.readouterr()
    assert main(["sources"]) == 0
    out = capsys.readouterr().out
    assert "1 session exists only here" in out
    assert (
        "Claude Code deletes sessions after 7 days (cleanupPeriodDays in ~/.claude/settings.json); 1 of its sessions here is "
        "past that and goes at its next start; convo-tui keeps a copy (1 session is kept only here)"
    ) in out
    status = cli_json(capsys, "sources", "--json")[-1]["archive"]
    assert status["only_here"] == 1 and status["only_here_by_source"] == {"claude-code": 1}


def test_export_then_import_into_a_fresh_data_folder_gives_the_same_history(tmp_path, capsys, monkeypatch):
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "claude_code", src)
    (src / "truncated.jsonl").unlink()
    shutil.copytree(FIXTURES / "cline" / "saoudrizwan.claude-dev", src / "saoudrizwan.claude-dev")
    configure([src])
    assert main(["index"]) == 0
    assert main(["session", "star", "5b5b5b5b-3333-4333-8333-00000000dddd"]) == 0
    assert main(["session", "rename", "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b", "The flaky login"]) == 0
    assert main(["session", "tag", "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b", "auth"]) == 0
    before = snapshot(capsys)
    export = tmp_path / "history.tar.zst"
    assert main(["archive", "export", str(export)]) == 0
    assert export.stat().st_mode & 0o777 == 0o600
    shutil.rmtree(src)
    # A new machine: another data folder, nothing of the old one.
    monkeypatch.setenv("CONVO_TUI_INDEX_DIR", str(tmp_path / "fresh" / "index"))
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text("discover_defaults = false\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["archive", "import", str(export)]) == 0
    assert "imported" in capsys.readouterr().out
    after = snapshot(capsys)
    assert after == before
    assert after["sessions"]["5b5b5b5b-3333-4333-8333-00000000dddd"]["starred"] is True
    assert after["sessions"]["7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"]["title"] == "The flaky login"
    # Importing again duplicates nothing.
    assert main(["archive", "import", str(export), "--no-index"]) == 0
    assert "0 new transcript files, 0 new versions, edits of 0 sessions" in capsys.readouterr().out
    assert main(["index"]) == 0
    assert snapshot(capsys) == before


def test_without_the_archive_nothing_is_kept_and_sources_says_so(tmp_path, capsys):
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "claude_code", src)
    (src / "truncated.jsonl").unlink()
    configure([src], "[archive]\nenabled = false\n")
    assert main(["index"]) == 0
    assert not (Path(os.environ["CONVO_TUI_INDEX_DIR"]) / "archive").exists()
    assert main(["sources"]) == 0
    assert "archive: off" in capsys.readouterr().out
