"""What the process running the engine is: one that ends when its command does.

The `convo-tui` command says so at its start (cli/main.py `run`); tests and
programs that call the engine in a process of their own do not. The store
then leaves an index it lets go in the kernel's page cache for the next
process (core/store/parking.py).
"""

from __future__ import annotations

import sys

_ending = False


def ending_process() -> None:
    """This process ends once it has let its indexes go."""
    global _ending
    _ending = True


def is_ending() -> bool:
    return _ending and sys.platform.startswith("linux")  # elsewhere Edge evicts nothing
