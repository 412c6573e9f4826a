"""The demo corpus that ships with the package: `convo-tui --demo`.

Several sessions in each supported transcript format, English and Chinese,
indexed into a fresh temporary folder so the user's own index is untouched.
Everything the demo writes (the index, exported contexts) stays inside that
folder, and `remove_demo_folder` takes it all away when the demo ends.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from convo_tui.core.environ import environment_variable
from convo_tui.core.settings import Settings

DEMO_DIR = Path(__file__).parent / "corpus"
DEMO_PREFIX = "convo-tui-demo-"


def demo_settings(base: Settings) -> Settings:
    """`base` pointed at the demo corpus only, with a new temporary index folder."""
    # The index one level down: exports land beside it (in the same temporary folder), not in /tmp.
    index_dir = Path(tempfile.mkdtemp(prefix=DEMO_PREFIX)) / "index"
    return dataclasses.replace(base, index_dir=index_dir, sources=[DEMO_DIR], discover_defaults=False)


def demo_folder(settings: Settings) -> Path:
    """The temporary folder `demo_settings` made: the index and the exports are inside."""
    return Path(settings.index_dir).parent


def remove_demo_folder(settings: Settings) -> None:
    """Remove the demo's temporary folder (and nothing that is not one: its name is checked)."""
    folder = demo_folder(settings)
    if folder.name.startswith(DEMO_PREFIX):
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def temporary_files_in(settings: Settings) -> Iterator[None]:
    """Send this process's temporary files into the demo folder while the demo runs,
    so they go with it; the temp dir before is back when the block ends (the folder
    is gone by then: a TMPDIR naming it breaks whatever starts a process after).

    The model libraries write to the temp dir on their own (onnxruntime a `.ses`
    file on import, fastembed an empty `fastembed_cache`): enter this before they
    are imported.
    """
    folder = str(demo_folder(settings))
    before = tempfile.tempdir
    tempfile.tempdir = folder
    try:
        with environment_variable("TMPDIR", folder):
            yield
    finally:
        tempfile.tempdir = before
