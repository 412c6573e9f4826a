"""The holder's socket is ours alone (issue 24, item 4): the shared fallback
folder must be this user's and closed to others, the holder answers only its
own user, and a client talks only to a holder of its own user.

Tests run as root here, so another user is played for real: a folder chowned
to another uid, and a process that drops to that uid (setuid) before it
listens or connects. Where the system cannot do that, the test is skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.holder import client, peer, protocol
from convo_tui.core.holder.access import open_local
from convo_tui.core.settings import Settings

STRANGER = 54321  # a uid no account here has
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="playing another user needs root (chown, setuid)")
linux_or_mac = pytest.mark.skipif(not sys.platform.startswith(("linux", "darwin")), reason="peer credentials: Linux, macOS")


@pytest.fixture
def runtime(monkeypatch) -> Iterator[Path]:
    """A short XDG_RUNTIME_DIR, so the fallback socket lands where the test looks."""
    folder = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    """An index path too long for a socket: the socket goes to the shared folder."""
    return tmp_path.joinpath(*["a-rather-long-folder-name"] * 5) / "index"


def _socket(deep: Path, runtime: Path) -> Path:
    path = protocol.socket_path(deep)
    assert path.parent == runtime / f"convo-tui-{os.getuid()}" and protocol.in_shared_folder(path)
    return path


def test_the_shared_folder_is_made_private_and_removed(deep, runtime):
    path = _socket(deep, runtime)
    with open_local(Settings(index_dir=deep)):
        info = path.parent.stat()
        assert (info.st_mode & 0o777, info.st_uid, path.stat().st_mode & 0o777) == (0o700, os.getuid(), 0o600)
        assert client.call(path, "sessions") == []
    assert not path.parent.exists()


def test_a_shared_folder_open_to_others_is_refused(deep, runtime, capsys):
    path = _socket(deep, runtime)
    path.parent.mkdir(mode=0o700)
    os.chmod(path.parent, 0o777)  # anyone could have put a listener in it
    assert main(["sessions", "--index-dir", str(deep)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is open to others (mode 0777): refusing to use it" in err
    with pytest.raises(peer.NotPrivate, match="open to others"):
        open_local(Settings(index_dir=deep), must_serve=True)
    assert not path.exists()


def test_a_shared_folder_that_is_a_link_is_refused(deep, runtime, tmp_path):
    path = _socket(deep, runtime)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    path.parent.symlink_to(elsewhere)
    with pytest.raises(peer.NotPrivate, match="not a folder"):
        client.call(path, "hello")
    with pytest.raises(peer.NotPrivate, match="not a folder"):
        open_local(Settings(index_dir=deep), must_serve=True)


@needs_root
def test_a_shared_folder_of_another_user_is_refused(deep, runtime, capsys):
    path = _socket(deep, runtime)
    path.parent.mkdir(mode=0o700)
    os.chown(path.parent, STRANGER, STRANGER)
    assert main(["sessions", "--index-dir", str(deep)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"belongs to uid {STRANGER}, not you: refusing to use it" in err
    assert main(["serve", "--no-watch", "--index-dir", str(deep)]) == 1
    assert f"belongs to uid {STRANGER}" in capsys.readouterr().err
    assert not path.exists()


_LISTENER = textwrap.dedent(
    """
    import os, socket, sys
    path, uid = sys.argv[1], int(sys.argv[2])
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o777)
    os.setgid(uid)
    os.setuid(uid)  # listen() records who listens: from here on, another user
    listener.listen(1)
    print("ready", flush=True)
    listener.settimeout(60)
    conn, _ = listener.accept()
    conn.settimeout(60)
    try:
        conn.sendall(b'{"v": 2, "ok": {"pid": 1, "protocol": 2, "model": {}}}\\n')
    except OSError:
        pass
    received = b""
    while True:
        try:
            chunk = conn.recv(4096)
        except ConnectionResetError:  # the client closed before reading the hello sent above
            break
        if not chunk:
            break
        received += chunk
    print(len(received), flush=True)
    """
)


@needs_root
@linux_or_mac
def test_a_client_never_talks_to_another_users_listener(deep, runtime):
    path = _socket(deep, runtime)
    path.parent.mkdir(mode=0o700)
    proc = subprocess.Popen([sys.executable, "-c", _LISTENER, str(path), str(STRANGER)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(peer.NotPrivate, match=f"runs as uid {STRANGER}, not you: refusing to talk to it"):
            client.call(path, "hello")
        assert proc.stdout.readline().strip() == "0"  # not a byte of the request reached it
    finally:
        proc.kill()
        proc.wait(timeout=30)


_STRANGER_CLIENT = textwrap.dedent(
    """
    import os, socket, sys
    path, uid = sys.argv[1], int(sys.argv[2])
    os.setgid(uid)
    os.setuid(uid)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    sock.connect(path)
    try:
        sock.sendall(b'{"v": 2, "op": "sessions", "args": {}}\\n')
    except OSError:
        pass
    received = b""
    while True:
        try:
            chunk = sock.recv(4096)
        except OSError:
            break
        if not chunk:
            break
        received += chunk
    print(len(received), flush=True)
    """
)


@needs_root
@linux_or_mac
def test_the_holder_answers_no_other_user(deep, runtime):
    path = _socket(deep, runtime)
    with open_local(Settings(index_dir=deep)):
        # A permission slip (folder and socket opened up) must still not let another user in.
        os.chmod(runtime, 0o755)
        os.chmod(path.parent, 0o755)
        os.chmod(path, 0o666)
        done = subprocess.run(
            [sys.executable, "-c", _STRANGER_CLIENT, str(path), str(STRANGER)], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "0"  # closed without a word
        os.chmod(path.parent, 0o700)
        assert client.call(path, "sessions") == []  # its own user is still served
