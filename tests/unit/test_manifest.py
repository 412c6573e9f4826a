"""The manifest: one SQLite row per source file, read a file at a time, committed by save()."""

from __future__ import annotations

import json
import os
import sqlite3

from convo_tui.core.index.manifest import LEGACY_NAME, MANIFEST_NAME, FileEntry, Manifest


def entry(*sessions: str, size: int = 10) -> FileEntry:
    return FileEntry(size, 1, "h", "claude-code", 3, "m", list(sessions), 7, None)


def test_entries_round_trip_and_survive_a_reopen_only_once_saved(tmp_path):
    manifest = Manifest.load(tmp_path)
    manifest.put("/a.jsonl", entry("s1", "s2"))
    manifest.put("/b.jsonl", entry("s3"))
    assert manifest.get("/a.jsonl") == entry("s1", "s2")
    manifest.save()
    manifest.put("/c.jsonl", entry("s4"))  # not saved: a crash here loses only this
    manifest.close()
    again = Manifest.load(tmp_path)
    assert again.paths() == ["/a.jsonl", "/b.jsonl"]
    assert dict(again.entries()) == {"/a.jsonl": entry("s1", "s2"), "/b.jsonl": entry("s3")}
    assert (again.session_count(), again.owner_of("s3"), again.owner_of("nope")) == (3, "/b.jsonl", None)
    again.remove("/a.jsonl")
    again.save()
    assert again.get("/a.jsonl") is None and again.owner_of("s1") is None
    assert oct(os.stat(tmp_path / MANIFEST_NAME).st_mode & 0o777) == "0o600"


def test_session_counts_give_every_file_with_its_format_and_sessions_in_one_read(tmp_path):
    odd = os.fsdecode(b"/tmp/caf\xe9.jsonl")
    manifest = Manifest.load(tmp_path)
    manifest.put("/a.jsonl", entry("s1", "s2"))
    manifest.put("/empty.json", FileEntry(5, 1, "h", "chatgpt", 1, "m", [], 7, "line 1: not JSON"))
    manifest.put(odd, entry("s3"))
    assert sorted(manifest.session_counts()) == [
        ("/a.jsonl", "claude-code", 2),
        ("/empty.json", "chatgpt", 0),
        (odd, "claude-code", 1),
    ]
    assert sorted(manifest.session_counts()) == sorted((k, e.format, len(e.sessions)) for k, e in manifest.entries())


def test_paths_that_are_not_utf8_round_trip(tmp_path):
    odd = os.fsdecode(b"/tmp/caf\xe9.jsonl")
    manifest = Manifest.load(tmp_path)
    manifest.put(odd, entry("s1"))
    manifest.save()
    assert manifest.paths() == [odd] and manifest.get(odd) == entry("s1") and manifest.owner_of("s1") == odd


def test_the_first_file_to_claim_a_session_keeps_it_for_the_run(tmp_path):
    manifest = Manifest.load(tmp_path)
    assert manifest.claim("s1", "/a") == "/a"
    assert manifest.claim("s1", "/b") == "/a"
    manifest.forget_claims()
    assert manifest.claim("s1", "/b") == "/b"


def test_a_json_manifest_of_an_earlier_version_is_imported_once(tmp_path):
    legacy = {"version": 1, "files": {"/a.jsonl": {**entry("s1").__dict__}}}
    (tmp_path / LEGACY_NAME).write_text(json.dumps(legacy), encoding="utf-8")
    assert Manifest.load(tmp_path, read_only=True).get("/a.jsonl") == entry("s1")  # a reader reads it as it is
    assert (tmp_path / LEGACY_NAME).exists()
    manifest = Manifest.load(tmp_path)
    assert manifest.get("/a.jsonl") == entry("s1") and not (tmp_path / LEGACY_NAME).exists()


def test_a_reader_of_an_index_without_a_manifest_sees_none_and_writes_nothing(tmp_path):
    manifest = Manifest.load(tmp_path, read_only=True)
    assert (len(manifest), manifest.session_count()) == (0, 0)
    assert not (tmp_path / MANIFEST_NAME).exists()


def test_an_unreadable_manifest_starts_afresh(tmp_path):
    (tmp_path / MANIFEST_NAME).write_bytes(b"this is not a database" * 100)
    manifest = Manifest.load(tmp_path)
    assert len(manifest) == 0
    manifest.put("/a", entry("s1"))
    manifest.save()
    assert Manifest.load(tmp_path).get("/a") == entry("s1")


def test_a_reader_sees_an_empty_manifest_while_an_index_run_is_only_creating_it(tmp_path):
    """The indexer creates the file before its tables: a reader then (the app's
    archive status) sees nothing recorded, not `no such table`."""
    (tmp_path / MANIFEST_NAME).touch()
    reader = Manifest.load(tmp_path, read_only=True)
    try:
        assert len(reader) == 0 and list(reader.entries()) == [] and reader.paths() == []
    finally:
        reader.close()


def test_a_reader_sees_an_empty_manifest_while_only_some_of_its_tables_exist(tmp_path):
    """Between the indexer's CREATE TABLEs (a manifest of an older writer, or a crash
    then), the app's archive status read `sessions` and its worker died."""
    with sqlite3.connect(tmp_path / MANIFEST_NAME) as db:
        db.execute("CREATE TABLE files (path BLOB PRIMARY KEY, size INTEGER NOT NULL)")
    reader = Manifest.load(tmp_path, read_only=True)
    try:
        assert len(reader) == 0 and list(reader.session_counts()) == [] and reader.session_count() == 0
    finally:
        reader.close()


def test_sessions_come_newest_file_first_and_each_once(tmp_path):
    """Phase 2 walks the sessions in this order (dense_phase.DensePhase._waiting)."""
    manifest = Manifest.load(tmp_path)

    def put(path: str, mtime: int, *sessions: str) -> None:
        manifest.put(path, FileEntry(10, mtime, "h", "claude-code", 3, "m", list(sessions), 7, None))

    put("/old.jsonl", 100, "a1", "a2")
    put("/new.jsonl", 300, "b1")
    put("/mid.jsonl", 200, "c1", "shared")
    put("/newest.jsonl", 400, "shared", "d1")  # a session two files hold: once, at the newer
    put("/empty.json", 500)
    assert manifest.sessions_newest_first() == ["shared", "d1", "b1", "c1", "a1", "a2"]
