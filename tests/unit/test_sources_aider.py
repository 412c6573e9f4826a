"""Aider chat history: one session per `# aider chat started at`, the user's `####`
lines, Aider's `>` output as tool calls, never as anyone's words.

Fixtures follow Aider-AI/aider chat histories of v0.62.1 and v0.86.1 (written by `aider/io.py`)."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

HISTORY = FIXTURES / "aider" / "habit-tracker" / ".aider.chat.history.md"


def test_sessions_a_person_would_count():
    assert detect(HISTORY).name == "aider"
    first, third = parse_path(HISTORY)  # the second was opened and left: only the banner
    assert first.id == "habit-tracker@2024-11-03T20:14:05"
    assert (first.project, first.cwd) == ("habit-tracker", str(HISTORY.parent.absolute()))
    assert first.resume == ["aider", "--restore-chat-history"]
    assert first.started_at.isoformat() == "2024-11-03T20:14:05+00:00"
    assert [(m.role, m.text.splitlines()[0] if m.text else "") for m in first.messages] == [
        ("user", "add a --since flag to `streaks` so I can count from a date"),
        ("assistant", "I'll add a `--since` option that parses an ISO date and filters entries before counting."),
        ("user", "/run pytest -q"),
        ("assistant", ""),
        ("user", "the test calls it without --since."),
        (
            "assistant",
            "`since` is already optional on the command line; the test calls the function directly. Give it a default:",
        ),
    ]
    assert first.messages[4].text == "the test calls it without --since.\nmake it optional"
    assert [(t.name, t.args) for t in first.messages[1].tools] == [
        ("edit", {"path": "cli.py"}),
        ("commit", {"sha": "7d3e9a1", "message": "feat: Add --since option to streaks command"}),
    ]
    assert "<<<<<<< SEARCH" in first.messages[1].text  # the edit block is the answer, as Aider showed it
    (run,) = first.messages[3].tools
    assert run.args == {"command": "pytest -q"}
    assert run.result.splitlines()[1].startswith("FAILED tests/test_cli.py::test_streaks")
    assert third.title == "/ask why do we store dates as strings in habits.json?"
    assert [m.role for m in third.messages] == ["user", "assistant"]
    assert len(first.turns) == 3


def test_chats_started_in_the_same_second_are_sessions_of_their_own(tmp_path):
    """A script running `aider --message` in a loop starts chats in the same second:
    each keeps its own id (one id made the second replace the first in the index)."""
    chat = "\n# aider chat started at 2026-03-09 10:41:27\n\n#### {question}\n\n{answer}\n"
    history = tmp_path / "repo" / ".aider.chat.history.md"
    history.parent.mkdir()
    history.write_text(
        chat.format(question="Rename the flag", answer="Renamed it.") + chat.format(question="Add a test", answer="Added one."),
        encoding="utf-8",
    )
    first, second = parse_path(history)
    assert (first.id, second.id) == ("repo@2026-03-09T10:41:27", "repo@2026-03-09T10:41:27#2")
    assert (first.messages[0].text, second.messages[0].text) == ("Rename the flag", "Add a test")
