"""Text every UTF-8 encoder takes: lone UTF-16 surrogates replaced by U+FFFD.

A str can hold a surrogate that is half of no pair: JSON spells one as "\\ud83d"
when a tool cut an emoji in two, and Python decodes a command-line argument or a
file name that is not UTF-8 with `surrogateescape` ("\\udcff" for the byte 0xff).
The keyword model, the tokenizers, SQLite and the terminal all refuse such text.
"""

from __future__ import annotations

import re

_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def without_lone_surrogates(text: str, replacement: str = REPLACEMENT) -> tuple[str, int]:
    """`text` with each lone surrogate replaced, and how many there were."""
    if text.isascii():  # O(1) in CPython: the common case costs nothing
        return text, 0
    return _LONE.subn(replacement, text)


# Terminal control in a transcript: tool output keeps its colours (`\x1b[31m`), a
# progress bar its carriage returns, and a hostile file may carry a title change
# (`\x1b]0;...\x07`), a screen clear or a clipboard write (OSC 52). Printed as they
# are they act on the reader's terminal, in the app as on the command line.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen clears
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the same with the one-byte C1 introducer
    # OSC, DCS, SOS, PM, APC strings (ESC and a letter, or their C1 byte), to their end
    # or the line's: a string cut short must not take the text after it
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"  # any other escape (charset, keypad modes), or a lone ESC
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 but tab and line feed, DEL, C1


def without_controls(text: str) -> str:
    """`text` that does nothing to a terminal, as a terminal would have shown it:
    escape sequences removed; of a line a carriage return wrote over (a progress
    bar's 10%, 50%, 100%), what was written last; a character backspaced over gone;
    any other control character dropped. Tabs and line breaks stay."""
    if not _CONTROL.search(text):  # the common case: one scan, nothing copied
        return text
    text = _SEQUENCE.sub("", text).replace("\r\n", "\n")
    if "\r" in text:
        text = "\n".join(_written_last(line) for line in text.split("\n"))
    if "\b" in text:
        text = _backspaced(text)
    return _CONTROL.sub("", text)


def _written_last(line: str) -> str:
    return next((part for part in reversed(line.split("\r")) if part), "")


def _backspaced(text: str) -> str:
    """`N\\bN` (a manual page's bold), `_\\bX` (its underline): the character written last."""
    kept: list[str] = []
    for char in text:
        if char != "\b":
            kept.append(char)
        elif kept and kept[-1] != "\n":
            kept.pop()
    return "".join(kept)


CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Any C0 control character, DEL or C1 control character (tab and line feed too)."""


def visible_controls(text: str) -> str:
    """`text` with each control character written out (`\\x1b`, `\\x0a`): a name (an
    id, a path, a project) stays recognisable and does nothing to a terminal."""
    return CONTROL_CHARACTER.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
