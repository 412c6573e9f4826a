"""A holder answers requests on threads while it indexes: the Library must stay consistent."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from convo_tui.core.holder.access import open_local
from convo_tui.core.settings import Settings

from tests.paths import FIXTURES

SAMPLES = FIXTURES / "reliability" / "samples"


def test_searches_and_listings_run_while_an_index_run_writes(tmp_path: Path):
    src = tmp_path / "src"
    shutil.copytree(SAMPLES, src)
    with open_local(Settings(index_dir=tmp_path / "index")) as library:
        library.index([src / "openai"])
        errors: list[BaseException] = []
        done = threading.Event()
        seen: list[set[str]] = []

        def reader() -> None:
            try:
                while not done.is_set():
                    assert library.search("RAG", mode="keyword")[0].session_id == "chat_log"
                    seen.append({s.id for s in library.sessions()})
            except BaseException as exc:
                errors.append(exc)

        readers = [threading.Thread(target=reader) for _ in range(3)]
        for thread in readers:
            thread.start()
        # Two index runs asked at once (the app and a client): they queue, both finish.
        runs = [threading.Thread(target=lambda: library.index([src])) for _ in range(2)]
        for thread in runs:
            thread.start()
        for thread in runs:
            thread.join()
        done.set()
        for thread in readers:
            thread.join()
        assert errors == []
        assert all({"chat_log", "conv-7"} <= ids for ids in seen)
        assert len(library.sessions()) == 7
