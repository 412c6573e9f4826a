"""Exit codes as the README gives them: 0 done, 1 one-line error, 3 `index`
finished with files skipped (each named), 130 interrupted."""

from __future__ import annotations

import shutil

import pytest
from convo_tui.cli.main import main

from tests.paths import FIXTURES


@pytest.fixture
def indexed(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "chatgpt" / "conversations.json", src)
    assert main(["index", str(src)]) == 0
    capsys.readouterr()
    return src


def test_index_with_a_skipped_file_exits_3_and_says_how_many(indexed, capsys):
    (indexed / "broken.jsonl").write_text('{"type": "user", "message": {"role": "user", "content": "hi"', encoding="utf-8")
    (indexed / "garbage.json").write_bytes(b"\x00\x01\x02binary")
    code = main(["index", str(indexed)])
    out, err = capsys.readouterr()
    skipped = [line for line in out.splitlines() if line.startswith("  skipped ")]
    assert code == 3, (out, err)
    # Progress lines first (stderr is not a terminal: plain lines), the count last.
    assert err.endswith(f"\nconvo-tui: {len(skipped)} file(s) skipped (listed above); everything else is indexed\n")
    assert len(skipped) >= 1
    # the good files are still there
    assert main(["sessions"]) == 0
    assert "haiku" in capsys.readouterr().out.lower()


def test_a_clean_index_run_exits_0(indexed, capsys):
    assert main(["index", str(indexed)]) == 0
    told = capsys.readouterr().err.splitlines()
    assert told and all(line.startswith("convo-tui: ") for line in told), told  # progress only, no warning
    assert told[-1].startswith("convo-tui: semantic: ") and told[-1].endswith(" (100%)")


@pytest.mark.parametrize("limit", ["0", "-5"])
def test_limit_below_one_is_a_one_line_error(indexed, capsys, limit):
    assert main(["search", "--limit", limit, "haiku"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"convo-tui: --limit must be a whole number from 1 to 100,000 (got {limit})\n"


def test_an_unknown_filter_is_a_one_line_error(indexed, capsys):
    assert main(["search", "haiku foo:bar"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("convo-tui: unknown filter foo:") and err.count("\n") == 1
    assert main(["search", 'haiku "foo:bar"']) == 0  # quoted: words
