"""The wheel installs one package, convo_tui, and nothing else at the top level."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.paths import ROOT


@pytest.mark.slow
def test_wheel_holds_only_convo_tui(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("convo_tui-*.whl")
    import convo_tui

    assert wheel.name.startswith(f"convo_tui-{convo_tui.__version__}-")  # one version number
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"convo_tui"}
    # Every source folder's modules made it in (a subpackage missing from
    # pyproject's list would be silently left out).
    for folder in ("core", "tui", "cli"):
        for module in (ROOT / folder).rglob("*.py"):
            assert f"convo_tui/{module.relative_to(ROOT).as_posix()}" in names, module
    assert "convo_tui/tui/styles/app.tcss" in names
    assert "convo_tui/core/embed/model_data/all-MiniLM-L6-v2-tokenizer.json" in names
    assert "convo_tui/core/cost/prices.json" in names
    assert not any(n.startswith(("convo_tui/tests", "convo_tui/bench")) for n in names)


def test_bundled_tokenizer_is_all_minilm_l6_v2s() -> None:
    """The default model's tokenizer ships in the package, byte for byte the one
    published with sentence-transformers/all-MiniLM-L6-v2 (see core/embed/model_data/NOTICE)."""
    import hashlib

    from convo_tui.core.embed.bundled import bundled_model_files

    _, tokenizer = bundled_model_files()
    digest = hashlib.sha256(tokenizer.read_bytes()).hexdigest()
    assert digest == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def test_there_is_one_version_number(capsys):
    """pyproject.toml takes the version from convo_tui/__init__.py; the built wheel and --version say the same."""
    import tomllib

    from convo_tui.cli.main import build_parser

    import convo_tui

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "convo_tui.__version__"}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--version"])
    assert capsys.readouterr().out == f"convo-tui {convo_tui.__version__}\n"
