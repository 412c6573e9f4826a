"""The sessions browser's rows file (core/library/session_rows.py): what is saved
is what is loaded, by the fast reader or, for a file it refuses, the slow one;
a file of another version or a damaged one is no file."""

from __future__ import annotations

import json
import zlib

from convo_tui.core.library import session_rows
from convo_tui.core.library.session_rows import FILE_NAME, Row, load, save

ROWS = {
    "s1": Row("s1", "Fix the flaky test", "alpha", "claude-code", "/h/.claude/s1.jsonl", 12, 5, 1700000000.5, 1700000100.0, 7),
    "s2": Row("s2", "缓存什么时候失效", "beta", "codex", "/h/.codex/s2.jsonl", 3, 1, 1700000000, None, 8, "laptop", "tally-z"),
    "s3": Row("s3", "", "", "cursor", "/h/s3.txt", 0, 0, None, None, 9),
}


def test_the_rows_saved_are_the_rows_loaded(tmp_path):
    assert save(tmp_path, ROWS)
    assert load(tmp_path) == ROWS
    assert isinstance(load(tmp_path)["s2"].started, float)  # an epoch saved as an integer reads as seconds


def test_a_name_that_is_not_utf8_comes_back_as_it_went(tmp_path, monkeypatch):
    """A path from a file name that is not UTF-8 holds a surrogate escape: saved as
    its own bytes, which the fast reader refuses; the rows still come back whole."""
    odd = {**ROWS, "s4": Row("s4", "t", "p", "claude-code", "/h/caf\udce9.jsonl", 1, 1, None, None, 10)}
    assert save(tmp_path, odd)
    slow = []
    real = session_rows._load_json
    monkeypatch.setattr(session_rows, "_load_json", lambda data: slow.append(1) or real(data))
    assert load(tmp_path) == odd and slow == [1]
    assert save(tmp_path, ROWS) and load(tmp_path) == ROWS and slow == [1]  # a plain file takes the fast way


def test_the_newest_generation_of_a_session_wins_and_epoch_zero_is_no_time(tmp_path):
    body = {"version": session_rows.VERSION, "rows": []}
    for generation in (5, 9, 7):
        body["rows"].append(["s1", f"g{generation}", "p", "codex", "/x", 1, 1, 0, 1.5, generation, "", None])
    (tmp_path / FILE_NAME).write_bytes(zlib.compress(json.dumps(body).encode()))
    row = load(tmp_path)["s1"]
    assert row.title == "g9"
    assert (row.started, row.updated) == (None, 1.5)  # an epoch of 0 is no time


def test_another_version_or_a_damaged_file_is_no_file(tmp_path):
    assert load(tmp_path) is None  # none yet
    save(tmp_path, ROWS)
    data = json.loads(zlib.decompress((tmp_path / FILE_NAME).read_bytes()))
    (tmp_path / FILE_NAME).write_bytes(zlib.compress(json.dumps({**data, "version": 1}).encode()))
    assert load(tmp_path) is None
    (tmp_path / FILE_NAME).write_bytes(zlib.compress(json.dumps({**data, "rows": [["s1", 2]]}).encode()))
    assert load(tmp_path) is None
    (tmp_path / FILE_NAME).write_bytes(b"not zlib")
    assert load(tmp_path) is None
