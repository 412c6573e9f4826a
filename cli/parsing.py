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
import re
import shlex
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

_NUMBER = re.compile(r"-\d+(\.\d+)?")  # argparse reads it as a value, not an option
_EXPECTED = re.compile(r"argument (\S+?)(?:/\S+)?: expected one argument")

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

    def _action_of(self, word: str) -> argparse.Action | None:
        """The option `word` names, as argparse reads it (a unique prefix of a long
        option, a short one with its value joined), or None. It reads argparse's table
        of options, as `_positionals_wanted` reads its actions: argparse has no public
        way to ask either."""
        table = self._option_string_actions
        name = word.split("=", 1)[0]
        if name in table:
            return table[name]
        if name.startswith("--"):
            matches = {table[option] for option in table if option.startswith(name)}
            return matches.pop() if len(matches) == 1 else None
        return table.get(word[:2]) if len(word) > 2 and not word.startswith("--") else None

    def _takes_value(self, word: str, action: argparse.Action) -> bool:
        """Whether the word after `word` is its value."""
        joined = "=" in word or (not word.startswith("--") and len(word) > 2)
        return action.nargs != 0 and not joined

    def _scan(self) -> list[tuple[str, str]]:
        """This command's words, each with what argparse made of it: "option", "value"
        (an option's), "unknown" (looks like an option it does not have) or "positional"."""
        kinds: list[tuple[str, str]] = []
        words = iter(self.words)
        for word in words:
            if word == "--":
                kinds += [("--", "separator"), *((rest, "positional") for rest in words)]
                break
            if not word.startswith("-") or word == "-" or _NUMBER.fullmatch(word):
                kinds.append((word, "positional"))
                continue
            action = self._action_of(word)
            if action is None:
                kinds.append((word, "unknown"))
                continue
            kinds.append((word, "option"))
            if self._takes_value(word, action):
                value = next(words, None)
                if value is not None:
                    kinds.append((value, "value"))
        return kinds

    def unknown_options(self) -> list[str]:
        """The words of this command's line that look like options it does not have."""
        return [word for word, kind in self._scan() if kind == "unknown"]

    def hint(self, words: list[str], *, separate: bool) -> str | None:
        """Advice for the first of `words` (unknown options), or None; `separate`:
        the error is one that `--` before a value can mend."""
        first = words[0]
        if self.option_hint is not None:
            after = self.words.index(first) + 1
            value = self.words[after] if after < len(self.words) and not self.words[after].startswith("-") else None
            advice = self.option_hint(first, value)
            if advice:
                return advice
        if not separate or first.startswith("--") or not self._positionals_wanted():
            return None
        return f"to give a value that starts with '-', put it after '--': {self.prog} {self.with_separator()}"

    def with_separator(self) -> str:
        """This command's words again: options and their values first, then `--` and the rest."""
        kinds = [(word, kind) for word, kind in self._scan() if kind != "separator"]
        options = [word for word, kind in kinds if kind in ("option", "value")]
        values = [word for word, kind in kinds if kind in ("positional", "unknown")]
        return " ".join(shlex.quote(word) for word in [*options, "--", *values])

    def _positionals_wanted(self) -> bool:
        return any(not action.option_strings for action in self._actions if action.dest != argparse.SUPPRESS)

    def _split_by_option(self) -> bool:
        """Whether an option stands between two of the line's plain words (`search how to --limit 3 fix`)."""
        kinds = [kind for _, kind in self._scan()]
        firsts = [at for at, kind in enumerate(kinds) if kind == "positional"]
        return bool(firsts) and any(kind == "option" for kind in kinds[firsts[0] : firsts[-1]])

    def _joined_value_hint(self, message: str) -> str | None:
        """`--index-dir -d`: argparse took `-d` for an option; `--index-dir=-d` is read as meant."""
        named = _EXPECTED.match(message)
        if named is None:
            return None
        option = named.group(1)
        for at, word in enumerate(self.words[:-1]):
            action = self._action_of(word)
            if action is not None and option in action.option_strings and self.words[at + 1].startswith("-"):
                long = max(action.option_strings, key=len)
                return f"to give {long} a value that starts with '-', join them: {long}={shlex.quote(self.words[at + 1])}"
        return None

    def error(self, message: str) -> NoReturn:
        advice = self._joined_value_hint(message)
        unknown = self.unknown_options() if advice is None else []
        if advice is None and not unknown and message.startswith("unrecognized arguments") and self._split_by_option():
            advice = "words after an option are not read with the words before it: put the options last, or quote the words"
        if unknown:
            separate = message.startswith(("the following arguments are required", "unrecognized arguments"))
            advice = self.hint(unknown, separate=separate)
            if message.startswith("the following arguments are required"):
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
