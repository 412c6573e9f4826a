"""core/ is the engine: it must never pull in Textual or Rich."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import convo_tui.core

from tests.paths import ROOT


def core_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(convo_tui.core.__path__, prefix="convo_tui.core."))


def test_core_has_modules():
    assert "convo_tui.core.model" in core_modules()
    assert "convo_tui.core.model" in core_modules()


def test_no_core_module_imports_textual_or_rich():
    modules = core_modules()
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"core imported: {result.stdout.strip()}"
