"""Format drift made visible: every reader, given a real-shaped file with one event,
record or part type it has no rule for, still reads the rest and counts what it skipped
(`parse_file(...).unknown`), which the index keeps and `convo-tui sources` reports.

One case per reader; each starts from that reader's own fixture (the test modules
test_sources_<reader>.py name the public project and version the fixture follows)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from convo_tui.core.sources import formats, parse_file

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES


def _copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)
    return target


def _plus_line(relative: str, line: dict) -> Callable[[Path], Path]:
    """The fixture with one more JSON line at its end."""

    def make(tmp: Path) -> Path:
        source = FIXTURES / relative
        path = _copy(source, tmp / source.name)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("\n" + json.dumps(line) + "\n")
        return path

    return make


def _chained_line(relative: str, extra: dict, id_key: str, parent_key: str) -> Callable[[Path], Path]:
    """One more JSON line whose parent is the last line (tree-shaped logs read the last branch)."""

    def make(tmp: Path) -> Path:
        source = FIXTURES / relative
        last = json.loads(source.read_text(encoding="utf-8").splitlines()[-1])
        return _plus_line(relative, {**extra, id_key: "drift-1", parent_key: last[id_key]})(tmp)

    return make


def _edited_json(relative: str, edit: Callable[[object], None]) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        source = FIXTURES / relative
        data = json.loads(source.read_text(encoding="utf-8"))
        edit(data)
        path = tmp / source.name
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return make


def _edited_text(relative: str, old: str, new: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        source = FIXTURES / relative
        text = source.read_text(encoding="utf-8")
        assert old in text
        path = _copy(source, tmp / Path(relative).parent.name / source.name)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return path

    return make


def _chatgpt(data: object) -> None:
    node = next(v for v in data[0]["mapping"].values() if v.get("message") and v["message"]["author"]["role"] == "assistant")  # type: ignore[index]
    node["message"]["content"] = {"content_type": "brand_new", "parts": ["x"]}


def _openhands(tmp: Path) -> Path:
    folder = _copy(next((FIXTURES / "openhands" / "conversations").iterdir()), tmp / "c")
    event = {"kind": "BrandNewEvent", "id": "e9", "timestamp": "2026-04-02T14:03:30", "source": "agent"}
    (folder / "events" / "event-00009-e9.json").write_text(json.dumps(event), encoding="utf-8")
    return folder / "base_state.json"


def _opencode(tmp: Path) -> Path:
    storage = _copy(FIXTURES / "opencode" / "storage", tmp / "storage")
    part = {
        "id": "prt_x",
        "sessionID": "ses_6a1f03e2bffeQx2kZc9d8LmN4p",
        "messageID": "msg_95e0fd990003YzAbCdEfGhIj",
        "type": "brand-new",
    }
    (storage / "part" / "msg_95e0fd990003YzAbCdEfGhIj" / "prt_x.json").write_text(json.dumps(part), encoding="utf-8")
    return storage / "session" / "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750" / "ses_6a1f03e2bffeQx2kZc9d8LmN4p.json"


def _crush(tmp: Path) -> Path:
    database = build_tree(FIXTURES / "crush" / "notes-api", tmp / "p") / ".crush" / "crush.db"
    with sqlite3.connect(database) as db:
        db.execute("UPDATE messages SET parts = ? WHERE id LIKE '3e4a%'", ('[{"type":"brand_new","data":{}}]',))
    return database


def _goose(tmp: Path) -> Path:
    database = build_tree(FIXTURES / "goose" / "sessions", tmp / "s") / "sessions.db"
    with sqlite3.connect(database) as db:
        db.execute("UPDATE messages SET content_json = ? WHERE id = 5", ('[{"type":"brandNew"},{"type":"text","text":"ok"}]',))
    return database


def _cursor_cli(tmp: Path) -> Path:
    chats = build_tree(FIXTURES / "cursor_cli" / "chats", tmp / "chats")
    store = next(chats.rglob("store.db"))
    with sqlite3.connect(store) as db:  # no root: the blobs in stored order, one with a new part
        db.execute("UPDATE meta SET value = ?", (json.dumps({"agentId": "x", "name": "n"}).encode().hex(),))
        blob = json.dumps({"role": "assistant", "content": [{"type": "brand-new"}, {"type": "text", "text": "ok"}]}).encode()
        db.execute("INSERT INTO blobs VALUES ('ff', ?)", (blob,))
    return store


def _cursor_ide(tmp: Path) -> Path:
    database = build_tree(FIXTURES / "cursor_ide" / "User", tmp / "User") / "globalStorage" / "state.vscdb"
    composer = {
        "composerId": "c-drift",
        "name": "drift",
        "conversation": [{"type": 1, "text": "hi"}, {"type": 3, "text": "?"}, {"type": 2, "text": "ok"}],
    }
    with sqlite3.connect(database) as db:
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", ("composerData:c-drift", json.dumps(composer)))
    return database


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "claude-code": (
        _plus_line("claude_code/plan-handoff.jsonl", {"type": "brand-new-line", "sessionId": "x"}),
        "record:brand-new-line",
    ),
    "codex": (
        _plus_line(
            "codex/sample/rollout-2025-10-01T08-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.jsonl",
            {"timestamp": "2025-10-01T08:00:09Z", "type": "brand_new", "payload": {}},
        ),
        "record:brand_new",
    ),
    "copilot-cli": (
        _plus_line(
            "copilot_cli/session-state/4e2b9d71-0c3a-4f58-9b6e-2a7d1c5f8e30/events.jsonl",
            {"type": "session.brand_new", "data": {}, "id": "x", "timestamp": "2026-05-11T07:42:00Z"},
        ),
        "event:session.brand_new",
    ),
    "antigravity": (
        _plus_line(
            "antigravity/antigravity-cli/brain/7d3a5c1e-2b9f-4e60-a8d4-6f1b0c9e2a57/.system_generated/logs/transcript.jsonl",
            {"step_index": 9, "source": "SYSTEM", "type": "BRAND_NEW", "created_at": "2026-06-20T09:13:00Z"},
        ),
        "event:BRAND_NEW",
    ),
    "gemini-stream": (_plus_line("gemini_stream/docs-run.jsonl", {"type": "brand_new"}), "event:brand_new"),
    "claude-stream-json": (_plus_line("claude_stream/release-notes.jsonl", {"type": "brand_new"}), "event:brand_new"),
    "claude-managed-agents": (
        _plus_line("managed_agents/sesn_01StagingMig.jsonl", {"id": "sevt_x", "type": "agent.brand_new"}),
        "event:agent.brand_new",
    ),
    "pi": (
        _chained_line(
            "pi/sessions/--home-ana-src-mdlint--/2026-03-02T18-20-11-402Z_3b8d1f6a-0c2e-4d7b-9a51-8e6f2c4b0d19.jsonl",
            {"type": "brand_new", "timestamp": "2026-03-02T18:22:00Z"},
            "id",
            "parentId",
        ),
        "record:brand_new",
    ),
    "qwen-code": (
        _chained_line(
            "qwen/projects/-home-mei-work-invoicer/chats/5d1e7a3c-8b2f-4c6d-9e0a-1f3b5c7d9e2a.jsonl",
            {"type": "brand_new", "sessionId": "5d1e7a3c-8b2f-4c6d-9e0a-1f3b5c7d9e2a"},
            "uuid",
            "parentUuid",
        ),
        "record:brand_new",
    ),
    "factory-droid": (
        _plus_line("factory/sessions/-Users-maya-code-fetcher/6c2e8a4f-1b3d-4e5f-9a7b-0c2d4e6f8a1b.jsonl", {"type": "brand_new"}),
        "record:brand_new",
    ),
    "kimi-cli": (
        _plus_line(
            "kimi/sessions/4960664e4ad071764a02342295b9718f/8f4a2c6e-3d1b-4f7a-b5c9-2e0d6a8f1c3b/wire.jsonl",
            {"timestamp": 1781002815.0, "message": {"type": "BrandNew", "payload": {}}},
        ),
        "event:BrandNew",
    ),
    "kiro-cli": (
        _plus_line("kiro/sessions/cli/b4d6f8a0-2c4e-4a6b-8d0f-1e3a5c7e9b2d.jsonl", {"kind": "BrandNew", "data": {}}),
        "event:BrandNew",
    ),
    "gemini-cli": (
        _edited_json(
            "gemini/tmp/recipe-site/chats/session-2026-01-04T19-00-0f1e2d3c.json",
            lambda d: d["messages"].append({"type": "brand_new", "content": "x"}),  # type: ignore[index]
        ),
        "event:brand_new",
    ),
    "copilot-chat": (
        _edited_json(
            "copilot/export/chat.json",
            lambda d: d["requests"][0]["response"].append({"kind": "brandNewPart"}),  # type: ignore[index]
        ),
        "part:brandNewPart",
    ),
    "cline": (
        _edited_json(
            "cline/saoudrizwan.claude-dev/tasks/1736424000123/api_conversation_history.json",
            lambda d: d[1]["content"].append({"type": "brand_new"}),  # type: ignore[index]
        ),
        "part:brand_new",
    ),
    "chatgpt": (_edited_json("chatgpt/conversations.json", _chatgpt), "part:brand_new"),
    "claude-ai": (
        _edited_json(
            "claude_ai/conversations.json",
            lambda d: d[0]["chat_messages"][1].update(content=[{"type": "brand_new"}, {"type": "text", "text": "ok"}]),  # type: ignore[index]
        ),
        "part:brand_new",
    ),
    "openai": (
        _plus_line(
            "openai/messages.jsonl", {"role": "assistant", "content": [{"type": "brand_new"}, {"type": "text", "text": "ok"}]}
        ),
        "part:brand_new",
    ),
    "chat-thread": (
        _edited_text(
            "chat_threads/workspace-notes/.ai_helper/agent/memory_repo/chat_threads/thread_1234567890/thread.json",
            '"sender": "bot"',
            '"sender": "brand_new"',
        ),
        "field:sender=brand_new",
    ),
    "amp": (
        _edited_json(
            "amp/threads/T-0198a3c2-7e4f-7b1d-9c20-4a6e8f0b2d15.json",
            lambda d: d["messages"][3]["content"].append({"type": "brand_new"}),  # type: ignore[index]
        ),
        "part:brand_new",
    ),
    "openhands": (_openhands, "event:BrandNewEvent"),
    "opencode": (_opencode, "part:brand-new"),
    "goose": (_goose, "part:brandNew"),
    "crush": (_crush, "part:brand_new"),
    "cursor-cli": (_cursor_cli, "part:brand-new"),
    "cursor-ide": (_cursor_ide, "record:bubble type 3"),
    "specstory": (
        _edited_text(
            "specstory/untimed/.specstory/history/2026-01-15-cache-warmup.md",
            "_**Agent (model gpt-5, mode Agent)**_",
            "_**Reviewer (model gpt-5)**_\n\nlooks fine\n\n---\n\n_**Agent (model gpt-5, mode Agent)**_",
        ),
        "record:role Reviewer",
    ),
    "aider": (
        _edited_text(
            "aider/reasoning/.aider.chat.history.md", "<think>\n", "<thinking>\nan unknown wrapper\n</thinking>\n<think>\n"
        ),
        "part:<thinking>",
    ),
    "cursor": (
        _edited_text("cursor/scenario_1_standard.txt", "assistant:", "system:\nyou are helpful\n\nassistant:"),
        "record:role system:",
    ),
}


def test_every_reader_has_a_drift_case():
    assert sorted(CASES) == sorted(f.name for f in formats())


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_unknown_type_is_counted_and_the_rest_still_read(name: str, tmp_path: Path):
    make, expected = CASES[name]
    parsed = parse_file(make(tmp_path))
    assert parsed.format.name == name
    assert parsed.sessions and any(s.messages for s in parsed.sessions)
    assert parsed.unknown.get(expected, 0) >= 1, parsed.unknown


@pytest.mark.parametrize("name", sorted(CASES))
def test_only_the_added_part_is_unknown(name: str, tmp_path: Path):
    """A reader knows every other part of its own fixture: the count is the drift, not noise."""
    make, expected = CASES[name]
    parsed = parse_file(make(tmp_path))
    assert set(parsed.unknown) == {expected}, parsed.unknown
