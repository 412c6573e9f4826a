"""Claude Managed Agents session event logs, as saved from the API.

Fixtures follow the `BetaManagedAgentsSessionEvent` types of anthropics/anthropic-sdk-python
(`src/anthropic/types/beta/sessions/`) @ 009b0353 (2026-08), API beta `managed-agents-2026-04-01`.
Fidelity: status events were once read as `system` messages (issue 27, d)."""

from __future__ import annotations

import json

import pytest
from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

LOG = FIXTURES / "managed_agents" / "sesn_01StagingMig.jsonl"
PAGE = FIXTURES / "managed_agents" / "incidents-page.json"
LINES = FIXTURES / "managed_agents" / "incidents.jsonl"


def test_request_words_and_tool_calls_without_status_messages():
    assert detect(LOG).name == "claude-managed-agents"
    (session,) = parse_path(LOG)
    assert session.id == "sesn_01StagingMig"
    assert [(m.role, m.text[:28]) for m in session.messages] == [
        ("user", "Which migrations have not be"),
        ("assistant", "I'll list the pending migrat"),
        ("assistant", "One migration is pending: `c"),
    ]
    assert not any(m.role == "system" for m in session.messages)  # session.*, span.*, agent.thinking
    (bash,) = session.messages[1].tools
    assert (bash.name, bash.args) == ("bash", {"command": "alembic history --indicate-current | head -5"})
    assert bash.result == "a91f -> c07d (head)\n5e2b -> a91f (current)"  # found by the call's EVENT id
    assert session.messages[1].meta["usage"] == {"input_tokens": 1500, "output_tokens": 80, "cache_creation_input_tokens": 4000}
    assert session.messages[2].meta["usage"]["cache_read_input_tokens"] == 5500
    assert (session.resume, session.cwd) == (None, None)
    assert len(session.turns) == 1


@pytest.mark.parametrize("path", [PAGE, LINES], ids=["page", "jsonl"])
def test_a_saved_page_and_lines_read_alike(path):
    (session,) = parse_path(path)
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]
    assert session.messages[1].tools[0].result == "INC-12 db latency\nINC-15 login errors"


def test_the_event_stream_saved_as_sse(tmp_path):
    path = tmp_path / "stream.txt"
    events = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(f"event: message\ndata: {json.dumps(e)}\n\n" for e in events), encoding="utf-8")
    assert detect(path).name == "claude-managed-agents"
    (session,) = parse_path(path)
    assert len(session.messages) == 3


def test_an_export_with_its_session_object(tmp_path):
    path = tmp_path / "export.json"
    events = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    session_object = {
        "id": "sesn_01Export",
        "type": "session",
        "title": "Staging migrations",
        "agent": {"name": "ops", "model": {"id": "claude-sonnet-4-5"}},
    }
    path.write_text(json.dumps({"session": session_object, "events": events}), encoding="utf-8")
    (session,) = parse_path(path)
    assert (session.id, session.title, session.project, session.meta) == (
        "sesn_01Export",
        "Staging migrations",
        "ops",
        {"model": "claude-sonnet-4-5"},
    )


def test_a_session_error_is_an_error_message_not_a_reply(tmp_path):
    path = tmp_path / "sesn_01Err.jsonl"
    text = LOG.read_text(encoding="utf-8") + json.dumps(
        {"id": "sevt_01QxR7b000013", "type": "session.error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    path.write_text(text, encoding="utf-8")
    (session,) = parse_path(path)
    assert (session.messages[-1].role, session.messages[-1].error, session.messages[-1].text) == ("system", True, "Overloaded")
