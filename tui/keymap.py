"""The app's binding ids, so `[keys]` in the config file is checked against real ones.

Core cannot know the ids (it never imports the app), so the app collects them
from the BINDINGS of its own screens and widgets and hands them to
`Settings.check_keys` before it starts.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import convo_tui.tui
from convo_tui.core.settings import Settings
from textual.binding import Binding
from textual.dom import DOMNode


def binding_ids() -> frozenset[str]:
    """Every `id=` of a Binding declared by a screen, widget or the app in convo_tui.tui."""
    ids: set[str] = set()
    for module_info in pkgutil.walk_packages(convo_tui.tui.__path__, "convo_tui.tui."):
        if module_info.name.startswith("convo_tui.tui.demo"):
            continue
        module = importlib.import_module(module_info.name)
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, DOMNode) and cls.__module__ == module.__name__:
                ids.update(b.id for b in cls.BINDINGS if isinstance(b, Binding) and b.id)
    return frozenset(ids)


def check_keys(settings: Settings) -> None:
    """A one-line ConfigError naming a `[keys]` id that no binding has."""
    if settings.keys:
        settings.check_keys(binding_ids())
