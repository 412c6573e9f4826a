"""The demo corpus that ships with the package: `convo-tui --demo`.

Several sessions in each supported transcript format, English and Chinese,
indexed into a fresh temporary folder so the user's own index is untouched.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from convo_tui.core.settings import Settings

DEMO_DIR = Path(__file__).parent / "corpus"


def demo_settings(base: Settings) -> Settings:
    """`base` pointed at the demo corpus only, with a new temporary index folder."""
    # The index one level down: exports land beside it (in the same temporary folder), not in /tmp.
    index_dir = Path(tempfile.mkdtemp(prefix="convo-tui-demo-")) / "index"
    return dataclasses.replace(base, index_dir=index_dir, sources=[DEMO_DIR], discover_defaults=False)
