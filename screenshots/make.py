"""Regenerate screenshots/*.svg from the real app on the demo corpus.

    python screenshots/make.py

With `rsvg-convert` on the PATH (Debian: librsvg2-bin, plus fonts-firacode and
fonts-noto-color-emoji for faithful glyphs) a PNG of each is written too.

Drives the app with Textual's Pilot at 120x36: the demo corpus is copied to a
temporary folder (fixed file times, UTC clock, so the pictures do not change
from run to run) and indexed by the app itself, exactly as `convo-tui --demo`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ["TZ"] = "UTC"
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
time.tzset()

from convo_tui.core.settings import Settings  # noqa: E402
from convo_tui.tui.app import create_app  # noqa: E402
from convo_tui.tui.demo import DEMO_DIR  # noqa: E402

SIZE = (120, 36)
FIXED_MTIME = 1767225600  # 2026-01-01 00:00 UTC


def save(app, name: str) -> None:
    app.clear_notifications()
    for box in app.screen.query("Input"):
        box.cursor_blink = False
    svg = app.export_screenshot(title="convo-tui")
    (HERE / f"{name}.svg").write_text(svg, encoding="utf-8")
    print(f"screenshots/{name}.svg")
    to_png(svg, HERE / f"{name}.png")


def to_png(svg: str, target: Path) -> None:
    """Rasterise with rsvg-convert when present; browsers need no PNG, READMEs like one.

    Textual writes each styled run as its own <text>; without xml:space="preserve"
    rsvg drops the spaces at their edges and glues highlighted words together.
    """
    rsvg = shutil.which("rsvg-convert")
    if rsvg is None:
        return
    preserved = svg.replace("<svg ", '<svg xml:space="preserve" ', 1)
    subprocess.run([rsvg, "-w", "1400", "-o", str(target)], input=preserved.encode("utf-8"), check=True)
    print(f"screenshots/{target.name}")


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def drive(settings: Settings) -> None:
    app = create_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        # Indexing in progress: the first progress report is on screen.
        while not app.indexing:
            await pilot.pause(0.05)
        while "Indexing:" not in str(app.search_screen.query_one("#index-label").render()):
            await pilot.pause(0.02)
        save(app, "indexing")
        while app.indexing:
            await settle(pilot)
        app.search_screen.set_query("why is the order total off by a cent")
        await settle(pilot)
        save(app, "search")
        await pilot.press("f4", "down", "down")
        await settle(pilot)
        save(app, "compact")
        await pilot.press("f4")
        app.search_screen.set_query("coupon registry flaky on CI")
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        save(app, "expanded-card")
        await pilot.press("ctrl+o")
        await settle(pilot)
        save(app, "reader")
        await pilot.press("escape", "f3")
        await settle(pilot)
        save(app, "sessions")
        await pilot.press(*"redis")
        await settle(pilot)
        save(app, "sessions-filtered")


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="convo-tui-shots-"))
    try:
        corpus = root / "corpus"
        shutil.copytree(DEMO_DIR, corpus)
        for path in corpus.rglob("*"):
            os.utime(path, (FIXED_MTIME, FIXED_MTIME))
        # The remembered view and query history land in the index dir's parent: the temp folder.
        os.environ["CONVO_TUI_INDEX_DIR"] = str(root / "index")
        settings = Settings(index_dir=root / "index", sources=[corpus], discover_defaults=False, debounce_ms=0)
        asyncio.run(drive(settings))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
