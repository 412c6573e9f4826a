"""Kiro CLI sessions (`~/.kiro/sessions/cli/<id>.jsonl` + `<id>.json`).

Kiro is closed source. Fixtures follow the kiro-cli session files of 2026-07 as read by
kenn-io/agentsview (kiro.go @ 53860074) and described, verified on live files, by
marmutapp/superbased-observer (models.go @ c3a3840a)."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

RID = "b4d6f8a0-2c4e-4a6b-8d0f-1e3a5c7e9b2d"
SESSION = FIXTURES / "kiro" / "sessions" / "cli" / f"{RID}.jsonl"


def test_prompt_assistant_blocks_and_tool_results():
    assert detect(SESSION).name == "kiro-cli"
    (session,) = parse_path(SESSION)
    assert (session.id, session.title, session.cwd) == (RID, "Lambda cold start timeout", "/home/ken/svc")
    assert session.resume == ["kiro-cli", "chat", "--resume-id", RID]
    assert [(m.role, m.text[:24]) for m in session.messages] == [
        ("user", "Why does the Lambda time"),
        ("assistant", "Let me read the handler."),
        ("assistant", "The model is downloaded "),
    ]
    (read,) = session.messages[1].tools
    assert read.name == "fs_read" and read.args["operations"][0]["path"] == "/home/ken/svc/handler.py"
    assert read.result == "3: MODEL = load_model('s3://bucket/model.bin')"
    assert session.started_at.isoformat() == "2026-04-21T09:14:02.118000+00:00"  # from <id>.json
    assert session.updated_at.isoformat() == "2026-04-21T09:14:31.640000+00:00"


def test_the_metadata_file_is_read_with_the_session_not_alone():
    from convo_tui.core.index.discover import iter_source_files

    assert [p.name for p in iter_source_files([SESSION.parent])] == [f"{RID}.jsonl"]
