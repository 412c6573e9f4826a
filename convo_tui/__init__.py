"""convo-tui: find and reuse past conversations with AI coding assistants.

The package's parts live in the repository's top-level folders and are mapped
into this namespace by `pyproject.toml` (setuptools `package-dir`):
`core/` is `convo_tui.core` (the engine), `tui/` is `convo_tui.tui` (the
Textual app) and `cli/` is `convo_tui.cli` (the command line).
"""

__version__ = "0.2.0"
