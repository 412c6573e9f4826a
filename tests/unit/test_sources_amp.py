"""Amp threads (`~/.local/share/amp/threads/T-<id>.json`).

Amp is closed source. Fixtures follow thread files of 2025-06 – 2026-01 as read by
kenn-io/agentsview (amp.go @ 53860074) and jonathan-kellerai/cross_agent_session_resumer
(providers/amp.rs @ ec0eab96), and the thread keys public notes list."""

from __future__ import annotations

import json

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

AID = "T-0198a3c2-7e4f-7b1d-9c20-4a6e8f0b2d15"
THREAD = FIXTURES / "amp" / "threads" / f"{AID}.json"


def test_thread_with_tool_run_results_and_usage():
    assert detect(THREAD).name == "amp"
    (session,) = parse_path(THREAD)
    assert (session.id, session.title) == (AID, "Static asset cache headers")
    assert session.cwd == "/Users/ravi/code/shop front"  # the workspace URI, percent-decoded
    assert session.resume == ["amp", "threads", "continue", AID]
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]  # the tool_result message is not yours
    reply = session.messages[1]
    assert reply.thinking == "Look for Cache-Control in the server."
    (grep,) = reply.tools
    assert grep.result == "server/static.ts:9: res.setHeader('Cache-Control', 'no-cache');"  # toolUseID + run.result
    assert reply.meta == {
        "model": "claude-sonnet-4-5",
        "usage": {"input_tokens": 12, "cache_creation_input_tokens": 2140, "cache_read_input_tokens": 9800, "output_tokens": 88},
    }
    assert session.updated_at.isoformat() == "2025-06-30T12:00:09.900000+00:00"  # the last trace's end


def test_openai_models_count_the_uncached_prompt_as_input(tmp_path):
    thread = json.loads(THREAD.read_text(encoding="utf-8"))
    thread["messages"][3]["usage"]["model"] = "gpt-5"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(thread), encoding="utf-8")
    (session,) = parse_path(path)
    assert session.messages[2].meta["usage"] == {"input_tokens": 169, "cache_read_input_tokens": 11940, "output_tokens": 71}


def test_openai_reader_does_not_take_amp_threads():
    from convo_tui.core.sources import formats

    openai = next(f for f in formats() if f.name == "openai")
    assert detect(THREAD).name == "amp" and openai.name != detect(THREAD).name
