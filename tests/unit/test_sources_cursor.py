"""Cursor agent transcripts: the documented examples exactly, and what real Cursor writes.

Fixtures follow the `agent-transcripts/*.txt` Cursor 2.x writes (2025-10 – 2026-03)."""

from __future__ import annotations

import os
import re
from datetime import UTC
from pathlib import Path

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path
from convo_tui.core.sources._cursor_slug import decode_slug, resolve_slug
from convo_tui.core.sources.cursor import split_user_wrappers

from tests.paths import FIXTURES

CURSOR = FIXTURES / "cursor"


def one(path: Path):
    sessions = parse_path(path)
    assert len(sessions) == 1
    return sessions[0]


def shape(session):
    return [(m.id, m.role, m.text, [(t.name, t.args) for t in m.tools]) for m in session.messages]


def turns(session):
    return [(t.index, t.user_message_ids, t.ai_message_ids, t.user_text, t.ai_text, t.tool_names) for t in session.turns]


def test_seed_001_example_parses_to_its_five_messages():
    session = one(CURSOR / "seed_001_example.txt")
    assert shape(session) == [
        ("msg-0", "user", "如何设计 RAG 功能？", []),
        (
            "msg-1",
            "assistant",
            "需要向量库和嵌入模型。让我先查看一下相关代码。\n\n根据代码分析，我建议使用 Qdrant。",
            [("read_file", {"path": "backend/internal/application/cursor/session_service.go"})],
        ),
        (
            "msg-2",
            "assistant",
            "另外，还需要考虑跨平台兼容性。\n\n建议使用纯 Go 实现。",
            [("codebase_search", {"query": "How to handle cross-platform dependencies?"})],
        ),
        ("msg-3", "user", "Qdrant 如何集成？", []),
        ("msg-4", "assistant", "可以使用嵌入式模式，通过 Go SDK 集成。", []),
    ]
    assert turns(session) == [
        (
            0,
            ["msg-0"],
            ["msg-1", "msg-2"],
            "如何设计 RAG 功能？",
            "需要向量库和嵌入模型。让我先查看一下相关代码。\n\n根据代码分析，我建议使用 Qdrant。\n\n另外，还需要考虑跨平台兼容性。\n\n建议使用纯 Go 实现。",
            ["read_file", "codebase_search"],
        ),
        (1, ["msg-3"], ["msg-4"], "Qdrant 如何集成？", "可以使用嵌入式模式，通过 Go SDK 集成。", []),
    ]


def test_seed_000_scenario_1_standard_one_to_one():
    assert turns(one(CURSOR / "scenario_1_standard.txt")) == [
        (0, ["msg-0"], ["msg-1"], "问题1", "回答1", []),
        (1, ["msg-2"], ["msg-3"], "问题2", "回答2", []),
    ]


def test_seed_000_scenario_2_user_follow_up_merges():
    session = one(CURSOR / "scenario_2_user_followups.txt")
    assert turns(session) == [(0, ["msg-0", "msg-1"], ["msg-2"], "问题1\n\n补充问题1", "回答1和补充问题1", [])]
    assert session.turns[0].combined_text == "用户: 问题1\n\n补充问题1\n\nAI: 回答1和补充问题1"


def test_seed_000_scenario_3_several_ai_replies_merge_and_trailing_question_is_a_turn():
    assert turns(one(CURSOR / "scenario_3_several_ai_replies.txt")) == [
        (0, ["msg-0"], ["msg-1", "msg-2"], "问题1", "回答1部分1\n\n回答1部分2", []),
        (1, ["msg-3"], [], "问题2", "", []),
    ]


def test_seed_000_scenario_4_tool_call_kept_out_of_text():
    session = one(CURSOR / "scenario_4_tool_call.txt")
    assert shape(session) == [
        ("msg-0", "user", "帮我读取文件", []),
        ("msg-1", "assistant", "我来帮你读取文件\n\n文件内容已读取，包含...", [("read_file", {"path": "/path/to/file"})]),
    ]
    assert session.turns[0].combined_text == "用户: 帮我读取文件\n\nAI: 我来帮你读取文件\n\n文件内容已读取，包含..."
    assert session.turns[0].tool_names == ["read_file"]


def test_seed_000_scenario_5_mixed():
    session = one(CURSOR / "scenario_5_mixed.txt")
    assert shape(session)[1] == ("msg-1", "assistant", "回答1", [("tool1", {})])
    assert turns(session) == [
        (0, ["msg-0"], ["msg-1", "msg-2"], "问题1", "回答1\n\n继续回答1", ["tool1"]),
        (1, ["msg-3"], ["msg-4"], "问题2补充", "回答2", []),
    ]


def test_real_cursor_wrappers_thinking_and_multiline_arguments():
    session = one(CURSOR / "real_cursor.txt")
    user = session.messages[0]
    assert user.text == "Add a config loader to src/config.py\nand wire it into app.py"
    assert user.meta == {
        "attached_files": '<file path="src/app.py" lines="1-20">\nimport os\n</file>',
        "external_links": "https://qdrant.tech/documentation/",
    }
    first = session.messages[1]
    assert first.thinking == "**Reading the app first**\n\nThe user wants a config loader. I should read app.py first."
    assert first.text == "I'll look at the current app first."
    assert [(t.name, t.args) for t in first.tools] == [
        ("Read", {"path": "/home/alice/code/my-app/src/app.py"}),
        ("Grep", {"pattern": "load_config", "path": "/home/alice/code/my-app"}),
    ]
    write = session.messages[2]
    assert write.text == "Now I'll write the loader."
    assert write.tools[0].name == "Write"
    assert write.tools[0].args["path"] == "/home/alice/code/my-app/src/config.py"
    assert write.tools[0].args["contents"] == (
        '"""Configuration loading."""\n\nimport tomllib\n\nDEFAULTS = {\n    name: "demo",\n    port: 8080,\n}\n\n\n'
        'def load_config(path):\n    with open(path, "rb") as handle:\n        return tomllib.load(handle)'
    )
    assert session.messages[3].text == "The loader is in `src/config.py`; `app.py` now calls `load_config()`."
    assert session.messages[3].tools == []
    last = session.messages[5]
    assert (last.thinking, last.text) == ("Check the open() call.", "Not yet: a missing file raises `FileNotFoundError`.")
    assert turns(session) == [
        (
            0,
            ["msg-0"],
            ["msg-1", "msg-2", "msg-3"],
            "Add a config loader to src/config.py\nand wire it into app.py",
            "I'll look at the current app first.\n\nNow I'll write the loader.\n\n"
            "The loader is in `src/config.py`; `app.py` now calls `load_config()`.",
            ["Read", "Grep", "Write"],
        ),
        (
            1,
            ["msg-4"],
            ["msg-5"],
            "Thanks! Does it handle a missing file?",
            "Not yet: a missing file raises `FileNotFoundError`.",
            [],
        ),
    ]


def test_session_identity_title_source_and_times():
    path = CURSOR / "projects" / "Users-alice-code-cocursor" / "agent-transcripts" / "3f2a9c1e-7b4d-4e8a-9f00-1c2d3e4f5a6b.txt"
    session = one(path)
    assert session.id == "3f2a9c1e-7b4d-4e8a-9f00-1c2d3e4f5a6b"
    assert session.title == "How do we set up the Qdrant collection?"
    assert session.project == "cocursor"
    assert session.source == "cursor"
    assert session.path == str(path.absolute())
    assert session.updated_at is not None and session.updated_at.tzinfo == UTC
    assert session.updated_at.timestamp() == pytest.approx(path.stat().st_mtime)


def test_project_is_parent_folder_outside_agent_transcripts():
    assert one(CURSOR / "scenario_1_standard.txt").project == "cursor"


def test_title_clipped_to_80_characters(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("user:\n" + "word " * 40 + "\nsecond line\n\nassistant:\nok\n", encoding="utf-8")
    title = one(path).title
    assert len(title) == 80 and title.endswith("…") and title.startswith("word word")


def test_bom_and_leading_blank_lines_are_recognised():
    session = one(CURSOR / "bom_leading_blank.txt")
    assert shape(session) == [("msg-0", "user", "hello with BOM", []), ("msg-1", "assistant", "hi", [])]


def test_content_not_name_decides(tmp_path):
    path = tmp_path / "conversation.log"
    path.write_text("\n\nassistant:\nhello\n", encoding="utf-8")
    assert detect(path).name == "cursor"
    prose = tmp_path / "notes.txt"
    prose.write_text("user: is not alone on this line\n", encoding="utf-8")
    assert detect(prose) is None


def test_seed_args_run_over_lines_until_blank_line(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(
        "user:\nq\n\nassistant:\nLet me edit.\n[Tool call] edit_file\npath: a.py\ninstructions: first line\nsecond line\n\n"
        "[Tool result]\nok\n\nDone.\n",
        encoding="utf-8",
    )
    message = one(path).messages[1]
    assert message.text == "Let me edit.\n\nDone."
    assert message.tools[0].args == {"path": "a.py", "instructions": "first line\nsecond line"}


def test_text_before_first_role_line_is_a_warning(tmp_path):
    folder = tmp_path / "agent-transcripts"
    folder.mkdir()
    path = folder / "x.txt"
    path.write_text("stray preface\nuser:\nhi\n", encoding="utf-8")
    session = one(path)
    assert session.warnings == [f"{path}:1: text before the first `user:`/`assistant:` line ignored"]
    assert shape(session) == [("msg-0", "user", "hi", [])]


def test_transcript_without_role_lines_in_agent_transcripts_names_the_problem(tmp_path):
    folder = tmp_path / "agent-transcripts"
    folder.mkdir()
    path = folder / "x.txt"
    path.write_text("just some prose\n", encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        parse_path(path)
    assert str(caught.value) == f"{path}: no `user:` or `assistant:` line found (not a Cursor transcript)"


def test_user_wrapper_split_keeps_plain_text_and_inline_tags():
    assert split_user_wrappers("Use <b>bold</b> here") == ("Use <b>bold</b> here", {})
    assert split_user_wrappers("<user_query>\nq1\n</user_query>\nafter") == ("q1\n\nafter", {})


def _slug(path: Path) -> str:
    return "-".join(w for w in re.split(r"[^0-9A-Za-z]+", str(path)) if w)


def test_slug_with_dashed_folder_resolves_on_disk(tmp_path):
    workspace = tmp_path / "code" / "my-app"
    workspace.mkdir(parents=True)
    (tmp_path / "code" / "my").mkdir()  # a decoy: `my` + `app` would not exist
    slug = _slug(workspace)
    assert decode_slug(slug) == "my-app"
    transcripts = tmp_path / ".cursor" / "projects" / slug / "agent-transcripts"
    transcripts.mkdir(parents=True)
    (transcripts / "s.txt").write_text("user:\nhi\n", encoding="utf-8")
    assert one(transcripts / "s.txt").project == "my-app"


def test_slug_not_on_disk_falls_back_to_last_word(tmp_path):
    assert decode_slug("Users-alice-code-cocursor", root=str(tmp_path)) == "cocursor"
    assert decode_slug("Users-alice-code-my-app", root=str(tmp_path)) == "app"
    assert decode_slug("home-bob-src-convo_tui", root=str(tmp_path)) == "tui"


def test_slug_resolution_prefers_longest_folder_name(tmp_path):
    (tmp_path / "a-b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "b-c").mkdir(parents=True)
    assert decode_slug("a-b-c", root=str(tmp_path)) == "c"
    os.rmdir(tmp_path / "a-b" / "c")
    resolve_slug.cache_clear()
    assert decode_slug("a-b-c", root=str(tmp_path)) == "b-c"


def test_jsonl_transcripts_of_2026():
    """Cursor writes `agent-transcripts/<id>/<id>.jsonl` since early 2026: `{role, message: {content}}` lines
    (the shape other public readers decode); the OpenAI-style reader does not take them."""

    path = next((CURSOR / "projects").rglob("*.jsonl"))
    assert detect(path).name == "cursor"
    (session,) = parse_path(path)
    assert (session.id, session.project) == (path.stem, "cocursor")
    assert [(m.role, m.text[:30]) for m in session.messages] == [
        ("user", "Why does the sidebar flicker o"),  # <user_query> unwrapped
        ("assistant", "The resize handler sets state "),
    ]
