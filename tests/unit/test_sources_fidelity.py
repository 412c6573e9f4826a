"""The four fidelity bugs of issue 27, each on a fixture in the real shape.

a. Aider: reasoning (`<thinking-content-…>` from Aider 0.86's `reasoning_tags.py`, a model's
   `<think>`, or only its closing tag) is the answer's thinking, not its text.
b. VS Code Copilot Chat (chat session format 3): an edit tool's `textEditGroup` is the effect of
   the call already counted, not a second call.
c. SpecStory Markdown v2.1.0: a session comment whose parenthesis is no time (`(now)`) and headers
   without times still start the session at the `# 2025-12-06 19:04:39Z` heading.
d. Managed Agents event logs: status events are never messages (see test_sources_managed_agents).
"""

from __future__ import annotations

import json

from convo_tui.core.sources import parse_path

from tests.paths import FIXTURES

AIDER = FIXTURES / "aider" / "reasoning" / ".aider.chat.history.md"
EDITS = FIXTURES / "copilot" / "export" / "edits.json"
UNTIMED = FIXTURES / "specstory" / "untimed" / ".specstory" / "history" / "2026-01-15-cache-warmup.md"
MANAGED = FIXTURES / "managed_agents" / "sesn_01StagingMig.jsonl"


def test_a_aider_reasoning_is_thinking_not_the_answer():
    first, second = parse_path(AIDER)
    reply = first.messages[1]
    assert reply.thinking == "The number part goes through int() before the unit is applied. Look at units.py."
    assert reply.text.startswith("`parse_size` calls `int(num)`")
    assert "thinking-content" not in reply.text
    assert [t.name for t in reply.tools] == ["edit", "commit"]
    think, closing_only = second.messages[1], second.messages[3]
    assert think.thinking == "The unit table keys are upper case and the input is not normalized."
    assert think.text.startswith("Yes: only") and "<think>" not in think.text
    assert closing_only.thinking == "It never opened the tag, only closed it."  # a model that omits the opening tag
    assert closing_only.text.startswith("The pattern is")
    assert "<think>this is code in a fence, not reasoning</think>" in closing_only.text  # fenced code stays code


def test_b_copilot_chat_counts_each_tool_invocation_once():
    data = json.loads(EDITS.read_text(encoding="utf-8"))
    invocations = sum(p.get("kind") == "toolInvocationSerialized" for r in data["requests"] for p in r["response"])
    bare_edits = 1  # the second request's textEditGroup has no call (the old Edits mode)
    (session,) = parse_path(EDITS)
    calls = [t for m in session.messages for t in m.tools]
    assert len(calls) == invocations + bare_edits == 5
    assert [t.name for t in calls] == [
        "copilot_readFile",
        "copilot_replaceString",
        "copilot_multiReplaceString",
        "copilot_insertEdit",
        "edit",
    ]
    assert calls[1].args == {"filePath": "/home/lin/notes/store.py", "oldString": "tmp", "newString": "draft"}
    assert session.messages[1].text.startswith("I'll read store.py first.\n\nNow the edits.")


def test_c_specstory_v2_starts_at_its_heading():
    (session,) = parse_path(UNTIMED)
    assert all(m.timestamp is None for m in session.messages)
    assert session.started_at is not None and session.started_at.isoformat() == "2025-12-06T19:04:39+00:00"
    assert session.id == "3f1a9c2e-7b4d-4e6a-9c8b-2d5e0f7a1b36"
    assert session.messages[1].meta == {"model": "gpt-5"}


def test_d_managed_agent_status_events_are_not_system_messages():
    (session,) = parse_path(MANAGED)
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]
    assert [t.name for m in session.messages for t in m.tools] == ["bash"]
