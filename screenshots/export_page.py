"""Regenerate screenshots/export.png: the HTML export of a fixture session, drawn by headless Chromium.

    python screenshots/export_page.py

Needs `chromium` on the PATH (Debian: apt-get install chromium). The page is
opened with every fold open (`#expanded`) and no network.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SESSION = "tests/fixtures/export/5b1e9d2c-4f3a-4c7e-8a6b-0d9e8f7a6b5c.jsonl"  # relative: the page names it so


def main() -> int:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        print("no chromium on the PATH (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as temp:
        page = Path(temp) / "session.html"
        export = [sys.executable, "-m", "convo_tui.cli.main", "export", SESSION, "-o", str(page)]
        subprocess.run(export, check=True, cwd=ROOT)
        target = HERE / "export.png"
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                f"--user-data-dir={Path(temp) / 'profile'}",
                "--window-size=1000,1500",
                f"--screenshot={target}",
                page.as_uri() + "#expanded",
            ],
            check=True,
            capture_output=True,
        )
    print(f"screenshots/{target.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
