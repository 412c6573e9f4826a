"""The app's binding ids read from its source, for the command line's check of `[keys]`.

A `[keys]` typo in the settings file is an error wherever the file is read;
the command line checks it too, but must not import Textual and every screen
to learn the ids (a served command starts as fast as `--help`). So the ids
are read as text from the `id=` of the `Binding` declarations in this
package; tests/unit/test_settings.py checks they are exactly the ids the app's
classes declare (tui/keymap.py).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

# `Binding(` then its arguments (quoted strings may hold parentheses) up to its `id=`.
_BINDING_ID = re.compile(r'\bBinding\((?:[^()"]|"[^"]*")*?\bid="([^"]+)"')


@cache
def declared_binding_ids() -> frozenset[str]:
    ids: set[str] = set()
    for source in sorted(Path(__file__).parent.rglob("*.py")):
        if "demo" in source.relative_to(Path(__file__).parent).parts:
            continue
        ids.update(_BINDING_ID.findall(source.read_text(encoding="utf-8")))
    return frozenset(ids)
