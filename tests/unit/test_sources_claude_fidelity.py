"""Claude Code logs read as the user lived them: the file's own session id, prompts
queued while the agent worked, sub-agent work from 2.1.x `progress` lines, tool
results attached to their calls, and where the session ran (cwd, resume)."""

from __future__ import annotations

import json
from pathlib import Path

from convo_tui.cli.main import main
from convo_tui.core.sources import parse_path

from tests.paths import FIXTURES

HERE = FIXTURES / "claude_code"
HANDOFF = HERE / "plan-handoff.jsonl"
QUEUED = HERE / "4a4a4a4a-2222-4222-8222-00000000cccc.jsonl"
PROGRESS = HERE / "5b5b5b5b-3333-4333-8333-00000000dddd.jsonl"


def show_json(path: Path, capsys) -> dict:
    assert main(["show", str(path), "--json"]) == 0
    (doc,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    return doc


def test_session_id_is_the_one_most_lines_carry():
    """'Clear context and implement plan' opens the new file with the parent's id."""
    (session,) = parse_path(HANDOFF)
    assert session.id == "9e8d7c6b-1111-4111-8111-00000000bbbb"
    assert session.title == "Implement the following plan:"
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant", "assistant", "assistant"]


def test_tool_results_are_attached_to_their_calls():
    (session,) = parse_path(HANDOFF)
    reads = [tool for m in session.messages for tool in m.tools]
    assert [t.args["file_path"].rsplit("/", 1)[1] for t in reads] == ["part0.py", "part1.py", "part2.py"]
    assert reads[1].result == "1\tdef part1():\n     2\t    return 1"
    assert all(m.role == "assistant" for m in session.messages if m.tools)


def test_queued_prompt_is_a_user_message_and_notifications_are_not():
    (session,) = parse_path(QUEUED)
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "Round the invoice totals half-even, then commit."),
        ("assistant", ""),
        ("user", "split it into two commits please"),
        ("assistant", "Noted, I'll split the commits: one for the rounding helper, one for the call sites."),
    ]
    assert session.messages[2].timestamp.isoformat() == "2026-01-10T14:00:06.600000+00:00"
    assert len(session.turns) == 2  # the answer answers the queued prompt


def test_sub_agent_progress_lines_are_sidechain_messages(capsys):
    doc = show_json(PROGRESS, capsys)
    rows = [(m["role"], m["text"], m["sidechain"]) for m in doc["messages"]]
    assert rows == [
        ("user", "Where is the cart total computed? Use an agent.", False),
        ("assistant", "", False),
        ("user", "List every place the cart total is computed.", True),
        ("assistant", "", True),
        ("assistant", "Two places: src/cart.py line 12 and src/checkout.py line 40.", True),  # reported twice, kept once
        ("assistant", "The total is computed in src/cart.py:12 and again in src/checkout.py:40.", False),
    ]
    grep = doc["messages"][3]["tools"][0]
    assert grep == {
        "name": "Grep",
        "args": {"pattern": "cart_total", "path": "src"},
        "result": "src/cart.py:12\nsrc/checkout.py:40",
    }
    task = doc["messages"][1]["tools"][0]
    assert task["result"] == "Two places: src/cart.py line 12 and src/checkout.py line 40."
    # the sub-agent's words never join the main conversation's turns
    assert [t["user_text"] for t in doc["turns"]] == ["Where is the cart total computed? Use an agent."]


def test_cwd_and_resume_command(capsys):
    doc = show_json(QUEUED, capsys)
    assert doc["session"]["cwd"] == "/Users/ana/src/ledger"
    assert doc["session"]["resume"] == ["claude", "--resume", "4a4a4a4a-2222-4222-8222-00000000cccc"]
    assert doc["session"]["project"] == "ledger"
