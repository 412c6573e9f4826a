"""The Textual app: opens the index at once, loads the model and indexes in the background.

Nothing heavy is imported on the UI thread before the first paint: the
library module (Qdrant, fastembed, onnx) is imported inside a worker thread.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.core.errors import ConvoError
from convo_tui.core.settings import SEARCH_MODES, Settings
from convo_tui.tui.app_sessions import SessionEvents
from convo_tui.tui.background import BackgroundThreads
from convo_tui.tui.commands import ConvoCommands
from convo_tui.tui.control_filter import NoControlCharacters
from convo_tui.tui.index_following import IndexFollowing
from convo_tui.tui.index_state import IndexState
from convo_tui.tui.messages import (
    BackgroundFailed,
    LibraryOpened,
    LossWarnings,
    ModelLoaded,
)
from convo_tui.tui.reveal import Redactor
from convo_tui.tui.screens.help import HelpScreen
from convo_tui.tui.screens.search import SearchScreen
from convo_tui.tui.session_filter import BrowserPrefs
from convo_tui.tui.session_messages import SessionsChanged
from convo_tui.tui.system_commands import SystemCommands
from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.filter import LineFilter

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine

MODES = SEARCH_MODES
# Seconds between two looks at the index when this app is not the one indexing it
# (`serve` or an `index` run served by the app may be adding sessions and vectors).
POLL_EVERY = 3.0
# Under this many rows the app is "short" (cards on three rows, no meta line), under
# this many columns "narrow" (no progress bar, no preview pane beside the compact list).
SHORT_ROWS = 32
NARROW_COLUMNS = 100
STYLES = Path(__file__).parent / "styles"


class ConvoApp(SessionEvents, IndexFollowing, SystemCommands, App):
    TITLE = "convo-tui"
    CSS_PATH = [
        STYLES / "app.tcss",
        STYLES / "card.tcss",
        STYLES / "reader.tcss",
        STYLES / "sessions.tcss",
        STYLES / "stats.tcss",
    ]
    COMMANDS = App.COMMANDS | {ConvoCommands}
    # The keys that change the screen are the app's first (priority): handled where the
    # app reads them, so the keys typed right after them, in the same burst, already
    # go to the new screen instead of the widget focused before it (tmux, session 32).
    BINDINGS = [
        Binding("f1", "help", "Help", priority=True, id="app.help"),
        Binding("question_mark", "help", "Help", show=False, id="app.help_alt"),
        Binding("f2", "cycle_mode", "Mode", id="app.mode"),
        Binding("f3", "sessions", "Sessions", priority=True, id="app.sessions"),
        Binding("f7", "stats", "Stats", show=False, priority=True, id="app.stats"),  # in F1 and the palette
        Binding("f5", "reindex", "Re-index", show=False, id="app.reindex"),  # in F1 and the palette
        Binding("ctrl+q", "quit", "Quit", priority=True, id="app.quit"),  # the footer fits 80 columns with it
    ]

    _no_controls = NoControlCharacters()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then the guard against terminal control in what is drawn."""
        return [*super().get_line_filters(), self._no_controls]

    def __init__(
        self, settings: Settings, *, library: Engine | None = None, demo: bool = False, index_on_start: bool = True
    ) -> None:
        super().__init__()
        self.settings = settings
        self.library: Engine | None = library
        self._owns_library = library is None
        self.demo = demo
        self.index_on_start = index_on_start
        self.mode: str = settings.search_mode if settings.search_mode in MODES else "hybrid"
        self.model_ready = library is not None and library.model_info().ready
        self.indexing = False
        self.quitting = False  # see IndexFollowing
        self.cancel_indexing = threading.Event()  # set when the app exits: every worker stops early
        self.background = BackgroundThreads()  # the threads the index must outlive
        self.browser = BrowserPrefs()
        self.projects: list[tuple[str, int]] = []  # for the palette, read in a worker, never on a keystroke
        self.tags: list[tuple[str, int]] = []  # the same, of the tags the user gave sessions
        self.index_state = IndexState()  # which phase runs, what search by meaning covers
        self._followed = 0.0  # when the screens last followed a change of the index
        self._follow_timer: Any = None  # a follow waiting out FOLLOW_EVERY
        self.redactor = Redactor(enabled=settings.redact)
        if demo:
            self.sub_title = "demo corpus"

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Textual's notify, plain text by default: messages carry paths, ids and
        titles from transcripts, where `[/x]` would be a markup error and
        `[@click=...]` a link to an action."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def action_help_quit(self) -> None:
        """ctrl+c does not quit: say which key does, in plain text (Textual's own
        notice is markup, which this app's notify does not read)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return

    # -- start-up --------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        if self.settings.keys:
            self.set_keymap(self.settings.keys)
        self.push_screen(SearchScreen())
        self._fit(self.size.width, self.size.height)
        self.screen_change_signal.subscribe(self, self._screen_changed)
        if self.library is None:
            self._open_library()
        else:
            self.post_message(LibraryOpened())  # which starts indexing when the model is ready
            if not self.model_ready:
                self._load_model()

    @property
    def short(self) -> bool:
        """Whether the terminal is short (cards on three rows), as the last resize set
        the `-short` class: `size` is not yet the new one while a Resize is handled."""
        return self.has_class("-short")

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        self.set_class(height < SHORT_ROWS, "-short")
        self.set_class(width < NARROW_COLUMNS, "-narrow")
        for screen in self.screen_stack:
            if isinstance(screen, SearchScreen):
                screen.fit_cards()

    def _screen_changed(self, _screen: object) -> None:
        """A toast is about the screen it was said on: the next screen starts without them."""
        self.clear_notifications()

    @property
    def sessions_may_appear(self) -> bool:
        """Files are being read (or will be, once the model loads): lists may still grow."""
        return self.index_state.reading or (self.index_on_start and not self.model_ready)

    @property
    def search_screen(self) -> SearchScreen:
        return next(s for s in self.screen_stack if isinstance(s, SearchScreen))

    @work(thread=True, group="startup", name="open index")
    def _open_library(self) -> None:
        with self.background.running():
            try:
                from convo_tui.core.holder.access import attach

                # The holder's library when another convo-tui has the index open; else ours (and we serve).
                library = attach(self.settings)
            except ConvoError as exc:
                self.post_message(BackgroundFailed("open the index", str(exc)))
                return
            if self.cancel_indexing.is_set():  # quit while it opened: the app will not close it
                library.close()
                return
            self.library = library
            self.post_message(LibraryOpened())
            self._load_model_now()

    @work(thread=True, group="startup", name="load model")
    def _load_model(self) -> None:
        with self.background.running():
            self._load_model_now()

    def _load_model_now(self) -> None:
        assert self.library is not None
        try:
            self.library.load_model()  # seconds; keyword searches answer meanwhile
        except (ConvoError, OSError, ValueError) as exc:
            self.post_message(BackgroundFailed("load the embedding model", str(exc)))
            return
        self.post_message(ModelLoaded())

    def on_library_opened(self, _: LibraryOpened) -> None:
        if self.quitting:
            return
        keep_out_of_collections()
        if self.model_ready:
            self.search_screen.status.finish()
        else:
            self.search_screen.status.say("Loading the model… keyword search works meanwhile")
        self.search_screen.refresh_search()
        self.tell_screens(SessionsChanged())
        self._read_readiness(False)
        self.set_interval(POLL_EVERY, self._poll_index, name="follow the index")
        if self.model_ready and self.index_on_start:
            self.start_indexing()  # an open index with its model handed in (the model loads later otherwise)
        self._read_loss_warnings()

    @work(thread=True, group="warnings", name="loss warnings")
    def _read_loss_warnings(self) -> None:
        library = self.library
        if library is None:
            return
        with self.background.running():
            try:
                lines = library.archive_status().warnings
            except ConvoError:
                return  # `convo-tui sources` says it too
        if lines:
            self.post_message(LossWarnings(lines))

    def on_loss_warnings(self, event: LossWarnings) -> None:
        for line in event.lines:
            self.notify(line, title="History", severity="warning", timeout=15)

    def on_model_loaded(self, _: ModelLoaded) -> None:
        self.model_ready = True
        if self.quitting:
            return
        keep_out_of_collections()
        self.search_screen.status.finish()
        self.search_screen.refresh_search()
        if self.index_on_start:
            self.start_indexing()

    def on_background_failed(self, event: BackgroundFailed) -> None:
        if self.quitting:
            return
        self.search_screen.status.say(f"Could not {event.what}")
        self.notify(f"Could not {event.what}: {event.error}", severity="error", timeout=10)

    # -- quitting ------------------------------------------------------------------------

    def exit(self, *args: Any, **kwargs: Any) -> None:
        """Tell the workers to stop as soon as the user quits, not when the screens are gone."""
        self.quitting = True
        self.cancel_indexing.set()
        super().exit(*args, **kwargs)

    async def on_unmount(self) -> None:
        self.cancel_indexing.set()
        self.workers.cancel_all()
        # Cancelled thread workers run on until they check: the index (and its lock)
        # is closed only once the threads that write to it have returned.
        await asyncio.to_thread(self.background.wait_idle)
        if self._owns_library and self.library is not None:
            self.library.close()
        gc.unfreeze()  # what the app kept alive may now be collected (tests run many apps in one process)

    # -- actions -----------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_cycle_mode(self) -> None:
        self.set_mode(MODES[(MODES.index(self.mode) + 1) % len(MODES)])

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.search_screen.refresh_search()
        self.notify(f"Search mode: {mode}", timeout=2)

    def action_sessions(self) -> None:
        from convo_tui.tui.screens.sessions import SessionsScreen

        if not isinstance(self.screen, SessionsScreen):
            self.push_screen(SessionsScreen())

    def action_stats(self) -> None:
        from convo_tui.tui.screens.stats import StatsScreen

        if not isinstance(self.screen, StatsScreen):
            self.push_screen(StatsScreen())

    def action_reindex(self) -> None:
        self.start_indexing()

    def set_query(self, query: str) -> None:
        """Back to the search screen with `query` in the box (search in session, filters)."""
        while not isinstance(self.screen, SearchScreen):
            self.pop_screen()
        self.search_screen.set_query(query)

    def add_filter(self, key: str, value: str) -> None:
        """Back to the search screen with `key:value` added to the query (the palette's project filter)."""
        from convo_tui.tui.query_line import with_filter

        self.set_query(with_filter(self.search_screen.query_text, key, value))


def keep_out_of_collections() -> None:
    """Exempt what is alive now (the open index, the model) from Python's cyclic GC.

    They live as long as the app; left in, every full collection walks them
    (tens of ms, landing in the middle of a keystroke's layout and paint).
    Undone when the app unmounts.
    """
    gc.freeze()


def create_app(settings: Settings, *, library: Engine | None = None, demo: bool = False, index_on_start: bool = True) -> ConvoApp:
    """The app over `settings`; `library` lets a caller (tests) hand in an open index."""
    from convo_tui.tui.keymap import check_keys

    check_keys(settings)  # a [keys] typo is a one-line ConfigError, before the screen opens
    if demo:
        from convo_tui.tui.demo import demo_settings

        settings = demo_settings(settings)
    return ConvoApp(settings, library=library, demo=demo, index_on_start=index_on_start)
