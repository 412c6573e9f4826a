"""Every operation answers alike in process (Library) and through the holder (RemoteEngine).

The same index is asked first in this process, then through a holder in
another process (tests/helpers/index_worker.py hold); the answers must be equal,
and the operation table (core/holder/ops.py) must name every Engine method.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from convo_tui.cli.main import main
from convo_tui.core.engine import Engine
from convo_tui.core.holder.access import attach
from convo_tui.core.holder.ops import LOCAL_ONLY, OPERATIONS
from convo_tui.core.holder.remote import RemoteEngine
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.paths import FIXTURES, ROOT

WORKER = ROOT / "tests" / "helpers" / "index_worker.py"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("conformance")
    src = root / "src"
    shutil.copytree(FIXTURES / "claude_code", src)
    (src / "truncated.jsonl").unlink()
    assert main(["index", str(src), "--index-dir", str(root / "index")]) == 0
    return root


def in_process(index_dir: Path, ask: Callable[[Engine], Any]) -> Any:
    with Library.open(Settings(index_dir=index_dir)) as library:
        return ask(library)


def through_holder(index_dir: Path, ask: Callable[[Engine], Any]) -> Any:
    holder = subprocess.Popen(
        [sys.executable, str(WORKER), str(index_dir), "hold"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        engine = attach(Settings(index_dir=index_dir))
        assert isinstance(engine, RemoteEngine)
        return ask(engine)
    finally:
        os.kill(holder.pid, signal.SIGCONT)
        holder.stdin.close()
        holder.wait(timeout=60)
        holder.stdout.close()


def test_the_table_names_every_engine_method():
    methods = {name for name, value in vars(Engine).items() if callable(value) and not name.startswith("_")}
    assert methods - LOCAL_ONLY == set(OPERATIONS)


def test_archive_status_answers_alike(built: Path):
    here = in_process(built / "index", lambda engine: engine.archive_status())
    there = through_holder(built / "index", lambda engine: engine.archive_status())
    assert here == there and here.files == 4


def test_export_and_import_answer_alike(built: Path, tmp_path: Path):
    def round_trip(engine: Engine, name: str) -> tuple[Any, Any]:
        exported = engine.export_archive(tmp_path / name)
        return dataclasses.replace(exported, path="", bytes=0), dataclasses.replace(
            engine.import_archive(tmp_path / name), path=""
        )

    here = in_process(built / "index", lambda engine: round_trip(engine, "here.tar.zst"))
    there = through_holder(built / "index", lambda engine: round_trip(engine, "there.tar.zst"))
    assert here == there
    assert here[0].files == 4 and (here[1].files, here[1].versions) == (0, 0)  # an import of itself adds nothing
