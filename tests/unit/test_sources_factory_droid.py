"""Factory Droid sessions (`~/.factory/sessions/<folder>/<id>.jsonl` + `<id>.settings.json`).

Droid is closed source. Fixtures follow session format version 2 as read by
Dicklesworthstone/franken_agent_detection (factory.rs @ 6ae73d5f) and
marmutapp/superbased-observer (models.go @ c3a3840a), with real paths and hook payloads of 2026."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

DID = "6c2e8a4f-1b3d-4e5f-9a7b-0c2d4e6f8a1b"
SESSION = FIXTURES / "factory" / "sessions" / "-Users-maya-code-fetcher" / f"{DID}.jsonl"


def test_anthropic_blocks_and_the_settings_file():
    assert detect(SESSION).name == "factory-droid"
    (session,) = parse_path(SESSION)
    assert (session.id, session.title, session.cwd) == (DID, "Retry loop never stops on 404", "/Users/maya/code/fetcher")
    assert session.resume == ["droid", "--resume", DID]
    assert next((m.role, m.text) for m in session.messages) == (
        "user",
        "fetch_with_retry retries forever on a 404.",
    )  # no reminder
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]  # tool results are not the user
    reply = session.messages[1]
    assert reply.thinking == "404 is not transient."
    (read,) = reply.tools
    assert (read.name, read.args) == ("Read", {"file_path": "/Users/maya/code/fetcher/retry.py"})
    assert read.result.startswith("while True:")
    assert session.meta["model"] == "claude-sonnet-4-5-20250929"
    assert session.meta["session_usage"] == {
        "input_tokens": 5230,
        "output_tokens": 188,
        "cache_creation_tokens": 4100,
        "cache_read_tokens": 8800,
    }


def test_placeholder_title_gives_way_to_the_first_question(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(
        SESSION.read_text(encoding="utf-8").replace('"title":"Retry loop never stops on 404"', '"title":"New Session"'),
        encoding="utf-8",
    )
    (session,) = parse_path(path)
    assert session.title == "fetch_with_retry retries forever on a 404."
