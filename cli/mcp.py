"""`convo-tui mcp`: a Model Context Protocol server over stdio, for coding agents;
`convo-tui mcp install [AGENT ...]` puts it in the agents' own configs (cli/mcp_install.py).

Agents call its tools (cli/mcp_tools.py) to recall past conversations. It
asks the index's holder when one runs and holds the index itself otherwise
(opened on the first call, so starting the agent costs nothing). Built on the
official `mcp` SDK (2.x: MCPServer).
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

from convo_tui.cli.agent_configs import AGENTS
from convo_tui.cli.common import add_store_options, settings_from_args
from convo_tui.cli.mcp_tools import RecallTools, tool_methods, tools_help

INSTRUCTIONS = (
    "Past conversations between this user and AI coding assistants (Claude Code, Codex, Cursor, Gemini CLI, "
    "OpenCode, ChatGPT...), indexed on this machine. Use `search` to find earlier discussions, decisions and fixes; "
    "`show_turn` to read a hit whole (thinking and tool calls included); `recent_sessions` for what was done lately "
    "in this project; `context_bundle` for a prompt-sized digest of the most relevant past turns; `show_session`, "
    "`list_sessions` and `context` to browse. Sessions are named by id or a unique id prefix (8+ characters). "
    "Secrets in the text are masked."
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="run an MCP server over stdio so coding agents can search your past conversations; `mcp install` adds it to them",
        description=(
            "Serve the index to AI coding agents over the Model Context Protocol (stdio\n"
            "transport). An agent starts it; run by hand it waits for a client on stdin.\n"
            "`convo-tui mcp install` adds this server to the agents' own config files."
        ),
        epilog=help_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)
    commands = parser.add_subparsers(dest="mcp_command", title="commands", metavar="install")
    install = commands.add_parser(
        "install",
        help="add convo-tui's MCP server to coding agents' config files",
        description="Write the convo-tui MCP server entry into each agent's own config file (user-wide): "
        + "; ".join(f"{name} ({agent.label})" for name, agent in AGENTS.items())
        + ". With no AGENT, every agent whose config folder exists. Idempotent; the file is backed up first "
        "(FILE.convo-tui.bak). The command written is this installation's convo-tui, by absolute path.",
    )
    install.add_argument("agents", nargs="*", metavar="AGENT", choices=[*AGENTS, []], help=", ".join(AGENTS))
    install.add_argument("--print", dest="dry_run", action="store_true", help="show the entry and the file, write nothing")
    install.add_argument(
        "--command", dest="server_command", metavar="CMD", help="the command agents run (default: this convo-tui's full path)"
    )
    install.add_argument(
        "--index-dir", metavar="DIR", default=argparse.SUPPRESS, help="serve this index folder (passed to `mcp`)"
    )
    install.set_defaults(func=run_install)


def help_epilog() -> str:
    import shutil
    import sys
    from pathlib import Path

    script = shutil.which("convo-tui") or str(Path(sys.argv[0]).absolute())
    return (
        f"{tools_help()}\n\n"
        "register it with your agents: `convo-tui mcp install`, or by hand:\n"
        "  Claude Code  claude mcp add -s user convo-tui -- convo-tui mcp\n"
        "  Codex        codex mcp add convo-tui -- convo-tui mcp\n"
        "  Cursor       in ~/.cursor/mcp.json:\n"
        '    {"mcpServers": {"convo-tui": {"command": "convo-tui", "args": ["mcp"]}}}\n'
        "When convo-tui is not on the agent's PATH (a virtualenv), give its full path:\n"
        f"  {script}"
    )


def run(args: argparse.Namespace) -> int:
    tools = RecallTools(settings_from_args(args))
    try:
        build_server(tools).run("stdio")
    finally:
        tools.close()
    return 0


def run_install(args: argparse.Namespace) -> int:
    from pathlib import Path

    from convo_tui.cli.mcp_install import run_install as install

    served = ["mcp"]
    if getattr(args, "config", None):
        served = ["--config", str(Path(args.config).expanduser().absolute()), *served]
    if getattr(args, "index_dir", None):
        served += ["--index-dir", str(Path(args.index_dir).expanduser().absolute())]
    return install(list(dict.fromkeys(args.agents)), dry_run=args.dry_run, command=args.server_command, args=served)


def build_server(tools: RecallTools) -> Any:
    """The MCPServer with every tool of RecallTools (its typed signatures become the JSON schemas)."""
    from convo_tui.core.errors import ConvoError, shown
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("convo-tui", instructions=INSTRUCTIONS)

    def answering(method: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        """Every error reaches the agent as one line with its reason (the SDK would
        answer "Error executing tool" and hide the text of any other exception)."""

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                return method(*args, **kwargs)
            except (ConvoError, ValueError) as exc:
                raise ToolError(shown(exc, 500)) from None
            except Exception as exc:  # a bug: still a reason, and the server lives on
                raise ToolError(shown(f"internal error ({type(exc).__name__}: {exc})", 500)) from None

        return call

    for method in tool_methods(tools):
        server.tool()(answering(method))
    return server
