"""Actions shared by the search, reader and sessions screens: open, copy, edit, export."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.core.cost.prices import price_table
from convo_tui.core.errors import ConvoError
from convo_tui.core.model import Session
from convo_tui.core.resume import plan as resume_plan
from convo_tui.tui.card_messages import (
    CardCopy,
    CardCopyId,
    CardCopyResume,
    CardEdit,
    CardExpand,
    CardExport,
    CardExportPage,
    CardMove,
    CardOpen,
    CardResume,
)
from convo_tui.tui.clipboard import copies_dir, copy_text
from convo_tui.tui.markdown import session_markdown, turn_markdown
from convo_tui.tui.messages import OpenReader
from convo_tui.tui.render import session_cost
from textual import work

if TYPE_CHECKING:
    from convo_tui.core.hits import Hit
    from convo_tui.tui.app import ConvoApp


class CardActions:
    """Mixed into a Screen; every method reports problems with notify(), never raises.

    Result cards post their requests (tui/card_messages.py); the handlers below
    answer them with the screen's own query. (Named handlers, not @on: Textual
    registers @on only on MessagePump classes, and this is a plain mixin.)
    """

    app: ConvoApp

    def current_query(self) -> str:
        """The query the screen's results answer (the search screen overrides it)."""
        return ""

    def move_focus(self, card: object, step: int) -> None:
        """Focus the card `step` away (screens that list cards override it)."""

    def on_card_expand(self, event: CardExpand) -> None:
        event.stop()
        session = self.load_session(event.hit.session_id)
        if session is not None:
            event.card.expand_with(session, session_cost(session, price_table(self.app.settings)))
            event.card.scroll_visible(animate=False)

    def on_card_open(self, event: CardOpen) -> None:
        event.stop()
        self.open_reader(event.hit.session_id, event.hit.turn_index, self.current_query())

    def on_card_copy(self, event: CardCopy) -> None:
        event.stop()
        self.copy_turn(event.hit)

    def on_card_edit(self, event: CardEdit) -> None:
        event.stop()
        self.edit_source(event.hit.path)

    def on_card_export(self, event: CardExport) -> None:
        event.stop()
        self.export_context(event.hit.session_id, self.current_query())

    def on_card_export_page(self, event: CardExportPage) -> None:
        event.stop()
        self.export_page(event.hit.session_id, event.fmt)

    def on_card_resume(self, event: CardResume) -> None:
        event.stop()
        self.resume_session(event.hit.session_id)

    def on_card_copy_resume(self, event: CardCopyResume) -> None:
        event.stop()
        session = self.load_session(event.hit.session_id)
        if session is not None:
            self.copy_resume(session)

    def on_card_copy_id(self, event: CardCopyId) -> None:
        event.stop()
        self.copy_text(event.hit.session_id, "the session id")

    def on_card_move(self, event: CardMove) -> None:
        event.stop()
        self.move_focus(event.card, event.step)

    def load_session(self, session_id: str) -> Session | None:
        library = self.app.library
        if library is None:
            self.app.notify("The index is still opening", severity="warning")
            return None
        try:
            return library.session(session_id)
        except ConvoError as exc:
            self.app.notify(str(exc), severity="error")
            return None

    def open_reader(self, session_id: str, turn_index: int | None, query: str) -> None:
        self.app.post_message(OpenReader(session_id, turn_index, query))

    def copy_turn(self, hit: Hit) -> None:
        session = self.load_session(hit.session_id)
        if session is not None:
            text = turn_markdown(session, hit.turn_index, hit.message_ids, self.app.redactor)
            self.copy_text(text, "the turn as Markdown", file_name="turn.md")

    def copy_session(self, session: Session) -> None:
        self.copy_text(session_markdown(session, self.app.redactor), "the session as Markdown", file_name="session.md")

    def copy_text(self, text: str, what: str, *, file_name: str = "copy.txt") -> None:
        """OSC 52 to the terminal now; the system clipboard (or a file) off the UI thread, then the truth."""
        self.app.copy_to_clipboard(text)
        self._copy_off_thread(text, what, file_name)

    @work(thread=True, group="copy")
    def _copy_off_thread(self, text: str, what: str, file_name: str) -> None:
        outcome = copy_text(text, copies_dir(self.app.settings.index_dir) / file_name)
        severity = "information" if outcome.copied_by else ("warning" if outcome.ok else "error")
        timeout = 3 if outcome.copied_by else 10
        self.app.call_from_thread(self.app.notify, outcome.message(what), severity=severity, timeout=timeout)

    def resume_session(self, session_id: str) -> None:
        """Run the session's own resume command in its folder, the app suspended meanwhile.

        What runs is what core/resume.py allows (an id of the tool's shape, an
        existing folder), said on the terminal before it starts; no shell."""
        session = self.load_session(session_id)
        if session is None:
            return
        plan = resume_plan(session)
        if plan.argv is None:
            self.app.notify(plan.refused or "No resume command", severity="warning", markup=False)
            return
        if not plan.runnable:
            self.app.notify(f"{plan.problem}: copying the command instead", severity="warning", markup=False)
            self.copy_resume(session)
            return
        try:
            with self.app.suspend():
                print(plan.announce(), flush=True)
                subprocess.run(plan.argv, cwd=plan.cwd, check=False)
        except OSError as exc:
            self.app.notify(f"Could not run {plan.argv[0]}: {exc.strerror or exc}", severity="error", markup=False)
            self.copy_resume(session)
        except Exception as exc:  # SuspendNotSupported (textual-web, tests): the command is still useful
            self.app.notify(f"Cannot suspend here ({type(exc).__name__}): copying the command", severity="warning")
            self.copy_resume(session)

    def copy_resume(self, session: Session) -> None:
        line = resume_plan(session).shell_line()
        if line is None:
            self.app.notify(resume_plan(session).refused or "No resume command", severity="warning", markup=False)
            return
        self.copy_text(line, "the resume command", file_name="resume.sh")

    def edit_source(self, path: str) -> None:
        if not path or not Path(path).exists():
            self.app.notify("The source file no longer exists (the index keeps its copy)", severity="warning")
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        target = Path(path).absolute()  # a file named like an option (`-c...`) stays a path to the editor
        if target.is_dir():  # a thread folder: open its messages file
            target = next(iter(sorted(target.glob("*.json"))), target)
        try:
            with self.app.suspend():
                subprocess.run([*shlex.split(editor), str(target)], check=False)
        except (OSError, ValueError) as exc:
            self.app.notify(f"Could not start {editor}: {exc}", severity="error")
        except Exception as exc:  # SuspendNotSupported (textual-web, tests)
            self.app.notify(f"Cannot open an editor here: {type(exc).__name__}", severity="error")

    def export_context(self, session_id: str, question: str) -> None:
        if self.app.library is None or not self.app.model_ready:
            self.app.notify("The index is not ready yet", severity="warning")
            return
        self._export_context(session_id, question)

    @work(thread=True, group="export")
    def _export_context(self, session_id: str, question: str) -> None:
        from convo_tui.core.context import DEFAULT_LLM_MODEL, context_for, request_body
        from convo_tui.core.search.query import parse_query

        app = self.app
        assert app.library is not None  # checked before the worker started
        try:
            text = parse_query(question).text if question.strip() else ""
            messages = context_for(app.library, text, session_id=session_id)
            body = request_body(DEFAULT_LLM_MODEL, messages)
        except ConvoError as exc:
            app.call_from_thread(app.notify, f"Export failed: {exc}", severity="error")
            return
        for message in body["messages"]:
            message["content"] = app.redactor(message["content"])
        payload = json.dumps(body, ensure_ascii=False, indent=2)
        target = export_path(app.settings.index_dir, session_id)
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            target.write_text(payload + "\n", encoding="utf-8")
            os.chmod(target, 0o600)
        except OSError as exc:
            app.call_from_thread(app.notify, f"Could not write {target}: {exc.strerror}", severity="error")
            return
        app.call_from_thread(app.copy_to_clipboard, payload)
        outcome = copy_text(payload, target)  # the file is already written: it is the fallback as well
        copied = f"copied to the {outcome.copied_by}" if outcome.copied_by else "no clipboard reachable"
        app.call_from_thread(app.notify, f"LLM context saved to {target} ({copied})", timeout=6)

    def export_page(self, session_id: str, fmt: str = "html") -> None:
        """Save the session as a page to share (core/export/), masked like the screen, under exports/."""
        if self.app.library is None:
            self.app.notify("The index is still opening", severity="warning")
            return
        self._export_page(session_id, fmt)

    @work(thread=True, group="export")
    def _export_page(self, session_id: str, fmt: str) -> None:
        from convo_tui.core.cost.prices import price_table
        from convo_tui.core.export import export_file_name, render_export
        from convo_tui.core.redact import redact

        app = self.app
        with app.background.running():  # the index stays open until this returns
            library = app.library
            if library is None:
                return
            try:
                session = library.session(session_id)
                # a page to share masks every secret, also one revealed on screen (v in the reader)
                shown: Callable[[str], str] = redact if app.settings.redact else str
                text = render_export(session, fmt, price_table(app.settings), shown)
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
        app.call_from_thread(app.notify, f"Session saved as {kind}: {target}", timeout=8)


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
