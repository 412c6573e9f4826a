"""Privacy on disk: what we create is readable by the owner only.

The index folder is 0700 and our own files in it (metadata, manifest, lock,
annotations) are 0600, whatever the umask: the tests run under umask 000, so
only modes the code sets explicitly survive. We never create a config file.
"""

from __future__ import annotations

import os
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings, default_config_path

from tests.paths import FIXTURES

SAMPLES = FIXTURES / "reliability" / "samples"
OWN_FILES = {"meta.json", "manifest.sqlite3", "lock", "annotations.sqlite3"}


@pytest.fixture
def open_umask() -> Iterator[None]:
    previous = os.umask(0)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def own_files(folder: Path) -> dict[str, int]:
    """Our files directly in the index folder (Edge's data sits in shard/)."""
    return {p.name: mode(p) for p in folder.iterdir() if p.is_file()}


def test_index_folder_and_files_are_private(tmp_path: Path, open_umask):
    index_dir = tmp_path / "data" / "index"
    with Library.open(Settings(index_dir=index_dir)) as library:
        library.index([SAMPLES / "cursor"])
        library.star_session(library.sessions()[0].id)  # creates the annotations file
        assert mode(index_dir) == 0o700
        files = own_files(index_dir)
    assert set(files) >= OWN_FILES, files
    assert {name: m for name, m in files.items() if m != 0o600} == {}
    # Nothing in the folder is reachable by others: the folder itself is closed.
    assert mode(index_dir) & 0o077 == 0


def test_an_existing_open_folder_is_closed_on_open(tmp_path: Path, open_umask):
    index_dir = tmp_path / "index"
    index_dir.mkdir(mode=0o755)
    os.chmod(index_dir, 0o755)
    with Library.open(Settings(index_dir=index_dir)):
        assert mode(index_dir) == 0o700


def test_cli_runs_create_private_files_and_no_config(tmp_path: Path, open_umask, capsys):
    index_dir = tmp_path / "index"
    config = default_config_path()
    assert not config.exists()
    assert main(["index", str(SAMPLES / "openai"), "--index-dir", str(index_dir)]) == 0
    assert main(["session", "tag", "conv-7", "rag", "--index-dir", str(index_dir)]) == 0
    assert main(["search", "RAG", "--index-dir", str(index_dir)]) == 0
    capsys.readouterr()
    assert mode(index_dir) == 0o700
    assert {name: m for name, m in own_files(index_dir).items() if m != 0o600} == {}
    assert not config.exists()  # settings are only ever read


def test_temporary_files_are_not_left_readable(tmp_path: Path, open_umask):
    """Atomic writes go through temp files: none may linger, none readable by others."""
    index_dir = tmp_path / "index"
    with Library.open(Settings(index_dir=index_dir)) as library:
        library.index([SAMPLES / "openai"])
        library.index([SAMPLES / "chatgpt"])
    leftovers = [p.name for p in index_dir.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_server_backend_keeps_its_local_manifest_private(tmp_path: Path, open_umask, monkeypatch):
    """With a Qdrant server the manifest and annotations stay on this machine, closed too.
    qdrant-client's local mode stands in for the server."""
    from convo_tui.core.store.qdrant_server import ServerStore
    from qdrant_client import QdrantClient

    monkeypatch.setenv("CONVO_TUI_INDEX_DIR", str(tmp_path / "local" / "index"))
    settings = Settings(qdrant_url="http://localhost:6333")
    library = Library(settings, ServerStore(QdrantClient(":memory:")), read_only=False, meta_error=None)
    try:
        assert library.index([SAMPLES / "openai"]).added == 2
        library.star_session("conv-7")
    finally:
        library.close()
    folder = tmp_path / "local" / "index" / "server"
    assert (mode(folder.parent), mode(folder)) == (0o700, 0o700)
    assert own_files(folder) == {
        "manifest.sqlite3": 0o600,
        "annotations.sqlite3": 0o600,
        "vectors.sqlite": 0o600,
        "catalogue.json.z": 0o600,
    }


_network: list[str] = []
_listening = False


def _audit_network(event: str, args: tuple) -> None:
    if _listening and event in ("socket.connect", "socket.getaddrinfo", "socket.sendto", "socket.gethostbyname"):
        if event == "socket.connect" and getattr(args[0], "family", None) == socket.AF_UNIX:
            return  # the index holder's local socket (core/holder): a file, not the network
        _network.append(f"{event}{args!r}")


sys.addaudithook(_audit_network)  # idle unless a test listens


def test_nothing_goes_over_the_network_without_a_qdrant_url(tmp_path: Path, capsys):
    """Indexing, searching, browsing and context assembly stay on this machine."""
    global _listening
    index = ["--index-dir", str(tmp_path / "index")]
    _network.clear()
    _listening = True
    try:
        codes = [
            main(["index", str(SAMPLES), *index]),
            main(["search", "Qdrant collection", *index]),
            main(["search", "--mode", "semantic", "emails regex", *index]),
            main(["sessions", *index]),
            main(["context", "--session", "th-42", "what is left?", *index]),
        ]
    finally:
        _listening = False
    capsys.readouterr()
    assert codes == [0] * 5
    assert _network == []


def test_the_network_guard_sees_a_lookup():
    global _listening
    import socket

    _network.clear()
    _listening = True
    try:
        socket.getaddrinfo("localhost", 80)
    finally:
        _listening = False
    assert [entry.split("(")[0] for entry in _network] == ["socket.getaddrinfo"]
