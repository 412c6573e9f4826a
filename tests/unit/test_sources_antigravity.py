"""Google Antigravity trajectories (`brain/<id>/.system_generated/logs/transcript.jsonl`).

Antigravity is closed source. Fixtures follow the transcript lines of the Antigravity IDE
(2026-06) and `agy` CLI 1.2.16 quoted in public repositories, as read by
Dicklesworthstone/franken_agent_detection (antigravity.rs @ 034906e8), kenn-io/agentsview
(antigravity.go @ 53860074) and specstoryai/getspecstory (antigravitycli provider)."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

CONVERSATION = "7d3a5c1e-2b9f-4e60-a8d4-6f1b0c9e2a57"
TRANSCRIPT = FIXTURES / "antigravity" / "antigravity-cli" / "brain" / CONVERSATION / ".system_generated/logs/transcript.jsonl"


def test_request_planner_replies_and_tool_results():
    assert detect(TRANSCRIPT).name == "antigravity"
    (session,) = parse_path(TRANSCRIPT)
    assert session.id == CONVERSATION
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]
    # the request unwrapped: no <ADDITIONAL_METADATA> or <USER_SETTINGS_CHANGE> in the user's words
    assert session.messages[0].text == "The nightly job logs 'retrying' forever. Where is the retry limit?"
    planner = session.messages[1]
    assert planner.text == "I will search for the retry setting."
    assert planner.thinking.startswith("**Finding the retry loop**")
    (grep,) = planner.tools
    # argument values are JSON encoded twice in the transcript
    assert grep.args == {"Query": "max_retries", "SearchPath": "/home/olu/jobs", "toolAction": "Searching for max_retries"}
    assert grep.result == "jobs/nightly.py:22: max_retries = None"  # the Created/Completed At header dropped
    assert session.messages[2].text.startswith("`jobs/nightly.py` sets `max_retries = None`")
    assert planner.meta["model"] == "Gemini 3.5 Flash (High)"  # from the settings change
    assert (session.cwd, session.project) == ("/home/olu/jobs", "jobs")  # the CLI's history.jsonl
    assert session.resume is None


def test_system_steps_are_never_messages():
    (session,) = parse_path(TRANSCRIPT)
    assert not any("reminder" in m.text for m in session.messages)
    assert session.started_at.isoformat() == "2026-06-20T09:12:01+00:00"


def test_steps_are_read_in_step_order(tmp_path):
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "transcript.jsonl"
    path.write_text("\n".join(reversed(lines)), encoding="utf-8")
    (session,) = parse_path(path)
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]
    assert session.messages[1].tools[0].result.startswith("jobs/nightly.py")
