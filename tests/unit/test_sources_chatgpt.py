"""ChatGPT exports: the current branch of each conversation, through `convo-tui show --json`.

Fixtures follow the ChatGPT data export's `conversations.json` (mapping and `current_node`) of 2024-06 – 2026."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path
from convo_tui.core.sources.chatgpt import count_conversations

from tests.paths import FIXTURES

HERE = FIXTURES / "chatgpt"
EXPORT = HERE / "conversations.json"
DANGLING = HERE / "dangling" / "conversations.json"
CONV_A = "6650f1a2-0000-4000-8000-00000000000a"
CONV_B = "6650f1a2-0000-4000-8000-00000000000b"


def show_json(path: Path, capsys) -> tuple[list[dict], str]:
    assert main(["show", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    return [json.loads(line) for line in captured.out.splitlines() if line.strip()], captured.err


def msg(id: str, role: str, text: str, ts: str, thinking: str = "", tools: list | None = None) -> dict:
    return {
        "id": id,
        "role": role,
        "text": text,
        "thinking": thinking,
        "timestamp": ts,
        "tools": tools or [],
        "virtual": False,
        "sidechain": False,
    }


def turn(index, users, ais, user_text, ai_text, tools, ts) -> dict:
    return {
        "index": index,
        "user_message_ids": users,
        "ai_message_ids": ais,
        "user_text": user_text,
        "ai_text": ai_text,
        "combined_text": f"用户: {user_text}\n\nAI: {ai_text}",
        "tools": tools,
        "timestamp": ts,
    }


Q1 = "[image]\n\nHow do I sort these rows by the second column?"
A1 = "Sort with a key: `rows.sort(key=lambda r: r[1])`."
PYTHON = {
    "name": "python",
    "args": {"code": "rows = [[3, 'b'], [1, 'a']]\nrows.sort(key=lambda r: r[1])\nrows"},
    "result": "[[1, 'a'], [3, 'b']]",  # the execution_output message, attached to its call
}
BROWSER = {"name": "browser", "args": {"input": 'search("python list sort reverse")'}}
A2 = "Pass `reverse=True`: `rows.sort(key=lambda r: r[1], reverse=True)`."
HAIKU = "Green, then red, then green\nthe same code on the same day\ntime is the true bug"


def test_every_conversation_is_a_session_read_along_the_current_branch(capsys):
    docs, err = show_json(EXPORT, capsys)
    assert err == ""
    assert [d["session"] for d in docs] == [
        {
            "id": CONV_A,
            "title": "Sorting rows in Python",
            "project": "ChatGPT",
            "source": "chatgpt",
            "path": str(EXPORT),
            "started_at": "2024-06-01T10:00:00+00:00",
            "updated_at": "2024-06-01T10:02:10+00:00",
            "cwd": None,
            "resume": None,  # ChatGPT has no command that reopens a chat
        },
        {
            "id": CONV_B,
            "title": "Write a haiku about flaky tests",
            "project": "ChatGPT",
            "source": "chatgpt",
            "path": str(EXPORT),
            "started_at": "2024-06-02T10:00:00+00:00",
            "updated_at": "2024-06-02T10:00:03+00:00",
            "cwd": None,
            "resume": None,  # ChatGPT has no command that reopens a chat
        },
    ]
    # The edited first question ("How do I sort a list?") is another branch and does not appear;
    # the hidden system message is skipped; thoughts, code and the python output fold into one reply.
    assert docs[0]["messages"] == [
        msg("msg-0", "user", Q1, "2024-06-01T10:01:00+00:00"),
        msg(
            "msg-1",
            "assistant",
            A1,
            "2024-06-01T10:01:02+00:00",
            "Sorting by a column\nA key function on index 1 does it.\n\nThought for 4 seconds",
            [PYTHON],
        ),
        msg("msg-2", "user", "And in reverse order?", "2024-06-01T10:02:00+00:00"),
        msg("msg-3", "assistant", A2, "2024-06-01T10:02:02+00:00", tools=[BROWSER]),
    ]
    assert docs[0]["turns"] == [
        turn(0, ["msg-0"], ["msg-1"], Q1, A1, ["python"], "2024-06-01T10:01:00+00:00"),
        turn(1, ["msg-2"], ["msg-3"], "And in reverse order?", A2, ["browser"], "2024-06-01T10:02:00+00:00"),
    ]
    # The hidden user_editable_context node is skipped; an empty title falls back to the first question.
    assert docs[1]["messages"] == [
        msg("msg-0", "user", "Write a haiku about flaky tests", "2024-06-02T10:00:00+00:00"),
        msg("msg-1", "assistant", HAIKU, "2024-06-02T10:00:03+00:00"),
    ]
    assert len(docs[1]["turns"]) == 1


def test_dangling_parent_gives_the_rest_of_the_branch_and_a_warning(capsys):
    docs, err = show_json(DANGLING, capsys)
    warning = f"{DANGLING}: conversation {CONV_A}: parent a-code is missing from the mapping; earlier messages are lost"
    assert err == f"convo-tui: warning: {warning}\n"
    (doc,) = docs
    assert [(m["id"], m["role"], m["text"], [t["name"] for t in m["tools"]]) for m in doc["messages"]] == [
        ("msg-0", "assistant", A1, ["python"]),  # the python output's tool survives; its call was lost
        ("msg-1", "user", "And in reverse order?", []),
        ("msg-2", "assistant", A2, ["browser"]),
    ]
    assert [(t["user_message_ids"], t["ai_message_ids"]) for t in doc["turns"]] == [([], ["msg-0"]), (["msg-1"], ["msg-2"])]


def _export(tmp_path: Path, data) -> Path:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _node(id, parent, role, text, children=(), **message):
    body = {
        "id": id,
        "author": {"role": role},
        "content": {"content_type": "text", "parts": [text]},
        "create_time": 1.7e9,
        **message,
    }
    return {"id": id, "parent": parent, "children": list(children), "message": body}


def test_missing_current_node_reads_the_latest_leaf_and_warns(tmp_path):
    mapping = {
        "u": _node("u", None, "user", "hi", ["a1", "a2"]),
        "a1": _node("a1", "u", "assistant", "first answer", create_time=1.7e9 + 1),
        "a2": _node("a2", "u", "assistant", "regenerated answer", create_time=1.7e9 + 5),
    }
    path = _export(tmp_path, [{"id": "c", "title": "t", "create_time": 1.7e9, "mapping": mapping, "current_node": "gone"}])
    (session,) = parse_path(path)
    assert [m.text for m in session.messages] == ["hi", "regenerated answer"]
    assert session.warnings == [f"{path}: conversation c: current_node gone is not in the mapping; reading the latest leaf"]


def test_cycle_in_parents_ends(tmp_path):
    mapping = {"a": _node("a", "b", "user", "one", ["b"]), "b": _node("b", "a", "assistant", "two", ["a"])}
    path = _export(tmp_path, [{"id": "c", "mapping": mapping, "current_node": "b", "create_time": 1.7e9}])
    (session,) = parse_path(path)
    assert [m.text for m in session.messages] == ["one", "two"]
    assert session.warnings == [f"{path}: conversation c: node b is its own ancestor; branch cut there"]


def test_visible_system_message_is_kept_apart_from_turns(tmp_path):
    mapping = {
        "s": _node("s", None, "system", "You are a pirate.", ["u"]),
        "u": _node("u", "s", "user", "hello", ["a"]),
        "a": _node("a", "u", "assistant", "Arr.", []),
    }
    path = _export(tmp_path, {"id": "solo", "title": "Pirate", "mapping": mapping, "current_node": "a", "create_time": 1.7e9})
    (session,) = parse_path(path)  # a single conversation object is accepted too
    assert [(m.role, m.text) for m in session.messages] == [
        ("system", "You are a pirate."),
        ("user", "hello"),
        ("assistant", "Arr."),
    ]
    assert [(t.user_text, t.ai_text) for t in session.turns] == [("hello", "Arr.")]


def test_broken_json_is_a_one_line_error(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text('[{"title": "x", "create_time": 1, "mapping": {"a": ', encoding="utf-8")
    assert detect(path).name == "chatgpt"
    with pytest.raises(ParseError) as caught:
        parse_path(path)
    assert str(caught.value).startswith(f"{path}:1: ")


def test_count_conversations():
    assert count_conversations(EXPORT) == 2
    assert count_conversations(DANGLING) == 1
