"""Nothing is written outside our index, cache and config folders.

The CLI runs in a subprocess with a bare environment (a temp HOME and TMPDIR,
no XDG_* and no ORT_DISABLE_TELEMETRY), so what the engine and its libraries
(fastembed, onnxruntime, platformdirs) do by default is what is checked. The
app and the demo run in-process with `tempfile` pointed at a temp folder.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from convo_tui.core.settings import Settings

from bench.holders import holder_pid, stop
from tests.helpers.app import workers_done
from tests.paths import FIXTURES

# Ours, relative to HOME (platformdirs on Linux without XDG_* set).
OURS = (".cache/convo-tui", ".local/share/convo-tui", ".config/convo-tui")


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root.exists() else set()


def _strays(home: Path, before: set[str], sources: str = "sources") -> list[str]:
    allowed = (*OURS, sources)
    new = _files(home) - before
    return sorted(p for p in new if not any(p == a or p.startswith(a + "/") or a.startswith(p + "/") for a in allowed))


def _bare_env(home: Path, tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CONVO_TUI_", "ORT_", "FASTEMBED_"))}
    env.update(HOME=str(home), TMPDIR=str(tmp), HF_HUB_OFFLINE="1")
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env


def test_index_search_and_sessions_write_only_into_our_folders(tmp_path):
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    (home / "sources").mkdir()
    shutil.copy(FIXTURES / "claude_code" / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl", home / "sources")
    before = _files(home)
    env = _bare_env(home, tmp)
    for args in (["index", str(home / "sources")], ["search", "flaky login"], ["sessions"], ["search", "--json", "x"]):
        done = subprocess.run(
            [sys.executable, "-m", "convo_tui.cli.main", *args], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode in (0, 1), done.stderr
        assert "Traceback" not in done.stderr
    index_dir = home / ".local/share/convo-tui/index"
    assert (index_dir / "manifest.sqlite3").is_file()  # it did index
    # The first search left the index loaded for the next commands (keep_warm's
    # default): that holder writes nothing outside our folders either.
    stop(holder_pid(index_dir))
    assert (index_dir / "keep-warm.log").is_file()
    assert _strays(home, before) == []
    assert _files(tmp) == set(), "left in TMPDIR"


def test_the_app_and_the_demo_leave_nothing_outside_our_folders(tmp_path, monkeypatch):
    from convo_tui.cli.app import run_app
    from convo_tui.tui.app import ConvoApp, create_app

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))
    home = Path(os.environ["HOME"])
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("CONVO_TUI_INDEX_DIR", raising=False)
    monkeypatch.setenv("CONVO_TUI_CONFIG", str(home / ".config/convo-tui/config.toml"))
    shutil.copytree(FIXTURES / "claude_code", home / "sources")
    before = _files(home)

    async def drive(app: ConvoApp, export: bool) -> None:
        async with app.run_test(size=(100, 32)) as pilot:
            while app.library is None or not app.model_ready or app.indexing:
                await workers_done(app)
                await pilot.pause()
            app.search_screen.set_query("flaky")
            await pilot.pause(0.3)
            await workers_done(app)
            await pilot.pause()
            cards = app.search_screen.cards()
            if export and cards:
                cards[0].focus()
                await pilot.press("ctrl+x")  # export the LLM context: it must stay in the demo folder
                await workers_done(app)
                await pilot.pause()
            await pilot.press("ctrl+q")

    # The app on the user's own folders.
    app = create_app(Settings.load(), index_on_start=True)
    app.settings.sources = [home / "sources"]
    app.settings.discover_defaults = False
    asyncio.run(drive(app, export=True))
    # The demo through the real entry point, its cleanup included.
    made: list[Path] = []

    def run(self: ConvoApp) -> None:
        made.append(Path(self.settings.index_dir))
        asyncio.run(drive(self, export=True))

    monkeypatch.setattr(ConvoApp, "run", run)

    class Args:
        config = None
        index_dir = None
        demo = True

    run_app(Args())  # type: ignore[arg-type]
    assert made and not made[0].exists()
    assert _strays(home, before) == []
    assert _files(tmp) == set(), "left in the temp dir"
    # The demo's TMPDIR named its folder, now gone: a process started after (Chromium,
    # in a later test of this worker) could not make a temporary file.
    assert (os.environ["TMPDIR"], tempfile.tempdir) == (str(tmp), str(tmp))


def test_onnxruntime_telemetry_is_switched_off_by_the_engine(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = _bare_env(home, tmp_path)
    code = "import convo_tui.core, os, onnxruntime; print(os.environ.get('ORT_DISABLE_TELEMETRY'))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "1", done.stderr
    assert not (home / ".cache" / "Microsoft").exists()
