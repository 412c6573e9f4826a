"""Terminal control in transcripts is data: it never acts on the reader's terminal.

Tool output keeps its colours and progress bars; a hostile transcript may carry a
title change, a screen clear or a clipboard write (OSC 52). Before, `show`,
`search` and the app printed them as they were: the app's pane title changed and
its screen was cleared (tmux, session 30).
"""

from __future__ import annotations

import pytest
from convo_tui.core.library.reading import summary_of
from convo_tui.core.search.merge import merge
from convo_tui.core.sources import parse_path
from convo_tui.core.store.base import Scored
from convo_tui.core.unicode import visible_controls, without_controls
from convo_tui.tui.control_filter import NoControlCharacters
from rich.segment import Segment
from textual.color import Color

from tests.helpers.hostile import CLEAR, CLIPBOARD, TITLE, hostile_transcript


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("plain text, tabs\tand\nlines", "plain text, tabs\tand\nlines"),
        ("\x1b[31mred\x1b[0m and \x1b[1;32mbold green\x1b[m", "red and bold green"),
        (f"a{TITLE}b{CLIPBOARD}c", "abc"),
        ("link \x1b]8;;https://example.com\x1b\\here\x1b]8;;\x1b\\ end", "link here end"),
        ("C1: \x9b31mred\x9b0m \x9d0;title\x9c done", "C1: red  done"),
        ("\x1bP1$r0m\x1b\\ after a DCS", " after a DCS"),
        ("charset \x1b(B keypad \x1b= lone \x1b", "charset  keypad  lone "),
        # what a terminal shows: the last of a line written over, the last of a character struck over
        ("downloading 10%\r50%\r100%\r\ndone\r\n", "100%\ndone\n"),
        ("N\bNA\bAM\bME\bE and _\bu", "NAME and u"),
        ("bell\x07 nul\x00 del\x7f", "bell nul del"),
        # an OSC string cut short takes the rest of its line, never the lines after it
        ("cut \x1b]0;no end\nthe next line", "cut \nthe next line"),
        ("中文 \x1b[1m加粗\x1b[0m", "中文 加粗"),
    ],
)
def test_terminal_control_is_removed_and_the_text_kept(raw, clean):
    assert without_controls(raw) == clean


def test_text_without_control_is_returned_as_it_is():
    text = "nothing to do here " * 100
    assert without_controls(text) is text


def test_names_keep_their_control_characters_written_out():
    assert visible_controls("proj\x1b]0;X\x07/a.jsonl") == "proj\\x1b]0;X\\x07/a.jsonl"


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_a_session_read_from_a_transcript_holds_no_terminal_control(tmp_path):
    (session,) = parse_path(hostile_transcript(tmp_path))
    texts = [session.title]
    for message in session.messages:
        texts += [message.text, message.thinking]
        for tool in message.tools:
            texts += [tool.name, tool.result, *_strings(tool.args)]
    assert not [text for text in texts if any((ord(ch) < 32 and ch not in "\n\t") or 0x7F <= ord(ch) <= 0x9F for ch in text)]
    assert session.title == "why does the build fail?"
    assert session.messages[1].tools[0].args == {"command": "pytest -q"}
    assert session.messages[1].tools[0].result == "FAILED test_build\n1 failed"


def test_results_and_summaries_of_an_index_built_before_hold_none_either():
    """An index built before readers removed terminal control keeps the raw texts."""
    payload = {
        "session_id": "s1",
        "session_title": f"title{TITLE}",
        "project": f"proj{CLEAR}",
        "turn_index": 0,
        "user_text": f"why{TITLE} does it fail",
        "ai_text": f"\x1b[31mred\x1b[0m{CLIPBOARD}",
        "tools": [f"Bash{CLEAR}"],
        "message_ids": ["msg-0", "msg-1"],
    }
    (hit,) = merge([Scored("p1", 1.0, payload)], [], None, 10)
    assert (hit.session_title, hit.user_text, hit.ai_text, hit.tools) == ("title", "why does it fail", "red", ["Bash"])
    assert hit.project == f"proj{CLEAR}"  # a folder's name stays as it is: the faces spell it out or drop the control
    assert summary_of(payload).title == "title"


def test_the_app_draws_no_control_character_whatever_reaches_a_widget():
    segments = [Segment("ok "), Segment(f"a{TITLE}b"), Segment("\x9b31m")]
    drawn = NoControlCharacters().apply(segments, Color(0, 0, 0))
    assert [segment.text for segment in drawn] == ["ok ", "a]0;PWNEDb", "31m"]
    assert sum(s.cell_length for s in drawn) == sum(s.cell_length for s in segments)  # nothing on screen moves
    clean = [Segment("nothing to remove")]
    assert NoControlCharacters().apply(clean, Color(0, 0, 0)) is clean
