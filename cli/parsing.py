"""argparse parsers whose errors say what to type instead.

Two mistakes argparse answers unhelpfully: a value that starts with `-` (a
session id, a file called `-notes.jsonl`) is taken for an option, so the command
says its PATH is missing; and an option the command lacks (`search --since 3d`)
is reported by the top-level parser, with the top-level usage. Here the command
reports both itself, with its own usage and a hint: put the value after `--`,
or (for options a command names with `option_hint`) where the value belongs.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

COMMAND_PARSER = "command_parser"
"""The namespace attribute that names the innermost command's parser (`session rename`'s, not `session`'s)."""

OptionHint = Callable[[str, "str | None"], "str | None"]
"""(unknown option, the word after it or None) -> advice, or None for no advice."""


class CommandParser(argparse.ArgumentParser):
    """A command's parser (the class `add_subparsers` makes each command's with)."""

    def __init__(self, *args: Any, option_hint: OptionHint | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.option_hint = option_hint
        self.words: list[str] = []

    def parse_known_args(  # type: ignore[override]  # one signature for typeshed's three overloads
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        self.words = list(args) if args is not None else []
        parsed, extras = super().parse_known_args(args, namespace)
        if getattr(parsed, COMMAND_PARSER, None) is None:  # a nested command's parser finished first
            setattr(parsed, COMMAND_PARSER, self)
        return parsed, extras

    def unknown_options(self) -> list[str]:
        """The words of this command's line that look like options it does not have."""
        found: list[str] = []
        for word in self.words:
            if word == "--":
                break
            if word.startswith("-") and word != "-" and not self._known(word):
                found.append(word)
        return found

    def _known(self, word: str) -> bool:
        name = word.split("=", 1)[0]
        if name.startswith("--"):
            return any(option.startswith(name) for option in self._option_string_actions)
        return name[:2] in self._option_string_actions  # -h, or a short option with its value joined

    def hint(self, words: list[str]) -> str | None:
        """Advice for the first of `words` (unknown options), or None."""
        first = words[0]
        if self.option_hint is not None:
            after = self.words.index(first) + 1
            value = self.words[after] if after < len(self.words) and not self.words[after].startswith("-") else None
            advice = self.option_hint(first, value)
            if advice:
                return advice
        if first.startswith("--") or not self._positionals_wanted():
            return None
        return f"to give a value that starts with '-', put it after '--': {self.prog} {self.with_separator(first)}"

    def with_separator(self, first: str) -> str:
        """This command's words again, options first, then `--` and the values from `first` on."""
        start = self.words.index(first)
        options, values = self.words[:start], []
        words = iter(self.words[start:])
        for word in words:
            action = self._option_string_actions.get(word.split("=", 1)[0]) if word.startswith("-") and word != first else None
            if action is None:
                values.append(word)
                continue
            options.append(word)
            if action.nargs != 0 and "=" not in word:
                options.append(next(words, ""))
        return " ".join(shlex.quote(word) for word in [*options, "--", *values] if word)

    def _positionals_wanted(self) -> bool:
        return any(not action.option_strings for action in self._actions if action.dest != argparse.SUPPRESS)

    def error(self, message: str) -> NoReturn:
        unknown = self.unknown_options()
        advice = self.hint(unknown) if unknown else None
        if unknown and message.startswith("the following arguments are required"):
            message = f"{message} ('{unknown[0]}' was read as an option)"
        super().error(f"{message}\n{self.prog}: {advice}" if advice else message)


class ProgramParser(argparse.ArgumentParser):
    """The top-level parser: words no parser took are reported by the command they follow."""

    def parse_known_args(  # type: ignore[override]  # one signature for typeshed's three overloads
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        command = getattr(parsed, COMMAND_PARSER, None)
        if command is not None:
            delattr(parsed, COMMAND_PARSER)
        if extras and command is not None:
            command.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras
