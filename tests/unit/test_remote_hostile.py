"""A remote host's replies are data: a reply that is not SFTP costs one line, never a crash
(a stand-in `ssh` on PATH prints bytes instead of running a connection)."""

from __future__ import annotations

import os
from pathlib import Path

from convo_tui.core.remote.pull import Puller
from convo_tui.core.settings import RemoteSource

# VERSION 3, then a NAME reply to REALPATH that claims 255 names and holds none.
GARBAGE = r"\000\000\000\005\002\000\000\000\003" + r"\000\000\000\011\150\000\000\000\001\000\000\000\377"


def fake_ssh(folder: Path, script: str, monkeypatch) -> None:
    ssh = folder / "ssh"
    ssh.write_text(f"#!/bin/sh\n{script}\n")
    ssh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def test_a_reply_that_is_not_sftp_is_one_line(tmp_path: Path, monkeypatch):
    fake_ssh(tmp_path, f"printf '{GARBAGE}'\nexec cat > /dev/null", monkeypatch)
    report = Puller(RemoteSource(name="evil", host="evil"), tmp_path / "mirror", lambda *_: True).run()
    assert not report.ok and "\n" not in report.line()
    assert report.line().startswith("evil: not refreshed: malformed reply from evil")


def test_a_host_that_says_nothing_and_leaves_is_one_line(tmp_path: Path, monkeypatch):
    fake_ssh(tmp_path, "echo 'ssh: Could not resolve hostname nowhere: Name or service not known' >&2\nexit 255", monkeypatch)
    report = Puller(RemoteSource(name="gone", host="nowhere"), tmp_path / "mirror", lambda *_: True).run()
    assert (
        report.line()
        == "gone: not refreshed: cannot reach nowhere: ssh: Could not resolve hostname nowhere: Name or service not known"
    )
