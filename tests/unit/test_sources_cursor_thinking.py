"""Cursor `[Thinking]` has no end marker: the rule read from real transcripts,
tested on the shapes they show (answer on the next line, bold-titled summaries
spanning blank lines, list items, a bare marker before a tool call)."""

from __future__ import annotations

from convo_tui.core.sources import parse_path

from tests.paths import FIXTURES

SHAPES = FIXTURES / "cursor" / "thinking" / "shapes.txt"


def _session():
    (session,) = parse_path(SHAPES)
    return session


def test_the_answer_starts_on_the_line_after_a_one_line_thought():
    first = _session().messages[1]
    assert (
        first.thinking
        == "The user wants to know why two video apps freeze the machine; I should look at memory and GPU use first."
    )
    assert first.text == "Let me check your memory and GPU while both are open."
    assert first.tools[0].args == {"command": "free -h", "description": "Check memory"}


def test_bold_titled_summaries_span_blank_lines_and_the_answer_follows():
    second = _session().messages[2]
    assert second.thinking == (
        "**Reading the numbers**\n\nSwap is full and the GPU has 2 GB left; both apps reserve VRAM for previews.\n\n"
        "**Choosing advice**\n\nLower the preview resolution first; it is the cheapest change."
    )
    assert second.text == "Your swap is full and the GPU is nearly out of memory. Lower Resolve's preview resolution to half."


def test_a_list_after_a_colon_is_thinking_and_a_blank_line_ends_it():
    third = _session().messages[4]
    assert third.thinking == "Options to offer:\n- switch the encoder to NVENC\n- lower the canvas to 1080p"
    assert third.text == "Switch OBS to the NVENC encoder so the CPU is free, and record at 1080p."


def test_a_bare_marker_before_a_tool_call_is_no_thinking():
    last = _session().messages[5]
    assert (last.thinking, last.text, [t.name for t in last.tools]) == ("", "", ["ReadFile"])
