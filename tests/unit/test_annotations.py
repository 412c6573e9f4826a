"""User edits of sessions: stored apart from the index, private, re-index proof."""

from __future__ import annotations

import os
import stat

import pytest
from convo_tui.core.annotations import FILE_NAME, Annotation, Annotations, normalize_tags
from convo_tui.core.errors import ConvoError


@pytest.fixture
def notes(tmp_path) -> Annotations:
    return Annotations(tmp_path / "index")


def test_unknown_session_has_defaults_and_reading_creates_no_file(notes):
    assert notes.get("s1") == Annotation("s1")
    assert notes.all() == {}
    assert not notes.path.exists()


def test_file_is_private_to_the_user(notes):
    notes.set_title("s1", "Renamed")
    assert notes.path.name == FILE_NAME
    assert stat.S_IMODE(os.stat(notes.path).st_mode) == 0o600


def test_edits_accumulate_per_session(notes):
    notes.set_title("s1", "  Qdrant setup  ")
    notes.set_description("s1", "How we created the collection\n")
    notes.set_starred("s1")
    assert notes.set_tags("s1", ["qdrant", " ops ", "", "Qdrant"]) == ["qdrant", "ops"]
    notes.set_starred("s2", True)
    notes.set_starred("s2", False)
    got = notes.get("s1")
    assert (got.title, got.description, got.starred, got.tags) == (
        "Qdrant setup",
        "How we created the collection",
        True,
        ["qdrant", "ops"],
    )
    assert notes.get("s2").starred is False
    assert sorted(notes.all()) == ["s1", "s2"]
    # A fresh handle on the same folder reads the same edits.
    assert Annotations(notes.path.parent).get("s1") == got


def test_blank_title_gives_the_source_title_back(notes):
    notes.set_title("s1", "Mine")
    notes.set_title("s1", "   ")
    assert notes.get("s1").title is None


def test_settings_merge_with_defaults_and_reject_unknown_keys(notes):
    assert notes.get("s1").effective_settings() == {"hide_thinking": False, "hide_tools": False}
    assert notes.set_settings("s1", hide_tools=True) == {"hide_thinking": False, "hide_tools": True}
    assert notes.set_settings("s1", hide_thinking=True) == {"hide_thinking": True, "hide_tools": True}
    assert notes.get("s1").settings == {"hide_tools": True, "hide_thinking": True}
    with pytest.raises(ConvoError, match="unknown session setting 'temperature'"):
        notes.set_settings("s1", temperature=True)
    with pytest.raises(ConvoError, match="must be true or false"):
        notes.set_settings("s1", hide_tools="yes")


def test_deletion_holds_until_the_source_changes(notes, tmp_path):
    source = tmp_path / "chat.jsonl"
    source.write_text('{"a": 1}\n')
    notes.set_title("s1", "kept title")
    notes.mark_deleted("s1", str(source))
    assert notes.is_suppressed("s1", str(source)) is True
    assert notes.get("s1").deleted.path == str(source)
    assert notes.get("s1").title == "kept title"
    source.write_text('{"a": 1}\n{"b": 2}\n')
    assert notes.is_suppressed("s1", str(source)) is False


def test_deletion_of_a_session_whose_file_is_gone(notes, tmp_path):
    missing = str(tmp_path / "gone.txt")
    notes.mark_deleted("s1", missing)
    assert notes.is_suppressed("s1") is True
    (tmp_path / "gone.txt").write_text("back\n")
    assert notes.is_suppressed("s1") is False


def test_restore_forgets_the_deletion(notes, tmp_path):
    source = tmp_path / "chat.txt"
    source.write_text("user:\nhi\n")
    assert notes.restore("s1") is False
    notes.mark_deleted("s1", str(source))
    assert notes.restore("s1") is True
    assert notes.is_suppressed("s1", str(source)) is False
    assert notes.get("s1").deleted is None


def test_normalize_tags_keeps_first_spelling():
    assert normalize_tags(["RAG", "rag", " 检索 ", "检索"]) == ["RAG", "检索"]
