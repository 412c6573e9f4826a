"""The engine run in this process (`Library`), in parts: opening.py (store,
metadata, health), models.py, reading.py, edits.py, indexing.py, and the
facade that puts them behind the `Engine` interface (core/engine.py)."""

from convo_tui.core.library.facade import Library
from convo_tui.core.library.opening import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "Library"]
