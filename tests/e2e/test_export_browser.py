"""The HTML export in a real browser: headless Chromium (Debian: `apt-get install chromium`) opens
the page `convo-tui export` wrote, runs its script, and draws it.

Skipped where no Chromium is installed. The browser may not reach any network:
every host resolves to nothing, and the page's own Content-Security-Policy
forbids loading anything anyway.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.terminal import convo_tui
from tests.paths import FIXTURES

CHROMIUM = next((found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None)
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium on this machine (Debian: apt-get install chromium)"),
]
SESSION_FILE = FIXTURES / "export" / "5b1e9d2c-4f3a-4c7e-8a6b-0d9e8f7a6b5c.jsonl"
USER_BACKGROUND = (0xDD, 0xF4, 0xFF)  # --user in the light theme (core/export/html.py)


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    """One browser run. Each run gets its own profile: the previous run's helper processes
    may still hold their profile's lock for a moment after the browser exits."""
    assert CHROMIUM is not None
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",  # the tests may run as root in a container
        "--disable-gpu",
        "--hide-scrollbars",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={profile}",
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-2000:]}"
    return done


def test_the_page_runs_and_draws_in_chromium(tmp_path):
    page = tmp_path / "session.html"
    subprocess.run([*convo_tui(), "export", str(SESSION_FILE), "-o", str(page)], check=True, capture_output=True, timeout=120)

    folded = chromium("--dump-dom", page.as_uri(), profile=tmp_path / "profile-folded")
    assert folded.stdout.count("<details") == 3 and " open=" not in folded.stdout
    opened = chromium("--dump-dom", page.as_uri() + "#expanded", profile=tmp_path / "profile-opened")
    assert opened.stdout.count('<details class="tool" open="">') == 2  # the page's script opened every fold
    assert '<details class="thinking" open="">' in opened.stdout

    shot = tmp_path / "page.png"
    chromium("--window-size=1000,1400", f"--screenshot={shot}", page.as_uri() + "#expanded", profile=tmp_path / "profile-shot")
    from PIL import Image

    with Image.open(shot) as image:
        assert image.size == (1000, 1400)
        colours = {colour for _, colour in image.convert("RGB").getcolors(maxcolors=1_000_000) or []}
    assert USER_BACKGROUND in colours  # the user's messages are drawn in their box, styles applied
    assert len(colours) > 50  # text, code colours, borders: not a blank page
