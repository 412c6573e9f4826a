"""Rules of the code that the linters do not check.

No module reaches into another's private names: a `_name` is imported only by
modules of its own package (core/sources/_common.py by the readers beside it),
and `obj._name` is read only on `self` or `cls`. import-linter checks the
layers and cycles (tests/unit/test_static_checks.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import ROOT

PARTS = ("core", "tui", "cli")
# Third-party names that are private only in spelling, or the one seam we own into a library's internals.
ALLOWED_ATTRIBUTES = {
    ("argparse", "_SubParsersAction"),  # argparse's documented type of add_subparsers()
    ("os", "_exit"),  # a public function (exit without cleanup)
    ("inner", "_model_dir"),  # core/embed/dense.py swaps fastembed's ONNX session for ours
    ("inner", "_load_tokenizer"),
}


def _module_name(path: Path, root: Path) -> tuple[str, str]:
    """(module, package) of a file of the installed package convo_tui."""
    parts = path.relative_to(root).with_suffix("").parts
    module = ".".join(("convo_tui", *parts))
    if path.name == "__init__.py":
        module = module.removesuffix(".__init__")
        return module, module
    return module, module.rsplit(".", 1)[0]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def violations(path: Path, root: Path = ROOT) -> list[str]:
    _module, package = _module_name(path, root)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("convo_tui"):
            same_package = node.module.rsplit(".", 1)[0] == package or node.module.startswith(f"{package}.")
            for alias in node.names:
                if _private(alias.name) and not same_package:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: imports {node.module}.{alias.name}")
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            if (ast.unparse(owner), node.attr) in ALLOWED_ATTRIBUTES:
                continue
            found.append(f"{path.relative_to(root)}:{node.lineno}: reads {ast.unparse(owner)}.{node.attr}")
    return found


def test_no_module_reaches_into_another_modules_private_names():
    found = [v for part in PARTS for path in sorted((ROOT / part).rglob("*.py")) for v in violations(path)]
    assert found == []


def test_the_rule_sees_a_private_import_and_a_private_attribute(tmp_path):
    probe = tmp_path / "core" / "index" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from convo_tui.core.store.edge import _one\nx = store._writable()\n", encoding="utf-8")
    found = violations(probe, root=tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == ["imports convo_tui.core.store.edge._one", "reads store._writable"]
