"""`?` / F1: the keys of the screen underneath, as a table."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static


class KeyTable(DataTable[str]):
    """The table of keys: a row at a time, so Home and End go to its first and last
    row (DataTable's own go to the first and last column, and did nothing here)."""

    BINDINGS = [
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1,question_mark", "close", "Close", id="help.close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def _rows(self, under: Screen) -> list[tuple[str, str, str]]:
        rows: dict[str, tuple[str, str, str]] = {}
        for _key, active in under.active_bindings.items():
            binding = active.binding
            if not binding.description or not binding.id:
                continue  # widget-internal keys (text editing) would drown ours
            display = self.app.get_key_display(binding)
            name = binding.description
            keys, _, ident = rows.get(name, ("", "", binding.id or ""))
            keys = f"{keys} {display}".strip() if display not in keys.split() else keys
            rows[name] = (keys, name, ident)
        rows.setdefault("Command palette", ("ctrl+p", "Command palette", ""))
        rows.setdefault("Quit", ("ctrl+q", "Quit", ""))
        listed = sorted(rows.values(), key=lambda row: row[1].lower())
        # Keys a screen handles beyond its bindings (Enter on a card, Tab in it), first: they are how it is used.
        extra = [row for row in getattr(under, "HELP_KEYS", []) if row[1] not in rows]
        return [*extra, *listed]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("Keys on this screen (remap by binding id: [keys] in the config file)", id="help-title", markup=False)
            table = KeyTable(id="help-table", cursor_type="row", zebra_stripes=True)
            table.add_columns("Key", "Action", "Binding id")
            table.add_rows(self._rows(self.under))
            yield table
            note = getattr(self.under, "HELP_NOTE", "")
            if note:
                yield Static(note, id="help-note", markup=False)
            yield Static("Escape closes", id="help-foot")

    def action_close(self) -> None:
        self.dismiss(None)
