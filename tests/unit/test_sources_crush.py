"""Crush project databases (`<project>/.crush/crush.db`).

Fixtures follow charmbracelet/crush `internal/db/migrations/` and `internal/message/content.go`
@ 37f36e93 (2026-08): migrations up to 2026-01."""

from __future__ import annotations

import pytest
from convo_tui.core.sources import detect, parse_path

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

SID = "7a9c1e3f-5b7d-4f9a-8c2e-4f6a8c0e2b4d"


@pytest.fixture
def project(tmp_path):
    return build_tree(FIXTURES / "crush" / "notes-api", tmp_path / "notes-api")


def test_sessions_parts_and_tool_messages(project):
    database = project / ".crush" / "crush.db"
    assert detect(database).name == "crush"
    (session,) = parse_path(database)  # the title-generation session is Crush's own
    assert (session.id, session.title) == (SID, "Date test fails near midnight")
    assert (session.cwd, session.project) == (str(project), "notes-api")
    assert session.resume == ["crush", "--session", SID]
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]  # no summary message
    reply = session.messages[1]
    assert reply.thinking == "Local date against UTC date."
    (grep,) = reply.tools
    assert (grep.args, grep.result) == (
        {"pattern": "date.today", "path": "tests"},
        "tests/test_report.py:12:    today = date.today()",
    )
    assert reply.meta == {"model": "claude-sonnet-4-5"}
    # created_at in milliseconds, updated_at in seconds (the update trigger's): both read right
    assert session.started_at.isoformat() == "2026-04-14T09:20:01.233000+00:00"
    assert session.updated_at.isoformat() == "2026-04-14T09:21:12+00:00"
    assert session.meta["session_usage"] == {"prompt_tokens": 8120, "completion_tokens": 214}


def test_found_when_the_project_is_a_source(project):
    from convo_tui.core.index.discover import describe_path, iter_source_files

    assert [p.name for p in iter_source_files([project])] == ["crush.db"]
    assert describe_path(project, "config").format == "crush"
