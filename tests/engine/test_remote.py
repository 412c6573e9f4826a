"""Another machine's transcripts over SSH, against a real SSH server on 127.0.0.1.

The server is the system's OpenSSH sshd when it is installed and can run here,
else asyncssh's (tests/helpers/ssh_server.py); the client is always the
system's `ssh`, configured by a throwaway ssh_config (key, port, known host).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from convo_tui.cli.main import main

from tests.helpers.cli_output import problems
from tests.helpers.ssh_server import ALIAS, SshServer
from tests.paths import FIXTURES

SESSIONS = ("5b5b5b5b-3333-4333-8333-00000000dddd.jsonl", "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl")
NEEDLE = "quokkaferrymanifest"


def remote_home(root: Path) -> Path:
    """The other machine's files: a Claude Code projects folder."""
    projects = root / "remote" / "home" / "bob" / ".claude" / "projects" / "-home-dev-code-webshop"
    projects.mkdir(parents=True)
    for name in SESSIONS:
        shutil.copy(FIXTURES / "claude_code" / name, projects / name)
    return projects.parent


def local_source(root: Path) -> Path:
    local = root / "local"
    local.mkdir()
    shutil.copy(FIXTURES / "claude_code" / "4a4a4a4a-2222-4222-8222-00000000cccc.jsonl", local)
    return local


def configure(local: Path, projects: Path, server: SshServer | None, *, port: int | None = None) -> None:
    config = f'ssh_config = "{server.config}"\n' if server is not None else ""
    host = ALIAS if server is not None else "127.0.0.1"
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text(
        f'sources = ["{local}"]\ndiscover_defaults = false\n\n[[remotes]]\nname = "devbox"\nhost = "{host}"\n'
        f'paths = ["{projects}"]\npath_map = {{ "/home/dev/code" = "/Users/me/code" }}\n{config}'
        + (f"port = {port}\n" if port else ""),
        encoding="utf-8",
    )


def hits(capsys, query: str) -> list[dict]:
    capsys.readouterr()
    assert main(["search", "--json", "--mode", "keyword", query]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def append_exchange(path: Path) -> int:
    lines = [
        {
            "type": "user",
            "sessionId": "5b5b5b5b-3333-4333-8333-00000000dddd",
            "uuid": "u9",
            "parentUuid": "a8",
            "cwd": "/home/dev/code/webshop",
            "timestamp": "2026-02-03T09:00:00.000Z",
            "message": {"role": "user", "content": f"Where does the {NEEDLE} live?"},
        },
        {
            "type": "assistant",
            "sessionId": "5b5b5b5b-3333-4333-8333-00000000dddd",
            "uuid": "a9",
            "parentUuid": "u9",
            "cwd": "/home/dev/code/webshop",
            "timestamp": "2026-02-03T09:00:05.000Z",
            "message": {
                "id": "msg_m9",
                "role": "assistant",
                "content": [{"type": "text", "text": f"The {NEEDLE} is in config/shipping.py."}],
            },
        },
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    with open(path, "ab") as handle:
        handle.write(data)
    return len(data)


@pytest.fixture
def server(tmp_path: Path):
    started = SshServer.start(tmp_path / "ssh")
    yield started
    started.stop()


def test_a_remote_machine_is_indexed_labelled_filtered_and_refreshed_incrementally(tmp_path: Path, server: SshServer, capsys):
    projects = remote_home(tmp_path)
    local = local_source(tmp_path)
    configure(local, projects, server)
    assert main(["index"]) == 0
    machines = {h["session_id"]: h["machine"] for h in hits(capsys, "cart total")}
    assert machines["5b5b5b5b-3333-4333-8333-00000000dddd"] == "devbox"
    assert {h["machine"] for h in hits(capsys, "ledger")} == {""}  # this machine's session: no label
    remote_only = hits(capsys, "machine:devbox cart total")
    assert remote_only and all(h["machine"] == "devbox" for h in remote_only)
    assert hits(capsys, "machine:devbox ledger") == []
    capsys.readouterr()
    assert main(["show", "5b5b5b5b-3333-4333-8333-00000000dddd", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["session"]["cwd"] == "/Users/me/code/webshop"  # the folder mapping
    assert main(["show", "5b5b5b5b-3333-4333-8333-00000000dddd"]) == 0
    assert "  machine: devbox\n" in capsys.readouterr().out

    # The remote session grows: only the new bytes travel, and they are found.
    grown = append_exchange(projects / "-home-dev-code-webshop" / SESSIONS[0])
    assert main(["index"]) == 0
    assert [h["machine"] for h in hits(capsys, NEEDLE)] == ["devbox"]
    capsys.readouterr()
    assert main(["sources"]) == 0
    out = capsys.readouterr().out
    assert f"devbox ({ALIAS}): 2 files, 0 fetched, 1 grown, {grown:,} bytes in" in out

    # The remote tool deletes a session: it lives on from the archive.
    (projects / "-home-dev-code-webshop" / SESSIONS[1]).unlink()
    assert main(["index"]) == 0
    assert [h["machine"] for h in hits(capsys, "flaky login")] == ["devbox"]
    capsys.readouterr()
    assert main(["sources"]) == 0
    assert "1 session exists only here" in capsys.readouterr().out


def test_an_unreachable_machine_costs_one_line_and_local_work_goes_on(tmp_path: Path, capsys):
    projects = remote_home(tmp_path)
    local = local_source(tmp_path)
    configure(local, projects, None, port=1)  # nothing listens there
    capsys.readouterr()
    assert main(["index"]) == 0
    err = problems(capsys.readouterr().err)
    assert len(err) == 1 and err[0].startswith("convo-tui: devbox: not refreshed: cannot reach 127.0.0.1:"), err
    assert hits(capsys, "ledger")  # this machine's sessions are indexed


def test_a_machine_that_goes_away_mid_transfer_leaves_whole_files_and_the_next_pull_finishes(tmp_path: Path, capsys):
    projects = remote_home(tmp_path)
    text = (FIXTURES / "claude_code" / "plan-handoff.jsonl").read_text()
    for number in range(4):  # more to copy than the server will serve: sessions of their own
        copy = text.replace("00000000aaaa", f"0000000{number}aaaa").replace("00000000bbbb", f"0000000{number}bbbb")
        (projects / "-home-dev-code-webshop" / f"copy-{number}.jsonl").write_text(copy)
    local = local_source(tmp_path)
    dying = SshServer.start(tmp_path / "ssh", die_after_bytes=12_000)
    try:
        configure(local, projects, dying)
        capsys.readouterr()
        assert main(["index"]) == 0
        err = problems(capsys.readouterr().err)
        assert len(err) == 1 and err[0].startswith("convo-tui: devbox: not refreshed:"), err
    finally:
        dying.stop()
    mirror = Path(os.environ["CONVO_TUI_INDEX_DIR"]) / "remote" / "devbox"
    copied = [p for p in mirror.rglob("*") if p.is_file()]
    remote = {p.relative_to("/"): p for p in projects.rglob("*.jsonl")}
    assert 0 < len(copied) < len(remote)
    for path in copied:  # whole files only: nothing half copied, no temporary file left
        assert path.read_bytes() == remote[path.relative_to(mirror)].read_bytes()
    assert hits(capsys, "ledger")
    server = SshServer.start(tmp_path / "ssh")
    try:
        configure(local, projects, server)
        assert main(["index"]) == 0
    finally:
        server.stop()
    assert sorted(p.relative_to(mirror) for p in mirror.rglob("*") if p.is_file()) == sorted(remote)
    assert {h["machine"] for h in hits(capsys, "machine:devbox cart total")} == {"devbox"}
