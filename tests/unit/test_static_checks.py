"""Static checks run with the suite, so CI fails when they do (config in pyproject.toml).

mypy and import-linter analyse the package `convo_tui`, whose parts live in the
top-level folders core/, tui/ and cli/ (setuptools package-dir). Neither tool
follows an editable install's mapping, so they run over a tree of symlinks that
lays the folders out as the installed package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

PARTS = ("core", "tui", "cli")


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def package_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding `convo_tui/` laid out as installed, each part a symlink to the repository."""
    root = tmp_path_factory.mktemp("package-tree")
    package = root / "convo_tui"
    package.mkdir()
    (package / "__init__.py").symlink_to(ROOT / "convo_tui" / "__init__.py")
    for part in PARTS:
        (package / part).symlink_to(ROOT / part, target_is_directory=True)
    return root


def test_ruff_lint_is_clean() -> None:
    result = _run("ruff", "check", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_is_clean(package_tree: Path) -> None:
    """core/ is checked strictly, tui/ and cli/ with mypy's defaults (see pyproject.toml)."""
    result = _run(
        "mypy",
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--cache-dir",
        str(ROOT / ".mypy_cache"),
        "-p",
        "convo_tui",
        cwd=package_tree,
    )
    assert result.returncode == 0, result.stdout.replace("convo_tui/", "") + result.stderr


def test_import_contracts_are_kept(package_tree: Path) -> None:
    """core never imports the faces, Textual or Rich; the faces never import the index internals."""
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=package_tree,
        env={**os.environ, "PYTHONPATH": str(package_tree)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout and "KEPT" in result.stdout
