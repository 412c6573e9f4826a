"""`convo-tui` entry point: with no command it starts the app.

Each command lives in its own module under cli/ exposing
`register(subparsers)`, which adds a parser whose `func(args) -> int` runs it;
a command line imports only the module of the command it runs (`command_of`).
Expected problems (`ConvoError`) print one line to stderr and exit non-zero.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from convo_tui.cli.parsing import CommandParser, ProgramParser
from convo_tui.core.errors import ConvoError
from convo_tui.core.unicode import visible_controls

from convo_tui import __version__

# Command modules, in the order `--help` lists them.
COMMANDS = [
    "show",
    "index",
    "search",
    "sessions",
    "stats",
    "export",
    "prune",
    "sources",
    "archive",
    "context",
    "session",
    "serve",
    "mcp",
]


# Global options that take a value: the word after them is not the command.
_VALUED = ("--config", "--index-dir")


def command_of(argv: Sequence[str]) -> str | None:
    """The command `argv` runs (None: the app, `--help`, `--version`, or a word that is no command)."""
    words = iter(argv)
    for word in words:
        if word.startswith("--") and "=" not in word and any(option.startswith(word) for option in _VALUED):
            next(words, None)  # argparse takes `--index` for `--index-dir`
        elif word in ("-h", "--help", "--version"):
            return None
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Every command's parser; with `argv`, only the one it runs when it names one:
    importing all of them was 37 ms of each command, a third of a served search."""
    parser = ProgramParser(
        prog="convo-tui",
        description="Search and browse your past conversations with AI coding assistants.",
    )
    parser.add_argument("--version", action="version", version=f"convo-tui {__version__}")
    parser.add_argument("--config", metavar="FILE", help="settings file (default: the platform config dir; env CONVO_TUI_CONFIG)")
    parser.add_argument("--index-dir", metavar="DIR", help="index folder (env CONVO_TUI_INDEX_DIR)")
    parser.add_argument(
        "--demo", action="store_true", help="start the app on the bundled demo corpus, indexed into a temporary folder"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    only = command_of(argv) if argv is not None else None
    for name in [only] if only else COMMANDS:
        importlib.import_module(f"convo_tui.cli.{name}").register(subparsers)
    return parser


# The commands that may index or hold the index for long (None: the app).
LONG_RUNNING = frozenset({None, "index", "serve", "mcp"})


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(words)
    args = parser.parse_args(words)  # a mistake is reported by its command, with a hint (cli/parsing.py)
    if args.command in LONG_RUNNING:
        from convo_tui.core.heap import share_heap_arenas

        share_heap_arenas()  # before any thread allocates: its threads share two malloc arenas (core/heap.py)
    try:
        if args.command is None:
            from convo_tui.cli.app import run_app

            return run_app(args)
        return int(args.func(args) or 0)
    except ConvoError as exc:  # a value it quotes (an id, a path) is spelled out, never obeyed by the terminal
        print(f"convo-tui: {visible_controls(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("convo-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a full disk met outside the engine (manifest, notes): one line too
        from convo_tui.core.store.space import disk_full, is_disk_full

        if not is_disk_full(exc):
            raise
        folder = os.path.dirname(os.fsdecode(exc.filename)) if exc.filename else os.getcwd()
        print(f"convo-tui: {disk_full(Path(folder))}", file=sys.stderr)
        return 1


def run() -> None:
    """The `convo-tui` command: `main` in a process of its own, which ends when the
    command does, so the index it lets go may stay in the kernel's page cache for
    the next command (core/store/parking.py)."""
    from convo_tui.core.process import ending_process

    ending_process()
    sys.exit(main())


if __name__ == "__main__":
    run()
