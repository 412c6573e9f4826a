"""Handing a session to the world outside the app: the clipboard, the tool's own
resume command, the editor, an LLM context file, a page to share.

Functions of the app, called by the screens' session actions on the UI thread;
what may block (the clipboard's programs, writing the export) runs in a worker thread,
and every outcome is told with one notification that names the place or the reason.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.model import Session
from convo_tui.core.resume import plan as resume_plan
from convo_tui.tui.clipboard import copies_dir, copy_text

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


def copy_out(app: ConvoApp, text: str, what: str, *, file_name: str = "copy.txt") -> None:
    """OSC 52 to the terminal now; the system clipboard (or a file) off the UI thread, then the truth."""
    app.copy_to_clipboard(text)

    def copy() -> None:
        outcome = copy_text(text, copies_dir(app.settings.index_dir) / file_name)
        severity = "information" if outcome.copied_by else ("warning" if outcome.ok else "error")
        timeout = 3 if outcome.copied_by else 10
        message = outcome.message(what)
        if not outcome.copied_by and app.demo:
            message += " (demo: the folder goes when the app ends)"
        app.call_from_thread(app.notify, message, severity=severity, timeout=timeout)

    app.run_worker(copy, thread=True, group="copy", name="copy")


def resume(app: ConvoApp, session: Session) -> None:
    """Run the session's own resume command in its folder, the app suspended meanwhile;
    when it cannot run, copy `cd <folder> && <command>` and say why.

    What runs is what core/resume.py allows (an id of the tool's shape, an existing
    folder), said on the terminal before it starts; no shell."""
    plan = resume_plan(session)
    if plan.argv is None:
        app.notify(plan.refused or "No resume command", severity="warning", markup=False)
        return
    if not plan.runnable:
        app.notify(f"{plan.problem}: copying the command instead", severity="warning", markup=False)
        copy_resume(app, session)
        return
    try:
        with app.suspend():
            print(plan.announce(), flush=True)
            subprocess.run(plan.argv, cwd=plan.cwd, check=False)
    except OSError as exc:
        app.notify(f"Could not run {plan.argv[0]}: {exc.strerror or exc}; copying the command", severity="error", markup=False)
        copy_resume(app, session)
    except Exception as exc:  # SuspendNotSupported (textual-web, tests): the command is still useful
        app.notify(f"Cannot suspend here ({type(exc).__name__}): copying the command", severity="warning")
        copy_resume(app, session)


def copy_resume(app: ConvoApp, session: Session) -> None:
    plan = resume_plan(session)
    line = plan.shell_line()
    if line is None:
        app.notify(plan.refused or "No resume command", severity="warning", markup=False)
        return
    copy_out(app, line, "the resume command", file_name="resume.sh")


def edit_source(app: ConvoApp, path: str) -> None:
    """The transcript in `$VISUAL` / `$EDITOR`, as a read-only copy: the source is
    the assistant's (it may still be appending to it) and is never written here.
    The copy is made in a worker (a transcript may be hundreds of MB), then the
    editor runs with the app suspended."""
    if not path or not Path(path).exists():
        app.notify("The source file no longer exists (the index keeps its copy)", severity="warning")
        return
    source = Path(path).absolute()
    if source.is_dir():  # a thread folder: open its messages file
        source = next(iter(sorted(source.glob("*.json"))), source)
    folder = copies_dir(app.settings.index_dir) / "sources"

    def copy() -> None:
        try:
            target = read_only_copy(source, folder)
        except OSError as exc:
            message = f"Could not copy {source} to open it: {exc.strerror or exc}"
            app.call_from_thread(app.notify, message, severity="error", markup=False)
            return
        app.call_from_thread(_run_editor, app, target)

    app.run_worker(copy, thread=True, group="edit", name="edit")


def _run_editor(app: ConvoApp, target: Path) -> None:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        with app.suspend():
            subprocess.run([*shlex.split(editor), str(target)], check=False)
    except (OSError, ValueError) as exc:
        app.notify(f"Could not start {editor}: {exc}", severity="error", markup=False)
    except Exception as exc:  # SuspendNotSupported (textual-web, tests)
        app.notify(f"Cannot open an editor here: {type(exc).__name__}", severity="error")


def read_only_copy(source: Path, folder: Path) -> Path:
    """`source` copied to `folder/<its path's hash>/<its name>` (an editor still knows
    its type; two sessions' files of one name, as every Cline task's, stay apart),
    readable by the user only and writable by no one. The path is absolute, so a
    file named like an option (`-c...`) stays a path to the editor; the copy of an
    earlier open is replaced (it may be out of date)."""
    if source.is_dir():
        raise IsADirectoryError(errno.EISDIR, "a folder with no messages file", str(source))
    place = folder / hashlib.sha256(os.fsencode(source)).hexdigest()[:16]
    for made in (folder.parent, folder, place):
        made.mkdir(exist_ok=True, mode=0o700)  # it holds conversations: the user's only
    target = (place / source.name).absolute()
    target.unlink(missing_ok=True)
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(descriptor, "wb") as out, open(source, "rb") as data:
        shutil.copyfileobj(data, out, 1 << 20)
    os.chmod(target, 0o400)
    return target


def export_context(app: ConvoApp, session_id: str, question: str) -> None:
    """The LLM context of a session (and the query, as the question) to a file and the clipboard."""
    if app.library is None or not app.model_ready:
        app.notify("The index is not ready yet", severity="warning")
        return
    app.run_worker(partial(_export, app, session_id, question), thread=True, group="export", name="export")


def _export(app: ConvoApp, session_id: str, question: str) -> None:
    from convo_tui.core.context import DEFAULT_LLM_MODEL, context_for, request_body
    from convo_tui.core.search.query import parse_query

    library = app.library
    if library is None:
        return
    with app.background.running():  # the index stays open until this returns
        try:
            text = parse_query(question).text if question.strip() else ""
            messages = context_for(library, text, session_id=session_id)
            body = request_body(DEFAULT_LLM_MODEL, messages)
        except ConvoError as exc:
            app.call_from_thread(app.notify, f"Export failed: {exc}", severity="error")
            return
    for message in body["messages"]:
        message["content"] = app.redactor(message["content"])
    payload = json.dumps(body, ensure_ascii=False, indent=2)
    target = export_path(app.settings.index_dir, session_id)
    try:
        write_private(target, payload + "\n")
    except OSError as exc:
        app.call_from_thread(app.notify, f"Could not write {target}: {exc.strerror}", severity="error")
        return
    app.call_from_thread(app.copy_to_clipboard, payload)
    outcome = copy_text(payload, target)  # the file is already written: it is the fallback as well
    copied = f"copied to the {outcome.copied_by}" if outcome.copied_by else "no clipboard reachable"
    where = f"{target} (demo: removed when the app ends)" if app.demo else str(target)
    app.call_from_thread(app.notify, f"LLM context saved to {where}; {copied}", timeout=8)


def export_page(app: ConvoApp, session_id: str, fmt: str = "html") -> None:
    """Save the session as a page to share (core/export/), masked like the screen, under exports/."""
    if app.library is None:
        app.notify("The index is still opening", severity="warning")
        return
    app.run_worker(partial(_export_page, app, session_id, fmt), thread=True, group="export", name="export page")


def _export_page(app: ConvoApp, session_id: str, fmt: str) -> None:
    from convo_tui.core.cost.prices import price_table
    from convo_tui.core.export import export_file_name, render_export
    from convo_tui.core.redact import redact

    with app.background.running():  # the index stays open until this returns
        library = app.library
        if library is None:
            return
        try:
            session = library.session(session_id)
            notes = library.session_summary(session_id)
            # a page to share masks every secret, also one revealed on screen (v in the reader)
            shown: Callable[[str], str] = redact if app.settings.redact else str
            table = price_table(app.settings)
            text = render_export(session, fmt, table, shown, tags=notes.tags, description=notes.description)
        except ConvoError as exc:
            app.call_from_thread(app.notify, f"Export failed: {exc}", severity="error")
            return
    target = exports_dir(app.settings.index_dir) / export_file_name(session, fmt)
    try:
        write_private(target, text)
    except OSError as exc:
        app.call_from_thread(app.notify, f"Could not write {target}: {exc.strerror or exc}", severity="error")
        return
    kind = {"html": "an HTML page", "md": "Markdown"}.get(fmt, fmt)
    where = f"{target} (demo: removed when the app ends)" if app.demo else str(target)
    app.call_from_thread(app.notify, f"Session saved as {kind}: {where}", timeout=8)


def exports_dir(index_dir: Path) -> Path:
    """Beside the index folder (README "Privacy"): context exports and session pages."""
    return Path(index_dir).parent / "exports"


def write_private(target: Path, text: str) -> None:
    """Readable by the user only: an export holds the conversation."""
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(target, 0o600)


def export_path(index_dir: Path, session_id: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in session_id)[:40]
    return exports_dir(index_dir) / f"context-{safe}.json"
