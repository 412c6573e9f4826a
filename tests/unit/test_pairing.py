"""Pairing rules, with every worked example of the rules (docs/ARCHITECTURE.md) and its exact output."""

from __future__ import annotations

from datetime import UTC, datetime

from convo_tui.core.model import Message, ToolCall, pair_messages


def msgs(*spec):
    out = []
    for i, (role, text, *tools) in enumerate(spec):
        out.append(Message(id=f"msg-{i}", role=role, text=text, tools=[ToolCall(t) for t in tools]))
    return out


def test_example_1_standard_one_to_one():
    turns = pair_messages(
        msgs(
            ("user", "如何设计 RAG？"),
            ("assistant", "需要向量库和嵌入模型..."),
            ("user", "推荐什么向量库？"),
            ("assistant", "推荐 Qdrant..."),
        )
    )
    assert [t.index for t in turns] == [0, 1]
    assert turns[0].user_message_ids == ["msg-0"] and turns[0].ai_message_ids == ["msg-1"]
    assert turns[0].combined_text == "用户: 如何设计 RAG？\n\nAI: 需要向量库和嵌入模型..."
    assert turns[1].user_message_ids == ["msg-2"] and turns[1].ai_message_ids == ["msg-3"]
    assert turns[1].combined_text == "用户: 推荐什么向量库？\n\nAI: 推荐 Qdrant..."


def test_example_2_consecutive_user_messages_merge():
    turns = pair_messages(
        msgs(("user", "如何设计 RAG？"), ("user", "需要考虑哪些因素？"), ("assistant", "需要向量库和嵌入模型，还要考虑..."))
    )
    assert len(turns) == 1
    assert turns[0].user_message_ids == ["msg-0", "msg-1"]
    assert turns[0].ai_message_ids == ["msg-2"]
    assert turns[0].combined_text == "用户: 如何设计 RAG？\n\n需要考虑哪些因素？\n\nAI: 需要向量库和嵌入模型，还要考虑..."


def test_example_3_consecutive_ai_messages_merge():
    turns = pair_messages(
        msgs(
            ("user", "帮我实现 RAG"),
            ("assistant", "我来帮你实现"),
            ("assistant", "首先需要配置向量库"),
            ("assistant", "然后集成嵌入模型"),
        )
    )
    assert len(turns) == 1
    assert turns[0].ai_message_ids == ["msg-1", "msg-2", "msg-3"]
    assert turns[0].combined_text == "用户: 帮我实现 RAG\n\nAI: 我来帮你实现\n\n首先需要配置向量库\n\n然后集成嵌入模型"


def test_example_4_tool_calls_collected_from_ai_messages():
    turns = pair_messages(
        msgs(("user", "读取文件内容"), ("assistant", "我来读取文件", "read_file"), ("assistant", "文件内容已读取，包含..."))
    )
    assert len(turns) == 1
    assert turns[0].ai_message_ids == ["msg-1", "msg-2"]
    assert turns[0].tool_names == ["read_file"]
    assert turns[0].combined_text == "用户: 读取文件内容\n\nAI: 我来读取文件\n\n文件内容已读取，包含..."


def test_scenario_3_ai_replies_then_next_user_question():
    turns = pair_messages(msgs(("user", "问题1"), ("assistant", "回答1部分1"), ("assistant", "回答1部分2"), ("user", "问题2")))
    assert len(turns) == 2
    assert turns[0].ai_text == "回答1部分1\n\n回答1部分2"
    # a trailing user message without an answer is still a turn
    assert turns[1].user_text == "问题2" and turns[1].ai_message_ids == []
    assert turns[1].combined_text == "用户: 问题2\n\nAI: "


def test_scenario_5_mixed():
    turns = pair_messages(
        msgs(
            ("user", "问题1"),
            ("assistant", "回答1", "tool1"),
            ("assistant", "继续回答1"),
            ("user", "问题2补充"),
            ("assistant", "回答2"),
        )
    )
    assert [(t.user_text, t.ai_text) for t in turns] == [("问题1", "回答1\n\n继续回答1"), ("问题2补充", "回答2")]
    assert turns[0].tool_names == ["tool1"] and turns[1].tool_names == []


def test_leading_ai_messages_form_a_turn_without_user():
    turns = pair_messages(msgs(("assistant", "hello"), ("user", "hi"), ("assistant", "yes")))
    assert [(t.user_message_ids, t.ai_message_ids) for t in turns] == [([], ["msg-0"]), (["msg-1"], ["msg-2"])]


def test_empty_texts_are_skipped_in_joins_but_ids_kept():
    turns = pair_messages(msgs(("user", "  q  "), ("assistant", "   ", "read_file"), ("assistant", "a")))
    assert turns[0].user_text == "q" and turns[0].ai_text == "a"
    assert turns[0].ai_message_ids == ["msg-1", "msg-2"]


def test_virtual_sidechain_error_and_system_messages_take_no_part():
    messages = msgs(
        ("user", "q"), ("assistant", "a"), ("user", "virtual"), ("system", "sys"), ("assistant", "side"), ("assistant", "err")
    )
    messages[2].virtual = True
    messages[4].sidechain = True
    messages[5].error = True
    turns = pair_messages(messages)
    assert len(turns) == 1 and turns[0].message_ids == ["msg-0", "msg-1"]


def test_turn_timestamp_is_first_timestamp():
    messages = msgs(("user", "q"), ("assistant", "a"))
    t1 = datetime(2026, 1, 2, tzinfo=UTC)
    messages[1].timestamp = t1
    assert pair_messages(messages)[0].timestamp == t1
    messages[0].timestamp = datetime(2026, 1, 1, tzinfo=UTC)
    assert pair_messages(messages)[0].timestamp == messages[0].timestamp


def test_no_messages_no_turns():
    assert pair_messages([]) == []
