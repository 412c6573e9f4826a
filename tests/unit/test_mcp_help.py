"""`convo-tui mcp --help` lists the tools and their arguments, exactly as the server offers them."""

from __future__ import annotations

import re

import anyio
from convo_tui.cli.main import main
from convo_tui.cli.mcp import build_server
from convo_tui.cli.mcp_tools import TOOL_NAMES, RecallTools
from convo_tui.core.settings import Settings


def test_help_lists_every_tool_with_its_arguments(capsys):
    try:
        main(["mcp", "--help"])
    except SystemExit as done:
        assert done.code == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    listed = {name: " ".join(args.split()) for name, args in re.findall(r"^  (\w+)\(([^)]*)\)$", text, re.M)}
    assert list(listed) == list(TOOL_NAMES)

    async def served() -> dict[str, list[str]]:
        tools = await build_server(RecallTools(Settings())).list_tools()
        return {tool.name: list(tool.input_schema["properties"]) for tool in tools}

    schemas = anyio.run(served)
    assert set(schemas) == set(TOOL_NAMES)
    for name, arguments in listed.items():
        assert [a.split("=")[0] for a in arguments.split(", ")] == schemas[name], name
    assert "install" in text
    assert "claude mcp add -s user convo-tui -- convo-tui mcp" in text  # registering by hand
    assert '"command": "convo-tui", "args": ["mcp"]' in text
