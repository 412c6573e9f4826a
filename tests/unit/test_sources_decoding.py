"""Decoding keeps what can be kept: a BOM is skipped, UTF-16 is read as UTF-16, and
paths that are not regular files (a pipe, a file in an unreadable folder) get one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

CLAUDE = FIXTURES / "claude_code" / "4a4a4a4a-2222-4222-8222-00000000cccc.jsonl"


def show(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["show", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_utf8_bom_at_the_start_of_a_claude_code_log(tmp_path):
    path = tmp_path / CLAUDE.name
    path.write_bytes(b"\xef\xbb\xbf" + CLAUDE.read_bytes())
    (session,) = parse_path(path)
    assert session.messages[0].text == "Round the invoice totals half-even, then commit."
    assert session.warnings == []


def test_utf8_bom_at_the_start_of_a_chatgpt_export(tmp_path):
    source = FIXTURES / "chatgpt" / "conversations.json"
    path = tmp_path / "conversations.json"
    path.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    assert [s.id for s in parse_path(path)] == [s.id for s in parse_path(source)]


def test_utf16_with_bom_is_read_as_utf16(tmp_path, capsys):
    path = tmp_path / "chat.jsonl"
    lines = ['{"role": "user", "content": "Grüße aus Köln"}', '{"role": "assistant", "content": "Hallo!"}']
    path.write_bytes("\n".join(lines).encode("utf-16"))  # BOM + little-endian, as Windows tools write it
    code, out, err = show(capsys, str(path), "--json")
    assert (code, err) == (0, "")
    assert [m["text"] for m in json.loads(out)["messages"]] == ["Grüße aus Köln", "Hallo!"]


def test_utf16_claude_code_log(tmp_path):
    path = tmp_path / CLAUDE.name
    path.write_bytes(b"\xfe\xff" + CLAUDE.read_text(encoding="utf-8").encode("utf-16-be"))
    assert detect(path) is not None and detect(path).name == "claude-code"
    (session,) = parse_path(path)
    assert session.id == "4a4a4a4a-2222-4222-8222-00000000cccc"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_show_on_a_named_pipe_refuses_at_once(tmp_path, capsys):
    pipe = tmp_path / "chat.jsonl"
    os.mkfifo(pipe)
    code, out, err = show(capsys, str(pipe))  # would block forever if the pipe were opened
    assert (code, out) == (1, "")
    assert err == f"convo-tui: {pipe}: not a regular file (a named pipe)\n"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_show_on_a_file_in_an_unreadable_folder_is_one_line(tmp_path, capsys):
    folder = tmp_path / "locked"
    folder.mkdir()
    path = folder / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n', encoding="utf-8")
    folder.chmod(0)
    try:
        code, out, err = show(capsys, str(path))
    finally:
        folder.chmod(0o700)
    assert (code, out) == (1, "")
    assert err == f"convo-tui: {path}: cannot read: permission denied (on the file or a folder above it)\n"
    assert "Traceback" not in err


def test_a_folder_that_refuses_access_is_one_line_even_as_root(tmp_path, capsys, monkeypatch):
    """Where chmod cannot lock root out, the kernel's answer (EACCES on stat) is simulated."""
    folder = tmp_path / "locked"
    folder.mkdir()
    path = folder / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n', encoding="utf-8")
    real_stat = Path.stat

    def stat(self: Path, *args, **kwargs):
        if folder in self.parents:
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    code, out, err = show(capsys, str(path))
    assert (code, out) == (1, "")
    assert err == f"convo-tui: {path}: cannot read: permission denied (on the file or a folder above it)\n"
