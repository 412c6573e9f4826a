"""Kimi CLI sessions (`~/.kimi/sessions/<md5 of folder>/<id>/wire.jsonl`).

Fixtures follow MoonshotAI/kimi-cli wire protocol 1.10 (`src/kimi_cli/wire/file.py`,
`wire/types.py`, `metadata.py`) @ 4a550eff (2026-07)."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

KID = "8f4a2c6e-3d1b-4f7a-b5c9-2e0d6a8f1c3b"
WIRE = next((FIXTURES / "kimi" / "sessions").glob(f"*/{KID}/wire.jsonl"))


def test_streamed_parts_joined_calls_and_the_folder_from_kimi_json():
    assert detect(WIRE).name == "kimi-cli"
    (session,) = parse_path(WIRE)
    assert (session.id, session.title) == (KID, "rsync exit status")  # state.json custom_title
    assert (session.cwd, session.project) == ("/home/jun/backup-scripts", "backup-scripts")  # md5 of the folder
    assert session.resume == ["kimi", "--session", KID]
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "The backup script exits 0 even when rsync fails."),
        ("assistant", "Reading the script."),
        ("assistant", "The pipe hides rsync's status: `sh` reports `tee`'s. Add `set -o pipefail` (bash) and `set -e`."),
    ]
    step = session.messages[1]
    assert step.thinking == "The status is probably lost in a pipe. Read it."
    (read,) = step.tools
    assert (read.name, read.args) == ("ReadFile", {"path": "backup.sh"})  # arguments completed by ToolCallPart
    assert read.result == "rsync -a src/ dst/ | tee log\necho done"
    assert step.meta["usage"] == {"input_tokens": 1184, "output_tokens": 73, "cache_read_input_tokens": 3072}
    assert session.started_at.isoformat() == "2026-06-09T11:00:11.200000+00:00"


def test_context_jsonl_beside_the_wire_is_not_a_session_of_its_own():
    from convo_tui.core.index.discover import iter_source_files

    found = list(iter_source_files([FIXTURES / "kimi" / "sessions"]))
    assert [p.name for p in found] == ["wire.jsonl"]
