""" "My Assistant" chat threads: folder, index and single-thread entry points.

Fixtures follow the "My Assistant" app's `chat_threads` folders (threads.json version 1, 2021 builds)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path
from convo_tui.core.sources._html import html_to_text

from tests.paths import FIXTURES

THREADS = FIXTURES / "chat_threads" / "workspace-notes" / ".ai_helper" / "agent" / "memory_repo" / "chat_threads"
FIRST = THREADS / "thread_1234567890"
SECOND = THREADS / "thread_0987654321"


def utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def test_thread_file_messages_exactly():
    [session] = parse_path(FIRST / "thread.json")
    assert (session.id, session.title, session.project, session.source) == (
        "thread_1234567890",
        "我的第一次对话",
        "workspace-notes",
        "chat-thread",
    )
    assert session.path == str((FIRST / "thread.json").absolute())
    assert session.meta == {"agent": "OpenAIStreamAgent", "settings": {"temperature": 0.7}}
    assert [(m.id, m.role, m.text, m.virtual, m.is_html, m.attachment) for m in session.messages] == [
        ("msg-0", "assistant", "欢迎使用 My Assistant！你可以让我分析代码。", True, False, None),
        ("msg-1", "user", "你好,能介绍一下你自己吗?", False, False, None),
        (
            "msg-2",
            "assistant",
            "你好!我是一个AI助手,由OpenAI的GPT模型驱动…\n\n- 分析代码\n- 回答问题 & 写文档",
            False,
            True,
            None,
        ),
        ("msg-3", "user", "你能帮我分析一下这段代码吗?", False, False, "thread_1234567890/attached_file.py"),
        ("msg-4", "assistant", "这段代码的复杂度中等,建议把循环提取成函数。", False, False, None),
    ]
    assert [m.timestamp for m in session.messages] == [
        utc(1633456788000),
        utc(1633456789000),
        utc(1633456790000),
        utc(1633456791000),
        utc(1633456795000),
    ]
    assert session.messages[0].available_tasks == [
        {"name": "优化代码", "task": {"name": "OptimizeCode", "type": "ACTION", "message": "请优化上面的代码"}}
    ]
    assert session.messages[2].meta == {"codeAnalysis": {"language": "python", "complexity": "medium"}}
    assert (session.started_at, session.updated_at) == (utc(1633456788000), utc(1633456795000))


def test_virtual_messages_take_no_part_in_pairing():
    [session] = parse_path(FIRST)
    assert [(t.index, t.user_message_ids, t.ai_message_ids, t.timestamp) for t in session.turns] == [
        (0, ["msg-1"], ["msg-2"], utc(1633456789000)),
        (1, ["msg-3"], ["msg-4"], utc(1633456791000)),
    ]
    assert (
        session.turns[0].combined_text
        == "用户: 你好,能介绍一下你自己吗?\n\nAI: 你好!我是一个AI助手,由OpenAI的GPT模型驱动…\n\n- 分析代码\n- 回答问题 & 写文档"
    )


def test_folder_and_index_file_give_all_threads_in_index_order():
    for entry in (THREADS, THREADS / "threads.json"):
        sessions = parse_path(entry)
        assert [(s.id, s.title, s.project) for s in sessions] == [
            ("thread_1234567890", "我的第一次对话", "workspace-notes"),
            ("thread_0987654321", "本地LLM测试", "workspace-notes"),
        ]
        assert all(s.warnings == [] for s in sessions)


def test_name_missing_in_thread_comes_from_index():
    [session] = parse_path(SECOND)
    assert session.title == "本地LLM测试"
    assert session.meta == {"agent": "LocalLLMStreamAgent"}
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "本地模型能跑多快?"),
        ("assistant", "在 M2 上大约每秒 30 个 token。"),
    ]
    assert session.messages[1].timestamp == utc(1700000002500)


def test_project_without_ai_helper_is_chat_threads_parent(tmp_path):
    target = tmp_path / "research" / "chat_threads"
    shutil.copytree(THREADS, target)
    (target / "threads.json").unlink()
    sessions = parse_path(target)
    assert [(s.id, s.title, s.project) for s in sessions] == [
        ("thread_0987654321", "本地模型能跑多快?", "research"),
        ("thread_1234567890", "我的第一次对话", "research"),
    ]


def test_recognised_from_content_under_any_name(tmp_path):
    copy = tmp_path / "backup.data"
    shutil.copy(FIRST / "thread.json", copy)
    assert detect(copy).name == "chat-thread"
    [session] = parse_path(copy)
    assert session.id == "thread_1234567890" and len(session.messages) == 5


def test_broken_thread_in_folder_is_a_warning(tmp_path):
    target = tmp_path / "proj" / "chat_threads"
    shutil.copytree(THREADS, target)
    broken = target / "thread_0987654321" / "thread.json"
    broken.write_text('{"id": "thread_0987654321", "messages": [', encoding="utf-8")
    sessions = parse_path(target)
    assert [s.id for s in sessions] == ["thread_1234567890"]
    assert sessions[0].warnings == [f"{broken}:1: truncated JSON (ends in the middle of a value)"]
    with pytest.raises(ParseError) as caught:
        parse_path(broken)
    assert str(caught.value) == f"{broken}:1: truncated JSON (ends in the middle of a value)"


def test_index_listing_a_missing_thread_is_a_warning(tmp_path):
    target = tmp_path / "proj" / "chat_threads"
    shutil.copytree(THREADS, target)
    shutil.rmtree(target / "thread_0987654321")
    sessions = parse_path(target / "threads.json")
    assert [s.id for s in sessions] == ["thread_1234567890"]
    assert sessions[0].warnings == [
        f"{target / 'threads.json'}: thread thread_0987654321 is listed but {target / 'thread_0987654321' / 'thread.json'} is missing"
    ]


def test_json_without_messages_is_refused(tmp_path):
    path = tmp_path / "thread.json"
    path.write_text('{"id": "t", "sender": "user", "messages": "none"}', encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        parse_path(path)
    assert str(caught.value) == f"{path}: not a chat thread (no `messages` list)"


def test_html_to_text_keeps_blocks_and_unescapes():
    assert html_to_text("<div>line one<br>line two</div><p>a &lt;tag&gt; and <b>bold</b></p><script>x=1</script>tail") == (
        "line one\nline two\n\na <tag> and bold\n\ntail"
    )
    assert html_to_text("<ol><li>one</li><li>two &amp; three</li></ol>") == "- one\n- two & three"
