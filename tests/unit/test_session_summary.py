"""A session's summary says whether its transcript is gone (core/library/reading.py
`summary_of`), as `Path.exists` would, for every session a listing shows."""

from __future__ import annotations

import os
import sys

import pytest
from convo_tui.core.library.reading import summary_of


def _orphaned(path: str) -> bool:
    return summary_of({"session_id": "s", "path": path}).orphaned


def test_a_transcript_there_is_not_gone_and_one_missing_is(tmp_path):
    there = tmp_path / "session.jsonl"
    there.write_text("{}\n", encoding="utf-8")
    assert not _orphaned(str(there))
    assert _orphaned(str(tmp_path / "missing.jsonl"))
    assert _orphaned(str(there / "below-a-file.jsonl"))  # ENOTDIR
    assert _orphaned("bad\0name.jsonl")  # no file can have it
    assert not summary_of({"session_id": "s", "path": ""}).orphaned  # no path: nothing to be gone


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_a_folder_it_may_not_read_is_an_error_not_a_gone_file(tmp_path):
    """As `Path.exists`: a permission problem is not news that the file is gone."""
    closed = tmp_path / "closed"
    closed.mkdir()
    (closed / "session.jsonl").write_text("{}\n", encoding="utf-8")
    closed.chmod(0)
    try:
        with pytest.raises(PermissionError):
            _orphaned(str(closed / "session.jsonl"))
    finally:
        closed.chmod(0o700)
