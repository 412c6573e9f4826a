"""A JSON transcript that spells half of a character (a "\\ud83d" escape whose pair a
tool cut off): `index` ended in a traceback (the keyword model could not encode the
text). Every reader's sessions now hold U+FFFD in its place and say how many."""

from __future__ import annotations

import json
from pathlib import Path

from convo_tui.core.sources import parse_path, stream_path

from tests.paths import FIXTURES

CLAUDE = FIXTURES / "claude_code" / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
HALF = "\\ud83d"  # as the file spells it: the first half of 😀 (\ud83d\ude00), alone


def cut_emoji_copy(tmp_path: Path) -> Path:
    text = CLAUDE.read_text(encoding="utf-8")
    text = text.replace("Why does the login test fail sometimes?", f"Why does the login test fail sometimes? {HALF}", 1)
    text = text.replace('"2 failed, 3 passed"', f'"2 failed {HALF}, 3 passed {HALF}"', 1)
    assert text.count(HALF) == 3
    path = tmp_path / CLAUDE.name
    path.write_text(text, encoding="utf-8")
    return path


def everything_shown(session) -> str:
    parts = [session.title]
    for message in session.messages:
        parts += [
            message.text,
            message.thinking,
            *(t.result for t in message.tools),
            *(json.dumps(t.args) for t in message.tools),
        ]
    return "\n".join(parts)


def test_a_lone_half_of_a_character_becomes_a_replacement_character_and_is_counted(tmp_path):
    (session,) = parse_path(cut_emoji_copy(tmp_path))
    shown = everything_shown(session)
    shown.encode("utf-8")  # what the keyword model, the tokenizers and the terminal need
    assert "Why does the login test fail sometimes? \ufffd" in shown
    assert "2 failed \ufffd, 3 passed \ufffd" in shown
    assert any(w.endswith("3 lone UTF-16 surrogates replaced (half of a character cut in two)") for w in session.warnings)
    assert session.id == "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"


def test_a_session_read_in_parts_is_repaired_in_each_and_counted_once(tmp_path):
    parts = list(stream_path(cut_emoji_copy(tmp_path), part_chars=200))
    assert len(parts) > 1 and parts[-1].last
    for part in parts:
        everything_shown(part.session).encode("utf-8")
    notes = [w for part in parts for w in part.session.warnings if "surrogate" in w]
    assert len(set(notes)) == 1 and notes[0].endswith("3 lone UTF-16 surrogates replaced (half of a character cut in two)")


def test_a_clean_file_carries_no_such_note(tmp_path):
    (session,) = parse_path(CLAUDE)
    assert not [w for w in session.warnings if "surrogate" in w]


def test_tool_arguments_are_repaired_at_any_depth_and_a_whole_pair_is_kept():
    """Arguments nested as deep as json.loads goes (about 950), repaired from deep in a
    call stack: a walk by recursion ended in a RecursionError there."""
    from convo_tui.core.model import Message, Session, ToolCall
    from convo_tui.core.sources import surrogates

    depth = 940
    deep = json.loads('{"a":' * depth + '"cut \\ud800"' + "}" * depth)
    flat = json.loads('{"k\\udc00": ["ok", "b\\ud83d", {"n": 1}], "v": "\\ud83d\\ude00 whole"}')
    tools = [ToolCall(name="Edit", args=deep), ToolCall(name="Bash", args=flat)]
    session = Session(id="s", title="t", project="p", source="claude-code", path="/s.jsonl")
    session.messages = [Message(id="m", role="assistant", text="done", tools=tools)]

    def from_deep_in_a_stack(frames: int) -> int:
        return surrogates.repair(session) if frames == 0 else from_deep_in_a_stack(frames - 1)

    assert from_deep_in_a_stack(200) == 3
    assert flat == {"k\ufffd": ["ok", "b\ufffd", {"n": 1}], "v": "\U0001f600 whole"}
    json.dumps([deep, flat], ensure_ascii=False).encode("utf-8")
