"""`python -m convo_tui`: the `convo-tui` command (how a command starts the holder that keeps the index warm)."""

from convo_tui.cli.main import run

run()
