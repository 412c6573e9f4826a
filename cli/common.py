"""Settings from the command line: config file, then --index-dir / --model / --qdrant-*.

Subcommands add the store options with `add_store_options`; their defaults are
SUPPRESS so a value given before the command (`convo-tui --index-dir D index`)
is not overwritten by the subcommand's own default.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from convo_tui.core.engine import Engine
from convo_tui.core.model import Session
from convo_tui.core.settings import Settings

API_KEY_ENV = "QDRANT_API_KEY"


def add_store_options(parser: argparse.ArgumentParser, *, model: bool = True) -> None:
    hide = argparse.SUPPRESS
    parser.add_argument("--index-dir", metavar="DIR", default=hide, help="index folder (env CONVO_TUI_INDEX_DIR)")
    if model:
        parser.add_argument(
            "--model",
            metavar="NAME",
            default=hide,
            help='dense model: "auto" (default: multilingual-e5-small for a history with Chinese, Japanese or Korean, else the bundled all-MiniLM-L6-v2 int8), "multilingual-e5-small", or a fastembed model name',
        )
    parser.add_argument("--qdrant-url", metavar="URL", default=hide, help="use a Qdrant server instead of the embedded index")
    parser.add_argument("--qdrant-api-key", metavar="KEY", default=hide, help=f"API key for --qdrant-url (env {API_KEY_ENV})")


def settings_from_args(args: argparse.Namespace) -> Settings:
    settings = Settings.load(getattr(args, "config", None))
    if settings.keys:  # the app's file: a [keys] typo is an error here too
        from convo_tui.tui.binding_ids import declared_binding_ids

        settings.check_keys(declared_binding_ids())
    if getattr(args, "index_dir", None):
        settings.index_dir = Path(args.index_dir).expanduser()
    if getattr(args, "model", None):
        settings.model = args.model
    if getattr(args, "qdrant_url", None):
        settings.qdrant_url = args.qdrant_url
    key = getattr(args, "qdrant_api_key", None) or os.environ.get(API_KEY_ENV)
    if key:
        settings.qdrant_api_key = key
    return settings


@contextmanager
def open_index(
    args: argparse.Namespace,
    *,
    read_only: bool = False,
    allow_mismatch: bool = False,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[Engine]:
    """The index for the command line's settings: its holder's if another convo-tui
    process has it open (the app, `serve`, `mcp`, an `index` run), else opened here
    (this process then serves the others until the command ends; a reading
    command then starts a holder for the next ones: cli/keep_warm.py). `on_wait`
    is told once, in one line, when another process is still opening the index."""
    from convo_tui.core.holder.access import open_engine

    settings = settings_from_args(args)
    with open_engine(settings, read_only=read_only, allow_mismatch=allow_mismatch, on_wait=on_wait) as engine:
        yield engine
    if read_only:
        from convo_tui.cli import keep_warm

        if keep_warm.wanted(settings):
            keep_warm.start(settings)  # the index let go: it holds it for the next commands


def local_time(stamp: datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """The index keeps UTC; a list read at a glance shows the reader's own zone."""
    return stamp.astimezone().strftime(fmt) if stamp else "-"


MIN_PREFIX = 8


def resolve_session_id(engine: Engine, ident: str) -> str:
    """A session's whole id from its id or a unique id prefix of MIN_PREFIX characters or more."""
    from convo_tui.core.errors import ConvoError

    try:
        return engine.session_summary(ident).id
    except ConvoError:
        if len(ident) < MIN_PREFIX:
            raise
    matches = [summary.id for summary in engine.sessions() if summary.id.startswith(ident)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(sorted(matches)[:3]) + (", …" if len(matches) > 3 else "")
        raise ConvoError(f"'{ident}' starts {len(matches)} session ids ({shown}): give more of the id")
    raise ConvoError(f"no session '{ident}' in the index (no id starts with it either)")


def find_session(engine: Engine, ident: str) -> Session:
    """An indexed session by its id or by a unique id prefix (see resolve_session_id)."""
    return engine.session(resolve_session_id(engine, ident))
