"""`convo-tui session ...`: the user's edits of one conversation, and resuming it.

Rename, describe, star, tag, per-session settings, delete from the index and
restore. Edits live beside the index (core/annotations.py) and survive
re-indexing; the source transcript is never touched. `resume` runs the
session's own tool in its folder (core/resume.py), or says why it cannot and
prints the command.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from convo_tui.cli.common import add_store_options, open_index
from convo_tui.core.errors import ConvoError
from convo_tui.core.redact import display
from convo_tui.core.unicode import visible_controls

ID_HELP = "the session's id, or its first 8 or more characters"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "session",
        help="rename, describe, star, tag, configure or delete a session",
        description="Edit one session. Edits are kept beside the index and survive re-indexing; source files are never changed.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    parent = argparse.ArgumentParser(add_help=False)
    add_store_options(parent, model=False)

    rename = actions.add_parser(
        "rename", parents=[parent], help="give the session your own title (an empty title restores the original)"
    )
    rename.add_argument("id", help=ID_HELP)
    rename.add_argument("title")
    rename.set_defaults(func=_rename)

    describe = actions.add_parser("describe", parents=[parent], help="set the session's description")
    describe.add_argument("id", help=ID_HELP)
    describe.add_argument("text")
    describe.set_defaults(func=_describe)

    for name, starred in (("star", True), ("unstar", False)):
        star = actions.add_parser(name, parents=[parent], help=f"{name} the session")
        star.add_argument("id", help=ID_HELP)
        star.set_defaults(func=_star, starred=starred)

    tag = actions.add_parser("tag", parents=[parent], help="add tags to the session (or remove them with --remove)")
    tag.add_argument("id", help=ID_HELP)
    tag.add_argument("tags", nargs="+", metavar="TAG")
    tag.add_argument("--remove", action="store_true", help="remove these tags instead")
    tag.set_defaults(func=_tag)

    settings = actions.add_parser("settings", parents=[parent], help="show or change how the app displays the session")
    settings.add_argument("id", help=ID_HELP)
    settings.add_argument("--hide-thinking", dest="hide_thinking", action="store_true", default=None)
    settings.add_argument("--show-thinking", dest="hide_thinking", action="store_false")
    settings.add_argument("--hide-tools", dest="hide_tools", action="store_true", default=None, help="hide tool calls")
    settings.add_argument("--show-tools", dest="hide_tools", action="store_false")
    settings.set_defaults(func=_settings)

    delete = actions.add_parser("delete", parents=[parent], help="remove the session from the index (the source file is kept)")
    delete.add_argument("id", help=ID_HELP)
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(func=_delete)

    restore = actions.add_parser("restore", parents=[parent], help="undo a delete: the next index run brings the session back")
    restore.add_argument("id", help=ID_HELP)
    restore.set_defaults(func=_restore)

    resume = actions.add_parser(
        "resume",
        parents=[parent],
        help="continue the session in its own tool (claude --resume, codex resume...), in its folder",
        description=(
            "Run the session's own resume command in the session's folder. When it cannot run here (the tool has "
            "none, the folder is gone, the program is not on PATH) the reason goes to stderr and the command to stdout."
        ),
    )
    resume.add_argument("id", help=ID_HELP)
    resume.add_argument("--print", action="store_true", help="only print the command (`cd FOLDER && COMMAND`)")
    resume.set_defaults(func=_resume)


def _rename(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        summary = engine.rename_session(args.id, args.title)
    print(f"{visible_controls(summary.id)}: title is now {visible_controls(repr(summary.title))}")
    return 0


def _describe(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        summary = engine.describe_session(args.id, args.text)
    told = "description set" if summary.description else "description cleared"
    print(f"{visible_controls(summary.id)}: {told}")
    return 0


def _star(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        summary = engine.star_session(args.id, args.starred)
    print(f"{visible_controls(summary.id)}: {'starred' if summary.starred else 'not starred'}")
    return 0


def _tag(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        summary = engine.tag_session(args.id, args.tags, remove=args.remove)
    print(f"{visible_controls(summary.id)}: tags {', '.join(summary.tags) if summary.tags else '(none)'}")
    return 0


def _settings(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        if args.hide_thinking is None and args.hide_tools is None:
            values = engine.session_settings(args.id)
        else:
            values = engine.set_session_settings(args.id, hide_thinking=args.hide_thinking, hide_tools=args.hide_tools)
    for key, value in values.items():
        print(f"{key} = {'true' if value else 'false'}")
    return 0


def _delete(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        summary = engine.session_summary(args.id)
        if not args.yes:
            if not sys.stdin.isatty():
                raise ConvoError(f"not deleting {summary.id}: stdin is not a terminal, pass --yes to confirm")
            answer = input(
                f"Delete {display(summary.title)!r} ({summary.message_count} messages) from the index? "
                f"The source file {visible_controls(summary.path)} is kept. [y/N] "
            )
            if answer.strip().lower() not in {"y", "yes"}:
                print("not deleted")
                return 1
        engine.delete_session(summary.id)
    print(
        f"{visible_controls(summary.id)}: deleted from the index (source file kept; `convo-tui session restore {visible_controls(summary.id)}` to undo)"
    )
    return 0


def _restore(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        restored = engine.restore_session(args.id)
    if not restored:
        raise ConvoError(f"session {args.id} was not deleted")
    print(f"{visible_controls(args.id)}: restored; the next `convo-tui index` brings it back")
    return 0


def _resume(args: argparse.Namespace) -> int:
    from convo_tui.core.errors import shown
    from convo_tui.core.resume import plan

    with open_index(args, read_only=True) as engine:
        session = engine.session(args.id)
    # The index is let go before the tool runs: the session may last for hours.
    resume = plan(session)
    line = resume.shell_line()
    if args.print or not resume.runnable:
        if resume.problem is not None:
            told = "" if line is None else "; run it yourself:"
            why = resume.problem[:1].lower() + resume.problem[1:]
            print(f"convo-tui: cannot resume {shown(session.id, 60)} here: {why}{told}", file=sys.stderr)
        if line is not None:
            print(line)
        return 0 if args.print and line is not None else 1
    assert resume.argv is not None
    print(resume.announce(), file=sys.stderr, flush=True)
    return subprocess.run(resume.argv, cwd=resume.cwd, check=False).returncode
