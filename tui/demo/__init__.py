"""The demo corpus that ships with the package: `convo-tui --demo`.

Several sessions in each supported transcript format, English and Chinese,
indexed into a fresh temporary folder so the user's own index is untouched.
Everything the demo writes (the index, exported contexts) stays inside that
folder, and `remove_demo_folder` takes it all away when the demo ends.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from pathlib import Path

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


def keep_temporary_files_in(settings: Settings) -> None:
    """Send this process's temporary files into the demo folder, so they go with it.

    The model libraries write to the temp dir on their own (onnxruntime a `.ses`
    file on import, fastembed an empty `fastembed_cache`): call this before they
    are imported.
    """
    folder = str(demo_folder(settings))
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder
