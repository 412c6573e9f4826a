"""The embedded index's `meta.json` (model, dimension, schema, a switch under
way): read as a dict, replaced atomically, readable by its owner only."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.store import space
from convo_tui.core.store.files import damaged

META_NAME = "meta.json"


def read(folder: Path) -> dict[str, Any]:
    """The meta, {} when there is none yet; an unreadable one is damage."""
    try:
        meta: dict[str, Any] = json.loads((folder / META_NAME).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(damaged(folder, f"{META_NAME} is unreadable ({exc})")) from None
    return meta


def write(folder: Path, meta: dict[str, Any]) -> None:
    """Replace the meta in one step (written to a 0600 temporary file, synced, renamed)."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".meta-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # mkstemp creates it 0600
            json.dump(meta, fh, ensure_ascii=False, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, folder / META_NAME)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if space.is_disk_full(exc):
            raise space.disk_full(folder, "write the index") from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
