"""Copies of built index folders for tests, their sparse files kept sparse.

Edge's files are mostly holes (a fresh shard is ~230 MB long and ~1 MB on
disk): `shutil.copytree` would write every hole out, 464 MB for each copy of
the demo index."""

from __future__ import annotations

import fnmatch
import os
import shutil
from pathlib import Path

from convo_tui.core.store.readonly import copy_sparse


def copy_index(source: Path, target: Path, skip: tuple[str, ...] = ()) -> Path:
    """A copy of an index folder (modes kept, holes left holes), without the
    files whose names match a pattern of `skip`."""
    for folder, _dirs, names in os.walk(source):
        out = target / Path(folder).relative_to(source)
        out.mkdir(parents=True, exist_ok=True, mode=0o700)
        for name in names:
            if any(fnmatch.fnmatch(name, pattern) for pattern in skip):
                continue
            copy_sparse(Path(folder) / name, out / name)
            shutil.copymode(Path(folder) / name, out / name)
    return target
