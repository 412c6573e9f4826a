"""Actions shared by the search and reader screens: open, copy, edit, export."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.model import Session
from convo_tui.tui.card_messages import (
    CardClosed,
    CardCopy,
    CardCopyId,
    CardCopyResume,
    CardEdit,
    CardExpand,
    CardExport,
    CardMove,
    CardOpen,
    CardResume,
)
from convo_tui.tui.clipboard import copies_dir, copy_text
from convo_tui.tui.markdown import session_markdown, turn_markdown
from convo_tui.tui.messages import OpenReader
from textual import work

if TYPE_CHECKING:
    from convo_tui.core.hits import Hit
    from convo_tui.tui.app import ConvoApp
    from convo_tui.tui.widgets.card import ResultCard


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

    async def on_card_expand(self, event: CardExpand) -> None:
        event.stop()
        session = self.load_session(event.hit.session_id)
        if session is not None:
            mounting = event.card.expand_with(session)
            if mounting is not None:
                await mounting  # its messages composed: their rows can be found
                self.card_expanded(event.card)

    def card_expanded(self, card: ResultCard) -> None:
        """A card shows its messages now (the search screen scrolls it to the match)."""
        card.scroll_visible(animate=False)

    def on_card_closed(self, event: CardClosed) -> None:
        event.stop()
        self.card_closed()

    def card_closed(self) -> None:
        """An open card was closed (the search screen overrides it)."""

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
        """Run the session's own resume command in its working directory, the app suspended meanwhile."""
        session = self.load_session(session_id)
        if session is None:
            return
        if not session.resume:
            self.app.notify(f"No resume command for {session.source}", severity="warning")
            return
        cwd = session.cwd
        if cwd and not Path(cwd).is_dir():
            self.app.notify(f"The session's folder {cwd} is gone: copying the command instead", severity="warning")
            self.copy_resume(session)
            return
        try:
            with self.app.suspend():
                subprocess.run(session.resume, cwd=cwd or None, check=False)
        except OSError as exc:
            self.app.notify(f"Could not run {session.resume[0]}: {exc.strerror or exc}", severity="error")
            self.copy_resume(session)
        except Exception as exc:  # SuspendNotSupported (textual-web, tests): the command is still useful
            self.app.notify(f"Cannot suspend here ({type(exc).__name__}): copying the command", severity="warning")
            self.copy_resume(session)

    def copy_resume(self, session: Session) -> None:
        if not session.resume:
            self.app.notify(f"No resume command for {session.source}", severity="warning")
            return
        command = shlex.join(session.resume)
        if session.cwd:
            command = f"cd {shlex.quote(session.cwd)} && {command}"
        self.copy_text(command, "the resume command", file_name="resume.sh")

    def edit_source(self, path: str) -> None:
        if not path or not Path(path).exists():
            self.app.notify("The source file no longer exists (the index keeps its copy)", severity="warning")
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        target = Path(path)
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


def export_path(index_dir: Path, session_id: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in session_id)[:40]
    return Path(index_dir).parent / "exports" / f"context-{safe}.json"
