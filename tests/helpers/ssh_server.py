"""A real SSH server on 127.0.0.1 for the remote-source tests, with throwaway keys.

`SshServer.start(folder)` runs the system's OpenSSH `sshd` when it is
installed (Debian's openssh-server) and can start as this user; otherwise
asyncssh's server (a real SSH implementation from PyPI) in its own process,
serving the file system over SFTP. Either way the client is the system's
`ssh`, configured by the file `ssh_config` (host alias, port, key, known
hosts), exactly as a user's ~/.ssh/config would.

    python tests/helpers/ssh_server.py FOLDER [--die-after-bytes N]

runs the asyncssh server (keys in FOLDER), prints "ready PORT", and with
`--die-after-bytes` exits abruptly once it has served that many file bytes:
a host that goes away mid-transfer.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

ALIAS = "testbox"
SSHD = shutil.which("sshd") or next((p for p in ("/usr/sbin/sshd",) if os.path.exists(p)), None)


def make_keys(folder: Path) -> None:
    """A host key and a client key, made with the system's ssh-keygen."""
    for name in ("host_key", "client_key"):
        if not (folder / name).exists():
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / name)], check=True)
    shutil.copy(folder / "client_key.pub", folder / "authorized_keys")
    os.chmod(folder / "authorized_keys", 0o600)


def write_client_config(folder: Path, port: int) -> Path:
    host_key = (folder / "host_key.pub").read_text().split()
    (folder / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    config = folder / "ssh_config"
    config.write_text(
        f"Host {ALIAS}\n"
        "  HostName 127.0.0.1\n"
        f"  Port {port}\n"
        f"  User {getpass.getuser()}\n"
        f"  IdentityFile {folder / 'client_key'}\n"
        "  IdentitiesOnly yes\n"
        f"  UserKnownHostsFile {folder / 'known_hosts'}\n"
        "  StrictHostKeyChecking yes\n"
        "  LogLevel ERROR\n"
    )
    return config


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class SshServer:
    folder: Path
    port: int
    kind: str  # "sshd" or "asyncssh"
    process: subprocess.Popen

    @property
    def config(self) -> Path:
        return self.folder / "ssh_config"

    @classmethod
    def start(cls, folder: Path, *, die_after_bytes: int | None = None, prefer_sshd: bool = True) -> SshServer:
        folder.mkdir(parents=True, exist_ok=True)
        make_keys(folder)
        if prefer_sshd and SSHD is not None and die_after_bytes is None:
            server = cls._start_sshd(folder)
            if server is not None:
                return server
        return cls._start_asyncssh(folder, die_after_bytes)

    @classmethod
    def _start_sshd(cls, folder: Path) -> SshServer | None:
        assert SSHD is not None
        port = _free_port()
        (folder / "sshd_config").write_text(
            f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\nPidFile {folder / 'sshd.pid'}\n"
            f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "UsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\nSubsystem sftp internal-sftp\nLogLevel INFO\n"
        )
        process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(folder / "sshd_config")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None
        for line in process.stderr:  # sshd -e logs "Server listening on ..." once it accepts connections
            if "Server listening" in line:
                write_client_config(folder, port)
                threading.Thread(target=process.stderr.read, daemon=True).start()  # its later log lines
                return cls(folder, port, "sshd", process)
        process.wait()
        return None  # it cannot run here (no privilege separation folder...): asyncssh's server instead

    @classmethod
    def _start_asyncssh(cls, folder: Path, die_after_bytes: int | None) -> SshServer:
        argv = [sys.executable, __file__, str(folder)]
        if die_after_bytes is not None:
            argv += ["--die-after-bytes", str(die_after_bytes)]
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        line = process.stdout.readline().split()
        assert line[:1] == ["ready"], f"the SSH server did not start: {line}"
        port = int(line[1])
        write_client_config(folder, port)
        return cls(folder, port, "asyncssh", process)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def serve(folder: Path, die_after_bytes: int | None) -> None:
    """The asyncssh server: public-key login with the folder's client key, SFTP over the file system."""
    import asyncssh

    served = [0]

    class Sftp(asyncssh.SFTPServer):
        def read(self, file_obj, offset, size):  # type: ignore[no-untyped-def]
            data = super().read(file_obj, offset, size)
            served[0] += len(data)
            if die_after_bytes is not None and served[0] > die_after_bytes:
                os._exit(0)  # the host goes away mid-transfer: no goodbye on the connection
            return data

    async def main() -> None:
        server = await asyncssh.listen(
            "127.0.0.1",
            0,
            server_host_keys=[str(folder / "host_key")],
            authorized_client_keys=str(folder / "authorized_keys"),
            sftp_factory=Sftp,
            allow_scp=False,
        )
        port = server.sockets[0].getsockname()[1]
        print(f"ready {port}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = int(args[args.index("--die-after-bytes") + 1]) if "--die-after-bytes" in args else None
    serve(Path(args[0]), limit)
