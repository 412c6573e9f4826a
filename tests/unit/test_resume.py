"""Resuming a session in its own tool, or saying why it cannot run here (issue 23)."""

from __future__ import annotations

import os
from pathlib import Path

from convo_tui.core.model import Session
from convo_tui.core.resume import plan as plan_resume


def _session(tmp_path: Path, **changes) -> Session:
    values = {
        "id": "5a9c1e44-8d2b-4f60-a7e3-6b5c4d3e2f10",
        "source": "claude-code",
        "title": "t",
        "project": "shop",
        "path": str(tmp_path / "s.jsonl"),
        "cwd": str(tmp_path),
        "resume": ["claude", "--resume", "5a9c1e44-8d2b-4f60-a7e3-6b5c4d3e2f10"],
    }
    return Session(**{**values, **changes})


def _on_path(monkeypatch, tmp_path: Path, program: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / program
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")


def test_a_session_whose_tool_and_folder_are_here_runs(tmp_path, monkeypatch):
    _on_path(monkeypatch, tmp_path, "claude")
    plan = plan_resume(_session(tmp_path))
    assert plan.runnable and plan.problem is None and plan.cwd == str(tmp_path)


def test_the_program_missing_from_path_is_the_reason_given(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    plan = plan_resume(_session(tmp_path))
    assert not plan.runnable and plan.problem == "claude is not on PATH"
    assert plan.shell_line() == f"cd {tmp_path} && claude --resume 5a9c1e44-8d2b-4f60-a7e3-6b5c4d3e2f10"


def test_a_folder_that_is_gone_is_the_reason_given(tmp_path, monkeypatch):
    _on_path(monkeypatch, tmp_path, "claude")
    gone = tmp_path / "moved away"
    plan = plan_resume(_session(tmp_path, cwd=str(gone)))
    assert plan.problem == f"The session's folder {gone} is gone"
    assert plan.shell_line() == f"cd '{gone}' && claude --resume 5a9c1e44-8d2b-4f60-a7e3-6b5c4d3e2f10"


def test_a_source_without_a_resume_command_says_so(tmp_path):
    plan = plan_resume(_session(tmp_path, source="cursor", resume=None))
    assert plan.problem == "No resume command for cursor" and plan.shell_line() is None


def test_an_id_from_a_transcript_that_reads_as_an_option_is_not_run(tmp_path, monkeypatch):
    _on_path(monkeypatch, tmp_path, "claude")
    sly = "--dangerously-skip-permissions"
    plan = plan_resume(_session(tmp_path, id=sly, resume=["claude", "--resume", sly]))
    assert not plan.runnable and "is not a Claude Code session id" in (plan.problem or "")
