"""Bad input: `show` prints one line naming the file (and line) and exits 1, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from convo_tui.cli.main import main

FIFTY_MB = 50 * 1024 * 1024


def show(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["show", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(capsys, path: Path, expected: str) -> None:
    code, out, err = show(capsys, str(path))
    assert (code, out) == (1, "")
    assert err == f"convo-tui: {expected}\n"
    assert "Traceback" not in err


def test_empty_file(tmp_path, capsys):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    assert_one_line_error(capsys, path, f"{path}: empty file")


def test_whitespace_only_file_is_empty(tmp_path, capsys):
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n  \n\t\n")
    assert_one_line_error(capsys, path, f"{path}: empty file")


def test_binary_file(tmp_path, capsys):
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    assert_one_line_error(capsys, path, f"{path}: binary file (contains NUL bytes)")


def test_invalid_utf8_is_replaced_and_counted(tmp_path, capsys):
    """One bad byte never costs the session: replaced, and counted in one warning line."""
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"user:\nhello \xff caf\xe9\n")
    code, out, err = show(capsys, str(path), "--json")
    assert code == 0
    assert json.loads(out)["messages"][0]["text"] == "hello \ufffd caf\ufffd"
    assert err == f"convo-tui: warning: {path}:2: 2 invalid bytes replaced (not valid UTF-8)\n"


def test_invalid_utf8_after_the_sniffed_head(tmp_path, capsys):
    path = tmp_path / "late.txt"
    path.write_bytes(b"user:\n" + b"fine line\n" * 10000 + b"bad \xff\n")
    code, _out, err = show(capsys, str(path), "--json")
    assert code == 0
    assert err == f"convo-tui: warning: {path}:10002: 1 invalid byte replaced (not valid UTF-8)\n"


def test_truncated_json_line(tmp_path, capsys):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"role": "user", "content": "how do I', encoding="utf-8")
    assert_one_line_error(capsys, path, f"{path}:1: truncated JSON (ends in the middle of a value)")


def test_truncated_line_among_good_ones_is_a_warning(tmp_path, capsys):
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"role": "user", "content": "q"}\n{"role": "assistant", "content": "a"}\n{"role": "user", "cont\n', encoding="utf-8"
    )
    code, out, err = show(capsys, str(path), "--json")
    assert code == 0
    assert [m["text"] for m in json.loads(out)["messages"]] == ["q", "a"]
    assert err == f"convo-tui: warning: {path}:3: truncated JSON (ends in the middle of a value)\n"


def test_unknown_format(tmp_path, capsys):
    path = tmp_path / "notes.md"
    path.write_text("# Shopping\n\n- milk\n- bread\n", encoding="utf-8")
    assert_one_line_error(capsys, path, f"{path}: unknown format (not a transcript convo-tui can read)")


def test_json_of_another_kind_is_unknown(tmp_path, capsys):
    path = tmp_path / "package.json"
    path.write_text('{"name": "demo", "version": "1.0.0"}', encoding="utf-8")
    assert_one_line_error(capsys, path, f"{path}: unknown format (not a transcript convo-tui can read)")


def test_transcript_without_role_markers(tmp_path, capsys):
    folder = tmp_path / "agent-transcripts"
    folder.mkdir()
    path = folder / "abc.txt"
    path.write_text("I asked about Qdrant and it answered.\n[Tool call] read_file\n", encoding="utf-8")
    assert_one_line_error(capsys, path, f"{path}: no `user:` or `assistant:` line found (not a Cursor transcript)")
    elsewhere = tmp_path / "abc.txt"
    elsewhere.write_text("I asked about Qdrant and it answered.\n", encoding="utf-8")
    assert_one_line_error(capsys, elsewhere, f"{elsewhere}: unknown format (not a transcript convo-tui can read)")


def test_folder_that_is_not_a_thread_folder(tmp_path, capsys):
    (tmp_path / "stuff").mkdir()
    assert_one_line_error(
        capsys, tmp_path / "stuff", f"{tmp_path / 'stuff'}: unknown format (not a transcript convo-tui can read)"
    )


def test_fifty_megabyte_garbage_is_unknown(tmp_path, capsys):
    path = tmp_path / "garbage.dat"
    chunk = b"lorem ipsum dolor sit amet, consectetur adipiscing elit 0123456789\n"
    with open(path, "wb") as handle:
        handle.write(chunk * (FIFTY_MB // len(chunk) + 1))
    assert path.stat().st_size >= FIFTY_MB
    assert_one_line_error(capsys, path, f"{path}: unknown format (not a transcript convo-tui can read)")


def test_fifty_megabyte_transcript_parses(tmp_path, capsys):
    """A long agent session: mostly whole files written through tool calls."""
    path = tmp_path / "huge.txt"
    body = "\n".join(f"line {i}: value = {i * 7}" for i in range(400))
    block = (
        "user:\n<user_query>\nwrite module {n}\n</user_query>\n\nassistant:\nWriting module {n}.\n"
        "[Tool call] Write\n  path: src/m{n}.py\n  contents: " + body + "\n\n[Tool result] Write\n\n"
        "assistant:\nModule {n} is written.\n\n"
    )
    count = 0
    with open(path, "w", encoding="utf-8") as handle:
        while handle.tell() < FIFTY_MB:
            handle.write(block.format(n=count))
            count += 1
    code, out, err = show(capsys, str(path))
    assert (code, err) == (0, "")
    assert out.count("\n── Turn ") == count
    assert f"  {count} turns · {3 * count} messages" in out.splitlines()
    assert f"    🔧 Write(path=src/m{count - 1}.py, contents=line 0: value = 0 …(+399 lines))" in out.splitlines()


def _write(folder: Path, data: bytes) -> Path:
    path = folder / "g.txt"
    path.write_bytes(data)
    return path


def test_read_text_names_the_real_reason(tmp_path, monkeypatch):
    """Parsers read through read_text: too large, blank and binary each say so."""
    import convo_tui.core.sources as sources
    from convo_tui.core.errors import ParseError

    def reason(data: bytes) -> str:
        path = tmp_path / "f.txt"
        path.write_bytes(data)
        with pytest.raises(ParseError) as info:
            sources.read_text(path)
        return info.value.reason

    assert reason(b"  \n\t\n") == "empty file"
    assert reason(b"user:\x00") == "binary file (contains NUL bytes)"
    assert sources.read_text(_write(tmp_path, b"user:\nok\n\xff")) == "user:\nok\n\ufffd"
    import convo_tui.core.sources.text as text

    monkeypatch.setattr(text, "MAX_FILE_BYTES", 4)
    assert reason(b"user:\nhello\n").startswith("file too large")
