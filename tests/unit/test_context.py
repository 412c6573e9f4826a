"""Context assembly: the worked example of the context format must come out byte for byte."""

from __future__ import annotations

import json

import pytest
from convo_tui.core.context import (
    DEFAULT_SYSTEM,
    ChatMessage,
    build_messages,
    format_context,
    format_line,
    request_body,
)

SEED_SYSTEM = (
    "你是一个有用的助手，用中文回答问题。不要使用Markdown格式，不要使用任何格式化符号"
    "（如*、_、`、#等），输出纯文本，适合Telegram消息。"
)

# The request body of the context format's worked example, verbatim.
SEED_BODY = """
{
  "model": "gpt-3.5-turbo",
  "messages": [
    {
      "role": "system",
      "content": "你是一个有用的助手，用中文回答问题。不要使用Markdown格式，不要使用任何格式化符号（如*、_、`、#等），输出纯文本，适合Telegram消息。"
    },
    {
      "role": "user",
      "content": "User Preferences: 用户偏好喝茶。\\n\\nConversation (recent):\\nUser: 狗吃什么\\nAssistant: 狗可以吃狗粮、肉类和部分蔬菜。\\nUser: 猫吃什么\\nAssistant: 猫是肉食动物，适合吃猫粮、鱼肉和煮熟的鸡肉。\\n\\nRelevant reference (semantic):\\nUser: 我家的猫喜欢鱼\\nAssistant: 可以适量喂鱼，注意去刺。\\n\\n用户提问: 那猫呢？"
    }
  ]
}
"""

RECENT = [
    format_line("user", "狗吃什么"),
    format_line("assistant", "狗可以吃狗粮、肉类和部分蔬菜。"),
    format_line("user", "猫吃什么"),
    format_line("assistant", "猫是肉食动物，适合吃猫粮、鱼肉和煮熟的鸡肉。"),
]
REFERENCES = [format_line("user", "我家的猫喜欢鱼"), format_line("assistant", "可以适量喂鱼，注意去刺。")]


def test_seed_worked_example_is_reproduced_exactly():
    messages = build_messages(
        "那猫呢？",
        system=SEED_SYSTEM,
        preferences="用户偏好喝茶。",
        recent=RECENT,
        references=REFERENCES,
    )
    body = request_body("gpt-3.5-turbo", messages)
    assert json.loads(json.dumps(body, ensure_ascii=False)) == json.loads(SEED_BODY)


def test_split_sends_context_and_bare_question_as_two_user_messages():
    messages = build_messages(
        "那猫呢？", system=SEED_SYSTEM, preferences="用户偏好喝茶。", recent=RECENT, references=REFERENCES, split=True
    )
    assert [m.to_json() for m in messages] == [
        {"role": "system", "content": SEED_SYSTEM},
        {
            "role": "user",
            "content": "User Preferences: 用户偏好喝茶。\n\nConversation (recent):\nUser: 狗吃什么\n"
            "Assistant: 狗可以吃狗粮、肉类和部分蔬菜。\nUser: 猫吃什么\n"
            "Assistant: 猫是肉食动物，适合吃猫粮、鱼肉和煮熟的鸡肉。\n\n"
            "Relevant reference (semantic):\nUser: 我家的猫喜欢鱼\nAssistant: 可以适量喂鱼，注意去刺。",
        },
        {"role": "user", "content": "那猫呢？"},
    ]


def test_no_context_sends_only_the_question():
    messages = build_messages("How do I rotate the API key?")
    assert messages == [
        ChatMessage("system", DEFAULT_SYSTEM),
        ChatMessage("user", "How do I rotate the API key?"),
    ]
    assert build_messages("  why?  ", system=None, split=True) == [ChatMessage("user", "why?")]


def test_only_preferences():
    body = request_body("m", build_messages("hi", system=None, preferences="  Prefers tea. "))
    assert body == {"model": "m", "messages": [{"role": "user", "content": "User Preferences: Prefers tea.\n\n用户提问: hi"}]}


def test_only_references():
    messages = build_messages("q?", system="S", references=["User: a", "Assistant: b"])
    assert [m.to_json() for m in messages] == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Relevant reference (semantic):\nUser: a\nAssistant: b\n\n用户提问: q?"},
    ]


def test_only_recent_and_blank_preferences_left_out():
    assert format_context("   ", ["System: be brief", "User: x"], []) == "Conversation (recent):\nSystem: be brief\nUser: x"
    assert format_context(None, [], []) == ""


def test_format_line_labels_and_rejects_unknown_roles():
    assert format_line("user", " a\n") == "User: a"
    assert format_line("assistant", "b") == "Assistant: b"
    assert format_line("system", "c") == "System: c"
    with pytest.raises(ValueError, match="unknown role 'tool'"):
        format_line("tool", "x")


def _hit(user: str, ai: str, turn: int = 0):
    from convo_tui.core.hits import Hit

    return Hit("turn", "s", "t", "p", "cursor", "/x", turn, [], [], 0.5, 1.0, None, user, ai)


def test_recent_lines_keep_time_order_and_skip_non_conversation():
    from convo_tui.core.context import recent_lines
    from convo_tui.core.model import Message, Session

    session = Session(
        "s",
        "t",
        "p",
        "cursor",
        "/x",
        messages=[
            Message("0", "system", "Be brief."),
            Message("1", "user", "first"),
            Message("2", "assistant", "shown only", virtual=True),
            Message("3", "assistant", "   "),
            Message("4", "assistant", "answer one"),
            Message("5", "user", "second"),
            Message("6", "assistant", "sub-agent", sidechain=True),
        ],
    )
    assert recent_lines(session, 10) == ["System: Be brief.", "User: first", "Assistant: answer one", "User: second"]
    assert recent_lines(session, 2) == ["Assistant: answer one", "User: second"]
    assert recent_lines(session, 0) == []


def test_reference_lines_skip_recent_and_duplicates_without_using_a_place():
    from convo_tui.core.context import reference_lines

    hits = [
        _hit("猫吃什么", "猫是肉食动物"),  # entirely in recent: no place used
        _hit("我家的猫喜欢鱼", "可以适量喂鱼，注意去刺。"),
        _hit("我家的猫喜欢鱼", "鱼刺要去掉"),  # user line already taken
        _hit("", "lone answer"),
        _hit("never reached", "x"),
    ]
    recent = ["User: 猫吃什么", "Assistant: 猫是肉食动物"]
    assert reference_lines(hits, 3, exclude=recent) == [
        "User: 我家的猫喜欢鱼",
        "Assistant: 可以适量喂鱼，注意去刺。",
        "Assistant: 鱼刺要去掉",
        "Assistant: lone answer",
    ]
    assert reference_lines(hits, 0) == []
