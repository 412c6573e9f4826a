"""Gemini CLI `--output-format stream-json` logs.

Fixtures follow the events google-gemini/gemini-cli emits in `packages/cli/src/nonInteractiveCli.ts`
with the types of `packages/core/src/output/types.ts` @ 5411f113 (2026-08)."""

from __future__ import annotations

import pytest
from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

RUN = FIXTURES / "gemini_stream" / "docs-run.jsonl"
SHORT = FIXTURES / "gemini_stream" / "readme-run.jsonl"


def test_deltas_joined_into_one_reply_per_round_with_the_tool_call():
    assert detect(RUN).name == "gemini-stream"
    (session,) = parse_path(RUN)
    assert session.id == "2c8e4a6f-9b1d-4f3e-8a27-5d0c6b1e9f84"
    assert session.resume == ["gemini", "--resume", "2c8e4a6f-9b1d-4f3e-8a27-5d0c6b1e9f84"]
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "Why does `make docs` fail?"),
        ("assistant", "Let me run it and read the error."),
        ("assistant", "The docs use the `furo` theme, which is not installed. Add `furo` to `docs/requirements.txt`."),
    ]
    (shell,) = session.messages[1].tools
    assert (shell.name, shell.args["command"]) == ("run_shell_command", "make docs")
    assert shell.result == "sphinx-build: error: unknown theme 'furo'"  # the error of a failed call
    assert session.messages[2].meta == {
        "model": "gemini-2.5-pro",
        "usage": {"input_tokens": 6900, "cached_input_tokens": 4096, "output_tokens": 220},
    }
    assert len(session.turns) == 1


def test_a_call_before_any_words():
    (session,) = parse_path(SHORT)
    assert [(m.role, m.text, [t.name for t in m.tools]) for m in session.messages] == [
        ("user", "summarise README.md", []),
        ("assistant", "", ["read_file"]),  # a round that only called a tool
        ("assistant", "The README describes a demo.", []),  # the words after its result: the next round
    ]
    assert session.messages[1].tools[0].result == "# Demo"


def test_two_runs_appended_to_one_file(tmp_path):
    path = tmp_path / "runs.jsonl"
    other = SHORT.read_text(encoding="utf-8")
    path.write_text(RUN.read_text(encoding="utf-8") + other, encoding="utf-8")
    sessions = parse_path(path)
    assert [s.id for s in sessions] == ["2c8e4a6f-9b1d-4f3e-8a27-5d0c6b1e9f84", "c0ffee11-2222-4333-8444-555566667777"]


@pytest.mark.parametrize("other", ["claude_stream/minimal.jsonl", "managed_agents/incidents.jsonl"])
def test_other_event_logs_are_not_taken(other):
    assert detect(FIXTURES / other).name != "gemini-stream"
