"""The end-to-end tier: the installed `convo-tui` in a pseudo-terminal, as a person runs it.

Every test gets tests/conftest.py's private home, config and index folders
(the programs inherit them through the environment) and a config that picks
the bundled model, so a run never loads a second one. Commands that only read
share one copy of the demo index per worker (`demo_folder`), built once per
run with the other tiers' demo index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from convo_tui.core.settings import DEFAULT_MODEL

from tests.e2e.terminal import Terminal, convo_tui
from tests.helpers.index_copy import copy_index


@pytest.fixture
def terminal() -> Iterator[Callable[..., Terminal]]:
    """Start programs in terminals (`terminal(argv, cols=80, rows=24)`); all are closed after the test."""
    started: list[Terminal] = []

    def start(argv: list[str], **options: object) -> Terminal:
        term = Terminal(argv, **options)  # type: ignore[arg-type]
        started.append(term)
        return term

    yield start
    for term in started:
        term.close()


@pytest.fixture(autouse=True)
def bundled_model(isolated_dirs: Path) -> Path:
    """The test's config file: the bundled English model, whatever the corpus's languages."""
    config = Path(os.environ["CONVO_TUI_CONFIG"])
    config.write_text(f'model = "{DEFAULT_MODEL}"\n', encoding="utf-8")
    return config


@pytest.fixture(scope="session")
def demo_folder(demo_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This worker's copy of the built demo (`corpus/`, `index/`), for commands that only read."""
    folder = tmp_path_factory.mktemp("e2e-demo")
    copy_index(demo_built / "index", folder / "index")
    shutil.copytree(demo_built / "corpus", folder / "corpus", symlinks=True)
    return folder


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`convo-tui ARGS` with its output going to pipes, not a terminal (a script, CI, `> file`)."""
    return subprocess.run([*convo_tui(), *args], capture_output=True, text=True, timeout=timeout, check=False)
