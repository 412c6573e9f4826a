"""`convo-tui context QUESTION`: the OpenAI request body for a question, as JSON."""

from __future__ import annotations

import argparse

from convo_tui.cli import json_lines
from convo_tui.cli.common import add_store_options, settings_from_args
from convo_tui.core.context import DEFAULT_LLM_MODEL, ChatMessage, request_body
from convo_tui.core.errors import ConvoError
from convo_tui.core.limits import MAX_COUNT
from convo_tui.core.redact import redact


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "context",
        help="print the LLM request body (OpenAI chat messages) for a question",
        description=(
            "Assemble the recent messages of a session and the most relevant past turns "
            "into an OpenAI Chat Completions request body and print it as JSON."
        ),
    )
    parser.add_argument("question", help="the question to ask the model")
    parser.add_argument("--session", metavar="ID", help="session whose recent messages and memory to use")
    parser.add_argument("--recent", type=_count, default=10, metavar="N", help="recent messages of the session (default 10)")
    parser.add_argument("--refs", type=_count, default=5, metavar="K", help="semantic references from the index (default 5)")
    parser.add_argument("--all-sessions", action="store_true", help="search references in every session, not only --session")
    parser.add_argument("--preferences", metavar="TEXT", help="user preferences to include")
    parser.add_argument("--system", metavar="TEXT", help="system message (default: a short built-in instruction)")
    parser.add_argument(
        "--llm-model", default=DEFAULT_LLM_MODEL, metavar="NAME", help=f"model name in the body (default {DEFAULT_LLM_MODEL})"
    )
    parser.add_argument("--split", action="store_true", help="send the context and the question as two user messages")
    parser.add_argument(
        "--no-redact", action="store_true", help="keep secrets (API keys, tokens, passwords) in clear; masked by default"
    )
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def _count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if not 0 <= number <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {MAX_COUNT:,}: {value}")
    return number


def run(args: argparse.Namespace) -> int:
    from convo_tui.cli.common import open_index

    if not args.question.strip():  # as `search ""`: a request with no question asks the model nothing
        raise ConvoError("the question is empty: say what to ask the model")
    redacting = settings_from_args(args).redact and not args.no_redact
    with open_index(args, read_only=True) as engine:
        messages = engine.context(
            args.question,
            session_id=args.session,
            recent=args.recent,
            refs=args.refs,
            all_sessions=args.all_sessions,
            preferences=args.preferences,
            system=args.system,
            split=args.split,
        )
    if redacting:  # an export is about to leave the machine: mask what was pasted by mistake
        messages = [ChatMessage(m.role, redact(m.content)) for m in messages]
    print(json_lines.dumps(request_body(args.llm_model, messages), indent=2))
    return 0
