"""OpenHands conversations (`~/.openhands/conversations/<id>/base_state.json` + `events/`).

Fixtures follow OpenHands/software-agent-sdk events (`openhands/sdk/event/`, `persistence_const.py`)
@ 611629e6 (2026-08) as the OpenHands CLI @ 6b3838ce (2026-05) stores them."""

from __future__ import annotations

import json

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

OID = "2f4a6c8e-0b1d-4e3f-a5c7-9e1b3d5f7a0c"
STATE = FIXTURES / "openhands" / "conversations" / OID.replace("-", "") / "base_state.json"


def test_messages_actions_observations_and_the_finish_message():
    assert detect(STATE).name == "openhands"
    (session,) = parse_path(STATE)
    assert (session.id, session.cwd, session.project) == (OID, "/home/ines/src/tidyurls", "tidyurls")
    assert session.resume == ["openhands", "--resume", OID]
    assert [(m.role, m.text[:26]) for m in session.messages] == [
        ("user", "normalize() strips the sla"),
        ("assistant", "Let me look at normalize()"),  # the action's thought
        ("assistant", "`normalize()` returns http"),  # the finish tool's message is the answer
    ]
    action = session.messages[1]
    assert action.thinking == "The scheme branch differs."
    (terminal,) = action.tools
    assert terminal.args == {"command": "grep -n 'def normalize' -A 8 tidyurls/core.py"}
    assert terminal.result.startswith("14:def normalize(url):")
    assert not session.messages[2].tools  # `finish` is the answer, not a call
    assert session.meta["model"] == "litellm_proxy/claude-sonnet-4-5-20250929"
    assert session.meta["session_usage"]["prompt_tokens"] == 18830


def test_a_broken_event_file_costs_only_that_event(tmp_path):
    import shutil

    folder = tmp_path / OID.replace("-", "")
    shutil.copytree(STATE.parent, folder)
    broken = next((folder / "events").glob("event-00003-*.json"))
    broken.write_text('{"kind": "ObservationEvent", "tool_call_id": ', encoding="utf-8")
    (session,) = parse_path(folder / "base_state.json")
    assert len(session.messages) == 3 and session.messages[1].tools[0].result == ""
    assert session.warnings == [f"{broken}: truncated JSON (ends in the middle of a value)"]


def test_event_files_are_read_with_the_state_not_alone():
    from convo_tui.core.index.discover import iter_source_files

    assert [p.name for p in iter_source_files([STATE.parent.parent])] == ["base_state.json"]


def test_events_sorted_by_their_number(tmp_path):
    import shutil

    folder = tmp_path / "c"
    shutil.copytree(STATE.parent, folder)
    first = next((folder / "events").glob("event-00001-*.json"))
    event = json.loads(first.read_text(encoding="utf-8"))
    first.rename(folder / "events" / f"event-00010-{event['id']}.json")  # the question, now last
    (session,) = parse_path(folder / "base_state.json")
    assert session.messages[-1].role == "user"
