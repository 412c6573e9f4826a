"""`convo-tui sources` shows, per source, how its files read at the last indexing: files read,
skipped, and read with parts their reader did not know (format drift), asked of the index
in process and through its holder alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from convo_tui.cli.main import main
from convo_tui.core.holder.access import attach, open_local
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.paths import FIXTURES

CODEX = FIXTURES / "codex" / "sample" / "rollout-2025-10-01T08-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.jsonl"
COPILOT = FIXTURES / "copilot_cli" / "session-state" / "4e2b9d71-0c3a-4f58-9b6e-2a7d1c5f8e30" / "events.jsonl"


def _sources(tmp_path: Path) -> Path:
    """A Codex rollout and a Copilot CLI log each with event types of a newer version, and a broken file."""
    src = tmp_path / "src"
    (src / "codex").mkdir(parents=True)
    (src / "copilot" / "4e2b9d71-0c3a-4f58-9b6e-2a7d1c5f8e30").mkdir(parents=True)
    rollout = src / "codex" / CODEX.name
    shutil.copyfile(CODEX, rollout)
    with open(rollout, "a", encoding="utf-8") as handle:
        for _ in range(2):
            handle.write(json.dumps({"timestamp": "2025-10-01T08:00:09Z", "type": "turn_summary_v2", "payload": {}}) + "\n")
    events = src / "copilot" / "4e2b9d71-0c3a-4f58-9b6e-2a7d1c5f8e30" / "events.jsonl"
    shutil.copyfile(COPILOT, events)
    with open(events, "a", encoding="utf-8") as handle:
        line = {"type": "session.memory_saved", "data": {}, "id": "x", "timestamp": "2026-05-11T07:42:00Z"}
        handle.write(json.dumps(line) + "\n")
    (src / "notes.jsonl").write_text('{"role": "user", "content": "cut', encoding="utf-8")
    return src


def test_sources_reports_unknown_parts_per_source(tmp_path: Path, capsys):
    settings = Settings(index_dir=tmp_path / "index", discover_defaults=False)
    with Library.open(settings) as library:
        library.index([_sources(tmp_path)], semantic=False)
        readings = {r.name: r for r in library.reading()}
    assert (readings["codex"].files, readings["codex"].drifted, readings["codex"].unknown) == (1, 1, 2)
    assert readings["codex"].top == (("record:turn_summary_v2", 2),)
    assert readings["copilot-cli"].top == (("event:session.memory_saved", 1),)
    assert readings["openai"].skipped == 1

    assert main(["sources", "--index-dir", str(tmp_path / "index")]) == 0
    out = capsys.readouterr().out
    assert "  Codex CLI (codex): 1 file, 1 with 2 unknown parts (record turn_summary_v2 ×2)\n" in out
    assert "  GitHub Copilot CLI (copilot-cli): 1 file, 1 with 1 unknown part (event session.memory_saved ×1)\n" in out
    assert "  OpenAI-style logs (openai): 0 files, 1 skipped\n" in out
    assert main(["sources", "--json", "--index-dir", str(tmp_path / "index")]) == 0
    rows = [json.loads(line)["reading"] for line in capsys.readouterr().out.splitlines() if '"reading"' in line]
    assert {row["name"]: row["unknown"] for row in rows} == {"codex": 2, "copilot-cli": 1, "openai": 0}


def test_the_holder_answers_as_the_library_does(tmp_path: Path):
    settings = Settings(index_dir=tmp_path / "index", discover_defaults=False)
    with Library.open(settings) as library:
        library.index([_sources(tmp_path)], semantic=False)
        here = library.reading()
    holder = open_local(settings)
    try:
        remote = attach(settings)
        assert type(remote).__name__ == "RemoteEngine"
        assert remote.reading() == here == holder.reading()
    finally:
        holder.close()
