"""`convo-tui prune`: forget sessions whose source file is gone (the index is an archive until then)."""

from __future__ import annotations

import argparse
import sys

from convo_tui.cli.common import add_store_options, open_index


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("prune", help="remove sessions whose transcript file no longer exists")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_index(args) as library:
        removed = library.prune()
    sys.stdout.write(f"pruned {removed} session(s)\n")
    return 0
