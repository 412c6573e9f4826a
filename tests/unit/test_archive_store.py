"""The archive's storage on its own: chunks, versions, appends, dumps, merging (no model, no index)."""

from __future__ import annotations

import json
import os
import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from convo_tui.core.archive.chunks import MIN_CHUNK, Chunker, chunk_id
from convo_tui.core.archive.files import Machines, excluded, staged_path
from convo_tui.core.archive.records import ArchiveFull
from convo_tui.core.archive.sqlite_dump import dump, restore
from convo_tui.core.archive.store import Archive
from convo_tui.core.errors import ConvoError
from convo_tui.core.index.manifest import file_hash
from hypothesis import given, settings
from hypothesis import strategies as st

WORDS = ["qdrant", "archive", "session", "chunk", "append", "zstd", "cursor", "claude", "vector", "index"]


def transcript_lines(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        json.dumps(
            {"n": i, "type": rng.choice(["user", "assistant"]), "text": " ".join(rng.choices(WORDS, k=rng.randint(4, 160)))}
        )
        + "\n"
        for i in range(count)
    ]


def chunks_of(data: bytes, pieces: list[int]) -> list[bytes]:
    chunker, out, at = Chunker(), [], 0
    for size in pieces:
        out += chunker.feed(data[at : at + size])
        at += size
    out += chunker.feed(data[at:])
    return out + chunker.finish()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=200_000), max_size=12))
def test_chunks_do_not_depend_on_how_the_bytes_arrive(pieces):
    data = "".join(transcript_lines(1500)).encode()
    whole = chunks_of(data, [])
    assert b"".join(whole) == data
    assert chunks_of(data, pieces) == whole
    assert all(len(c) >= MIN_CHUNK for c in whole[:-1])


def test_an_edit_in_the_middle_changes_few_chunks():
    lines = transcript_lines(3000)
    before = chunks_of("".join(lines).encode(), [])
    lines[1500] = lines[1500].replace('"n": 1500', '"n": 15000')
    after = chunks_of("".join(lines).encode(), [])
    shared = {chunk_id(c) for c in before} & {chunk_id(c) for c in after}
    assert len(after) - len(shared) <= 2 and len(before) > 10


@pytest.fixture
def archive(tmp_path: Path) -> Archive:
    return Archive(tmp_path / "archive")


def test_versions_read_back_exactly_and_an_append_stores_only_its_tail(tmp_path: Path, archive: Archive):
    path = tmp_path / "s.jsonl"
    lines = transcript_lines(2000)
    path.write_text("".join(lines[:1990]))
    first = archive.put_file(str(path), path)
    assert first.hash == first.source.hash == file_hash(path)
    tail = "".join(lines[1990:])
    with open(path, "a") as handle:
        handle.write(tail)
    before = archive.counts()
    second = archive.put_file(str(path), path)
    grown = archive.counts()
    assert (second.seq, second.chain) == (2, first.chain)  # the same chain, extended
    assert grown.raw_bytes - before.raw_bytes == len(tail.encode())
    assert grown.stored_bytes - before.stored_bytes <= len(tail.encode())
    for version in (first, second):
        out = tmp_path / f"out-{version.seq}"
        archive.write_to(version, out)
        assert file_hash(out) == version.hash
    assert archive.verify() == []


def test_a_path_that_is_not_utf8_is_kept_and_found_again(tmp_path: Path, archive: Archive):
    name = os.path.join(os.fsencode(tmp_path), b"\xe9t\xe9.txt")
    with open(name, "wb") as handle:
        handle.write(b"user:\nhi\n")
    key = os.fsdecode(name)
    version = archive.put_file(key, Path(key))
    assert archive.latest(key) == version and [e.key for e in archive.entries()] == [key]
    assert archive.entry(key).latest == version and archive.verify() == []


def test_the_same_bytes_make_no_new_version_and_a_rewrite_a_new_chain(tmp_path: Path, archive: Archive):
    path = tmp_path / "s.json"
    path.write_text("".join(transcript_lines(500)))
    first = archive.put_file(str(path), path)
    assert archive.put_file(str(path), path) == first
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # touched, not changed
    touched = archive.put_file(str(path), path)
    assert (touched.seq, touched.source.mtime_ns) == (1, 1_000_000_000)
    path.write_text("".join(transcript_lines(500, seed=8)))  # rewritten
    third = archive.put_file(str(path), path)
    assert third.seq == 2 and third.chain != first.chain and third.hash == file_hash(path)
    assert archive.latest(str(path)) == third


def test_the_archive_is_private_and_checks_what_it_reads(tmp_path: Path, archive: Archive):
    path = tmp_path / "s.jsonl"
    path.write_text("".join(transcript_lines(300)))
    version = archive.put_file(str(path), path)
    assert archive.folder.stat().st_mode & 0o777 == 0o700
    assert archive.path.stat().st_mode & 0o777 == 0o600
    with closing(sqlite3.connect(archive.path)) as db, db:
        db.execute("UPDATE blobs SET data = ?", (b"\x28\xb5\x2f\xfd\x20\x05\x29\x00\x00hello",))  # a valid frame, wrong bytes
    assert archive.verify()  # found, one line per damaged version
    with pytest.raises(ConvoError, match="damaged"):
        archive.write_to(version, tmp_path / "out")


def test_a_full_archive_refuses_new_versions_and_deletes_nothing(tmp_path: Path):
    archive = Archive(tmp_path / "archive")
    path = tmp_path / "s.jsonl"
    path.write_text("x\n")
    archive.put_file(str(path), path)
    archive.max_bytes = archive.disk_bytes()  # reached
    path.write_text("y\n" * 10)
    with pytest.raises(ArchiveFull, match="full"):
        archive.put_file(str(path), path)
    assert archive.latest(str(path)).size == 2  # the old version is still there


def test_a_database_is_kept_as_its_rows_and_rebuilt_with_rowids_and_values(tmp_path: Path):
    source = tmp_path / "state.vscdb"
    with closing(sqlite3.connect(source)) as db, db:
        db.execute('CREATE TABLE "odd ""name""" (key TEXT, value BLOB)')
        db.execute("CREATE TABLE other (x)")
        db.executemany('INSERT INTO "odd ""name""" (rowid, key, value) VALUES (?, ?, ?)', [(7, "a", b"\x00\xff"), (3, "b", None)])
        db.execute('INSERT INTO "odd ""name""" (rowid, key, value) VALUES (9, CAST(X\'C328\' AS TEXT), 1.5)')  # not UTF-8
        db.execute("INSERT INTO other VALUES ('left out')")
    rows = tmp_path / "rows.jsonl"
    dump(source, {'odd "name"': None, "missing": None}, rows, tmp_path)
    target = tmp_path / "restored.db"
    with open(rows) as lines:
        restore(iter(lines), target)
    with closing(sqlite3.connect(target)) as db:
        db.text_factory = bytes
        got = db.execute('SELECT rowid, key, value, typeof(key) FROM "odd ""name""" ORDER BY rowid').fetchall()
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert got == [(3, b"b", None, b"text"), (7, b"a", b"\x00\xff", b"text"), (9, b"\xc3(", 1.5, b"text")]
    assert tables == {b'odd "name"'}


def test_a_dump_is_data_its_names_never_run_as_sql(tmp_path: Path):
    hostile = [json.dumps({"convo-tui-sqlite-dump": 1, "tables": {"x); ATTACH DATABASE 'evil' AS e; --": ["a"]}}) + "\n"]
    restore(iter(hostile), tmp_path / "ok.db")
    assert not (tmp_path / "evil").exists()
    with pytest.raises(ConvoError, match="cannot rebuild"):
        restore(
            iter(['{"convo-tui-sqlite-dump": 1, "tables": {"t": ["a"]}}\n', '{"t": "t", "r": [1, {"$x": 1}]}\n']),
            tmp_path / "b.db",
        )


def test_merging_another_archive_twice_duplicates_nothing(tmp_path: Path, archive: Archive):
    other = Archive(tmp_path / "other")
    shared, mine, theirs = (tmp_path / n for n in ("shared.jsonl", "mine.jsonl", "theirs.jsonl"))
    for path, seed in ((shared, 1), (mine, 2), (theirs, 3)):
        path.write_text("".join(transcript_lines(400, seed)))
    archive.put_file(str(shared), shared)
    archive.put_file(str(mine), mine)
    other.put_file(str(shared), shared)
    other.put_file(str(theirs), theirs)
    snapshot = tmp_path / "snapshot.sqlite3"
    other.snapshot(snapshot)
    first = archive.merge_from(snapshot)
    assert (first.files, first.versions, first.skipped) == (1, 1, 0)
    again = archive.merge_from(snapshot)
    assert (again.files, again.versions, again.chunks) == (0, 0, 0)
    assert sorted(e.key for e in archive.entries()) == sorted(map(str, (shared, mine, theirs)))
    assert archive.latest(str(theirs)).hash == file_hash(theirs)
    assert archive.verify() == []


def test_merging_leaves_out_unsafe_paths_and_damaged_chunks(tmp_path: Path, archive: Archive):
    other = Archive(tmp_path / "other")
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text("".join(transcript_lines(100, 1)))
    bad.write_text("".join(transcript_lines(100, 2)))
    other.put_file(str(good), good)
    other.put_file(str(bad), bad)
    other.put_file("/x/../../etc/passwd", good)
    with closing(sqlite3.connect(other.path)) as db, db:
        chain = db.execute("SELECT chain FROM versions WHERE key = ?", (str(bad),)).fetchone()[0]
        blob = db.execute("SELECT blob FROM chains WHERE chain = ?", (chain,)).fetchone()[0]
        db.execute("UPDATE blobs SET data = ? WHERE id = ?", (b"not zstd", blob))
    snapshot = tmp_path / "snapshot.sqlite3"
    other.snapshot(snapshot)
    counts = archive.merge_from(snapshot)
    assert counts.skipped == 2 and [e.key for e in archive.entries()] == [str(good)]
    assert archive.verify() == []


def test_paths_from_an_archive_are_put_back_only_under_the_staging_folder(tmp_path: Path):
    assert staged_path(tmp_path, "/home/a/.claude/x.jsonl") == tmp_path / "home/a/.claude/x.jsonl"
    for key in ("/home/../../etc/passwd", "relative/x", "/a/./b", "/a\0b"):
        with pytest.raises(ConvoError):
            staged_path(tmp_path, key)


def test_exclusions_and_machine_folders():
    assert excluded("/home/a/work/secret/s.jsonl", ["/home/a/work/secret"])
    assert excluded("/home/a/x/private-1.jsonl", ["*/private-*"])
    assert not excluded("/home/a/work/secretive/s.jsonl", ["/home/a/work/secret"])
    machines = Machines(Path("/data/remote"), {"devbox": {"/home/bob/code": "/Users/bob/code", "/home/bob": "/Users/bob"}})
    assert machines.machine_of("/data/remote/devbox/home/bob/.claude/projects/p/s.jsonl") == "devbox"
    assert machines.machine_of("/home/me/.claude/projects/p/s.jsonl") == ""
    assert machines.map_folder("devbox", "/home/bob/code/shop") == "/Users/bob/code/shop"
    assert machines.map_folder("devbox", "/home/bobby") == "/home/bobby"
    assert machines.map_folder("devbox", "/home/bob/notes") == "/Users/bob/notes"


def test_a_full_archive_costs_one_note_per_run_and_excluded_files_are_not_kept(tmp_path: Path):
    from convo_tui.core.archive.files import ArchivedFiles
    from convo_tui.core.sources import detect

    folder = tmp_path / "projects"
    folder.mkdir()
    files = []
    for number in range(3):
        path = folder / f"s{number}.txt"
        path.write_text(f"user:\nquestion {number}?\n\nassistant:\nanswer {number}.\n")
        files.append(path)
    secret = tmp_path / "secret" / "s.txt"
    secret.parent.mkdir()
    secret.write_text("user:\nmy password?\n\nassistant:\nno.\n")
    archive = Archive(tmp_path / "archive")
    access = ArchivedFiles(archive, exclude=[str(secret.parent)])
    assert access.keep(secret, secret, detect(secret)) == file_hash(secret)
    assert access.keep(files[0], files[0], detect(files[0])) == file_hash(files[0])
    archive.max_bytes = archive.disk_bytes()  # full from now on
    for path in files[1:]:
        assert access.keep(path, path, detect(path)) == file_hash(path)  # still indexed
    assert [e.key for e in archive.entries()] == [str(files[0])]
    assert (
        access.refused == 2
        and len(access.notes) == 1
        and "is full" in access.notes[0]
        and "nothing was deleted" in access.notes[0]
    )


def test_a_held_archive_writes_on_one_connection_in_its_thread_and_rolls_back_a_failed_version(
    tmp_path: Path, archive: Archive, monkeypatch
):
    """An index run's writes share one connection (Archive.held); another thread's
    writes meanwhile take their own, and a version that fails is still rolled back."""
    import sqlite3
    import threading

    opened: list[int] = []
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **kw: (opened.append(threading.get_ident()), connect(*a, **kw))[1])
    paths = []
    for n in range(5):
        path = tmp_path / f"s{n}.jsonl"
        path.write_text("".join(transcript_lines(50, seed=n)))
        paths.append(path)
    other = tmp_path / "other.jsonl"
    other.write_text("".join(transcript_lines(50, seed=99)))
    with archive.held():
        for path in paths[:4]:
            archive.put_file(str(path), path)
        worker = threading.Thread(target=archive.put_file, args=(str(other), other))
        worker.start()
        worker.join()
        monkeypatch.setattr(archive, "_store", lambda *a: (_ for _ in ()).throw(OSError("disk gone")))
        with pytest.raises(OSError):
            archive.put_file(str(paths[4]), paths[4])
    mine = threading.get_ident()
    assert opened.count(mine) == 1 and len(opened) == 2, opened  # one for the run, one for the other thread
    assert archive.latest(str(paths[4])) is None  # rolled back
    assert all(archive.latest(str(p)) is not None for p in (*paths[:4], other))
    monkeypatch.undo()
    assert archive.verify() == []


def test_heads_and_entries_of_read_what_entries_reads_a_few_keys_at_a_time(tmp_path: Path, archive: Archive, monkeypatch):
    """An index run looks for gone sources through `heads` and reads the newest
    version of those alone (`entries_of`), a few hundred paths a query."""
    from convo_tui.core.archive import archive_reads

    monkeypatch.setattr(archive_reads, "_KEYS_A_QUERY", 2)
    keys = []
    for name in (b"a.txt", b"\xe9t\xe9.txt", b"b.txt", b"c.txt", b"d.txt"):
        path = os.path.join(os.fsencode(tmp_path), name)
        with open(path, "wb") as handle:
            handle.write(b"user:\nhi " + name + b"\n")
        keys.append(os.fsdecode(path))
        archive.put_file(keys[-1], Path(keys[-1]))
    archive.set_pruned([keys[2]])
    every = {entry.key: entry for entry in archive.entries()}
    assert sorted(archive.heads()) == sorted((key, key == keys[2], "") for key in keys)
    wanted = [keys[4], keys[1], keys[0], str(tmp_path / "never-archived.txt"), keys[2]]
    assert sorted(archive.entries_of(wanted), key=lambda e: e.key) == sorted(
        (every[key] for key in wanted if key in every), key=lambda e: e.key
    )
    assert archive.entries_of([]) == []
