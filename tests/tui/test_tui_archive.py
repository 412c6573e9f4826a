"""The app tells what the tools will delete (a notice at start) and how many sessions
live only in the archive (the stats screen)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.tui.screens.stats import StatsScreen
from textual.widgets import Static

from tests.helpers.app import make_app, run_async, settle
from tests.paths import FIXTURES


@run_async
async def test_the_app_warns_at_start_and_counts_what_lives_only_in_the_archive(tmp_path: Path):
    home = Path.home()
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 20}))
    projects = home / ".claude" / "projects" / "-home-dev-code-webshop"
    projects.mkdir(parents=True)
    for name in ("5b5b5b5b-3333-4333-8333-00000000dddd.jsonl", "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"):
        shutil.copy(FIXTURES / "claude_code" / name, projects / name)
    settings = Settings(index_dir=tmp_path / "index", model=DEFAULT_MODEL)
    library = Library.open(settings)
    try:
        library.load_model()
        assert library.index(semantic=False).added == 2
        (projects / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl").unlink()  # Claude Code's cleanup
        app = make_app((settings, library))
        async with app.run_test(size=(110, 30)) as pilot:
            await settle(pilot)
            notes = [str(n.message) for n in app._notifications]
            assert notes == [
                "Claude Code deletes sessions after 20 days (cleanupPeriodDays in ~/.claude/settings.json); "
                "convo-tui keeps a copy (1 session is kept only here)"
            ]
            await pilot.press("f7")
            await settle(pilot)
            assert isinstance(app.screen, StatsScreen)
            assert "1 session only in the archive" in str(app.screen.query_one("#stats-summary", Static).render())
    finally:
        library.close()
