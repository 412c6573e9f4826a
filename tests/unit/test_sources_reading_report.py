"""`convo-tui sources` reports per source how its files read at their last indexing: files
read, skipped, and read with parts the reader did not know (format drift), from the index's
manifest, whose entries keep what `parse_file` counted."""

from __future__ import annotations

from convo_tui.core.engine import SourceReading
from convo_tui.core.holder.ops import OPERATIONS
from convo_tui.core.index.manifest import FileEntry, Manifest, source_readings


def _entry(fmt: str, unknown: dict[str, int] | None = None, error: str | None = None) -> FileEntry:
    return FileEntry(size=1, mtime_ns=1, hash="h", format=fmt, parser_version=1, model="m", error=error, unknown=unknown or {})


def test_counts_per_source_with_the_most_frequent_unknown_parts(tmp_path):
    manifest = Manifest(tmp_path)
    for number in range(809):
        manifest.put(f"/codex/{number}.jsonl", _entry("codex"))
    manifest.put("/codex/a.jsonl", _entry("codex", {"event:turn.brand_new": 30, "part:image_v2": 5}))
    manifest.put("/codex/b.jsonl", _entry("codex", {"event:turn.brand_new": 4}))
    manifest.put("/codex/c.jsonl", _entry("codex", {"record:ghost": 2}))
    manifest.put("/codex/bad.jsonl", _entry("codex", error="truncated JSON"))
    manifest.put("/x/notes.txt", _entry("", error="unknown format (not a transcript convo-tui can read)"))
    codex, unknown = source_readings(manifest)
    assert codex == SourceReading(
        name="codex",
        tool="Codex CLI",
        files=812,
        skipped=1,
        drifted=3,
        unknown=41,
        top=(("event:turn.brand_new", 34), ("part:image_v2", 5), ("record:ghost", 2)),
    )
    assert codex.describe() == (
        "Codex CLI (codex): 812 files, 3 with 41 unknown parts (event turn.brand_new ×34, part image_v2 ×5, record ghost ×2), 1 skipped"
    )
    assert unknown.describe() == "unknown format: 0 files, 1 skipped"


def test_the_counts_survive_the_manifest_file(tmp_path):
    manifest = Manifest(tmp_path)
    manifest.put("/a.jsonl", _entry("pi", {"record:brand_new": 2}))
    manifest.save()
    (reading,) = source_readings(Manifest.load(tmp_path))
    assert (reading.tool, reading.drifted, reading.unknown) == ("Pi coding agent", 1, 2)


def test_the_holder_sends_readings_as_they_are():
    codec = OPERATIONS["reading"].result
    readings = [SourceReading("codex", "Codex CLI", 3, 1, 1, 4, (("event:x", 4),))]
    assert codec.decode(codec.encode(readings)) == readings
