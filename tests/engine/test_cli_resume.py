"""`convo-tui session resume ID`: the session's own tool in its folder, or why not and the command."""

from __future__ import annotations

from pathlib import Path

from convo_tui.cli.main import main

from tests.helpers.index_copy import copy_index

SESSION = "9b2d4f61-7c8e-4a1b-b2c3-d4e5f6a7b8c9"  # tui/demo/corpus: Claude Code, cwd /home/dana/code/shopfront


def test_resume_says_why_it_cannot_run_here_and_prints_the_command(demo_built: Path, tmp_path: Path, capsys):
    index = tmp_path / "index"
    copy_index(demo_built / "index", index)
    assert main(["session", "resume", SESSION[:8], "--index-dir", str(index)]) == 1
    out, err = capsys.readouterr()
    assert out == f"cd /home/dana/code/shopfront && claude --resume {SESSION}\n"
    assert err == (
        f"convo-tui: cannot resume {SESSION} here: the session's folder /home/dana/code/shopfront is gone; run it yourself:\n"
    )
    assert main(["session", "resume", SESSION, "--print", "--index-dir", str(index)]) == 0
    assert capsys.readouterr().out == out
