"""Hostile and odd files on disk (issue 24, items 6-8 and the hostile corpus):
NUL bytes, pipes and links to them, loops of links, deep JSON, huge numbers.
Each is read, told or refused in one line; none raises anything else."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.index.discover import iter_source_files
from convo_tui.core.sources import looks_binary, parse_path

from tests.helpers.hostile_corpus import write_hostile_corpus
from tests.paths import FIXTURES

CLAUDE = FIXTURES / "claude_code" / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="named pipes and symlinks as POSIX has them")


def test_a_nul_byte_drops_its_line_not_the_file(tmp_path):
    lines = CLAUDE.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
    # One line of the head carries NULs, as a crashed writer leaves them.
    lines.insert(3, '{"type": "user", "message": {"content": "lost\x00\x00\x00"}}')
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    session = parse_path(broken)[0]
    whole = parse_path(CLAUDE)[0]
    assert [m.text for m in session.messages] == [m.text for m in whole.messages]
    assert any("1 line holding NUL bytes dropped" in w and ":4:" in w for w in session.warnings)


def test_a_file_ending_in_a_run_of_nuls_keeps_its_sessions(tmp_path):
    broken = tmp_path / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
    broken.write_bytes(CLAUDE.read_bytes() + b"\x00" * 4096)  # a crash before the block was written
    assert len(parse_path(broken)[0].messages) == len(parse_path(CLAUDE)[0].messages)


def test_a_binary_file_is_still_refused_in_one_line(tmp_path):
    png = tmp_path / "picture.json"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 64)
    with pytest.raises(ParseError, match="binary file"):
        parse_path(png)
    assert looks_binary(png.read_bytes()) and not looks_binary(CLAUDE.read_bytes() + b"\x00" * 10)


@posix_only
def test_pipes_and_links_to_them_are_told_never_opened(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    os.mkfifo(root / "pipe.jsonl")  # opening it to read would block forever
    (root / "link-to-pipe.jsonl").symlink_to(root / "pipe.jsonl")
    (root / "dangling.jsonl").symlink_to(root / "nowhere.jsonl")
    (root / "loop-a").symlink_to(root / "loop-b")
    (root / "loop-b").symlink_to(root / "loop-a")
    told: dict[str, str] = {}
    found = list(iter_source_files([root, root / "pipe.jsonl", root / "loop-a"], lambda p, r: told.setdefault(p.name, r)))
    assert found == []
    assert told["pipe.jsonl"] == "not a regular file (a named pipe): not read"
    assert told["link-to-pipe.jsonl"] == "not a regular file (a named pipe, through a link): not read"
    assert told["dangling.jsonl"] == "dangling link (its target does not exist)"
    assert "loop" in told["loop-a"] or "symbolic links" in told["loop-a"]
    with pytest.raises(ParseError, match="named pipe"):
        parse_path(root / "link-to-pipe.jsonl")


@posix_only
def test_every_file_of_the_hostile_corpus_parses_or_is_refused_in_one_line(tmp_path):
    corpus = write_hostile_corpus(tmp_path / "corpus")
    told: list[tuple[Path, str]] = []
    files = list(iter_source_files([corpus], lambda p, r: told.append((p, r))))
    assert files and told
    parsed = refused = 0
    for path in files:
        try:
            sessions = parse_path(path)
        except ParseError as exc:
            refused += 1
            assert "\n" not in str(exc) and str(path) in str(exc)
            continue
        parsed += 1
        for session in sessions:
            json.dumps([m.text for m in session.messages])  # readable data, whatever it holds
    assert parsed and refused
    assert not any(corpus.rglob("pwned*")) and not (Path.cwd() / "pwned").exists()


def test_a_reason_quoting_the_file_stays_on_one_line():
    """SQLite names a damaged store's table in its message, line breaks and all (the
    fuzzer's mutated Cursor CLI store: 'malformed database schema (\\nuser:\\n) - orphan
    index'); a terminal escape in a file name or table must not reach the terminal."""
    error = ParseError("store.db", "not a readable chat store (malformed database schema (\nuser:\n) - orphan index)\x1b[2J")
    assert str(error) == "store.db: not a readable chat store (malformed database schema ( user: ) - orphan index)\\x1b[2J"
    assert "\n" not in error.reason and "\x1b" not in str(error)
