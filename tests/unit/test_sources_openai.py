"""OpenAI-style logs: message arrays, JSONL, conversation rows and table exports.

Fixtures follow the OpenAI Chat Completions message shape (openai-python 1.x types) and row exports."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

OPENAI = FIXTURES / "openai"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_message_array_with_parts_tool_calls_and_tool_results():
    [session] = parse_path(OPENAI / "messages.json")
    assert (session.id, session.title, session.source, session.project) == ("messages", "你好", "openai", "openai")
    assert [(m.id, m.role, m.text, [(t.name, t.args) for t in m.tools]) for m in session.messages] == [
        ("msg-0", "system", "You are helpful.", []),
        ("msg-1", "user", "你好", []),
        ("msg-2", "assistant", "你好！有什么可以帮你的？", []),
        ("msg-3", "user", "今天天气怎么样\n[image]", []),
        ("msg-4", "assistant", "", [("get_weather", {"city": "Berlin", "unit": "c"})]),
        ("msg-5", "assistant", "柏林今天 21°C，晴。", []),
    ]
    assert [(t.user_message_ids, t.ai_message_ids, t.ai_text, t.tool_names) for t in session.turns] == [
        (["msg-1"], ["msg-2"], "你好！有什么可以帮你的？", []),
        (["msg-3"], ["msg-4", "msg-5"], "柏林今天 21°C，晴。", ["get_weather"]),
    ]
    assert session.warnings == []


def test_jsonl_of_messages_and_arrays_with_times():
    [session] = parse_path(OPENAI / "messages.jsonl")
    assert [(m.role, m.text, m.timestamp) for m in session.messages] == [
        ("user", "How do I create a Qdrant collection?", at("2025-03-01T10:00:00")),
        ("assistant", "Call create_collection with a vectors config.", at("2025-03-01T10:00:05")),
        ("user", "And sparse vectors?", at("2025-03-01T10:01:00")),
        ("assistant", "Add sparse_vectors_config with the IDF modifier.", at("2025-03-01T10:01:04")),
    ]
    assert (session.started_at, session.updated_at) == (at("2025-03-01T10:00:00"), at("2025-03-01T10:01:04"))
    assert [t.index for t in session.turns] == [0, 1]


def test_rows_give_one_session_per_conversation_sorted_by_time():
    sessions = parse_path(OPENAI / "rows.jsonl")
    assert [(s.id, s.title) for s in sessions] == [("conv-b", "B question"), ("conv-a", "A first")]
    conv_a = sessions[1]
    assert [(m.id, m.role, m.text, m.timestamp) for m in conv_a.messages] == [
        ("msg-0", "user", "A first", at("2024-05-01T08:00:00")),
        ("msg-1", "assistant", "A first answer", at("2024-05-01T08:00:00")),
        ("msg-2", "user", "A second", at("2024-05-01T08:05:00")),
        ("msg-3", "assistant", "A second answer", at("2024-05-01T08:05:00")),
    ]
    assert conv_a.messages[3].meta == {"id": 3, "tokens_input": 12, "tokens_output": 30}
    assert [t.combined_text for t in conv_a.turns] == [
        "用户: A first\n\nAI: A first answer",
        "用户: A second\n\nAI: A second answer",
    ]


def test_table_export_uses_conversation_titles_and_skips_empty_conversations():
    sessions = parse_path(OPENAI / "export.json")
    assert len(sessions) == 1
    session = sessions[0]
    assert (session.id, session.title) == ("3b1f7c52-0d7e-4c1a-9a55-1f2e3d4c5b6a", "旅行计划讨论")
    assert session.meta == {"description": "讨论欧洲旅行计划", "settings": {"use_memory": True, "use_knowledge": True}}
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "我想计划一次欧洲旅行，你能帮我吗？"),
        ("assistant", "当然！你想去哪些国家？"),
        ("user", "预算大概多少？"),
        ("assistant", "两周大约 3000 欧元。"),
    ]
    assert (session.started_at, session.updated_at) == (at("2024-06-01T10:00:00"), at("2024-06-01T10:05:00"))


def test_conversation_dates_used_when_rows_have_no_time(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(
        '{"conversations": [{"id": "c1", "title": "T", "created_at": "2024-01-02 03:04:05", '
        '"updated_at": 1704164645}], "conversation_messages": [{"conversation_id": "c1", '
        '"user_message": "q", "ai_response": "a"}]}',
        encoding="utf-8",
    )
    [session] = parse_path(path)
    assert (session.started_at, session.updated_at) == (at("2024-01-02T03:04:05"), at("2024-01-02T03:04:05"))


def test_partial_jsonl_keeps_good_lines_and_warns():
    [session] = parse_path(OPENAI / "partial.jsonl")
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "first question"),
        ("assistant", "first answer"),
        ("assistant", "second answer"),
    ]
    assert session.warnings == [f"{OPENAI / 'partial.jsonl'}:3: truncated JSON (ends in the middle of a value)"]


def test_jsonl_with_nothing_usable_names_the_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"role": "user", "content": "ok"}\n', encoding="utf-8")
    path.write_text('{"role": "wizard", "content": "x"}\n{"role": "user", "content": "tru\n', encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        parse_path(path)
    assert str(caught.value) == f"{path}:1: no usable messages (unknown role 'wizard')"


def test_truncated_pretty_json_names_the_line(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text('[\n  {"role": "user",\n   "content": "hi"},\n  {"role": "assistant",\n   "content": "hel', encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        parse_path(path)
    assert str(caught.value) == f"{path}:5: truncated JSON (ends in the middle of a value)"


def test_recognised_from_content_under_any_name(tmp_path):
    copy = tmp_path / "dump.txt"
    shutil.copy(OPENAI / "rows.jsonl", copy)
    assert detect(copy).name == "openai"
    assert [s.id for s in parse_path(copy)] == ["conv-b", "conv-a"]


def test_legacy_function_call_and_reasoning(tmp_path):
    path = tmp_path / "legacy.json"
    path.write_text(
        '{"title": "Legacy", "messages": [{"role": "user", "content": "weather?"}, {"role": "assistant", '
        '"content": null, "reasoning_content": "need a tool", "function_call": {"name": "lookup", '
        '"arguments": "not json"}}, {"role": "function", "name": "lookup", "content": "sunny"}]}',
        encoding="utf-8",
    )
    [session] = parse_path(path)
    assert session.title == "Legacy"
    assistant = session.messages[1]
    assert (assistant.text, assistant.thinking) == ("", "need a tool")
    assert [(t.name, t.args) for t in assistant.tools] == [("lookup", {"arguments": "not json"})]
    assert len(session.messages) == 2
