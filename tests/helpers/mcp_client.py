"""The official MCP SDK's stdio client, as an agent drives `convo-tui mcp`.

The SDK is imported when a test connects, not when a worker collects the suite:
it takes 1.6 s to import, and every worker collects every module."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.client.session import ClientSession


@asynccontextmanager
async def mcp_session(command: str, args: list[str], env: dict[str, str], cwd: str | None = None) -> AsyncIterator[ClientSession]:
    """A client session with the server `command args` started over stdio (not yet initialized)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
    # The server's stderr goes where the worker's does: the SDK's default, sys.stderr
    # when it is imported, is pytest's capture here, which has no file descriptor.
    async with stdio_client(params, errlog=sys.__stderr__) as (read, write), ClientSession(read, write) as session:
        yield session
