"""Small helpers every source parser shares: times, titles, ids, JSON lines.

Kept here so that each format module only describes its own format.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path, PureWindowsPath
from typing import Any

from convo_tui.core.model import USER, Message

TITLE_LIMIT = 80
# A tool's answer is kept for reading and keyword search, not as a full copy of
# every file it read: longer answers keep their start and say how much was cut.
RESULT_LIMIT = 8000
# Epoch values above this are milliseconds (1e11 s is the year 5138).
_MS_THRESHOLD = 1e11


def dict_of(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one: a missing or malformed field reads as empty."""
    return value if isinstance(value, dict) else {}


def list_of(value: Any) -> list[Any]:
    """`value` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def str_of(value: Any, default: str = "") -> str:
    """`value` if it is a string, else `default`."""
    return value if isinstance(value, str) else default


def to_utc(value: Any) -> datetime | None:
    """A timezone-aware UTC datetime from epoch s/ms, ISO 8601 or SQL text.

    Naive values are taken as UTC (the exports we read store UTC); anything
    unreadable is None rather than an error, since a time is never essential.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        stamp = value
    elif isinstance(value, (int, float)):
        try:
            return _from_epoch(float(value))
        except OverflowError:  # a whole number past any float: not a time
            return None
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return _from_epoch(float(text))
        except ValueError:
            pass
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            stamp = datetime.fromisoformat(text)
        except ValueError:
            return None
    else:
        return None
    if stamp.tzinfo is None:
        return stamp.replace(tzinfo=UTC)
    return stamp.astimezone(UTC)


def _from_epoch(seconds: float) -> datetime | None:
    if seconds != seconds or seconds <= 0:  # NaN or not a real time
        return None
    if seconds > _MS_THRESHOLD:
        seconds /= 1000.0
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def file_mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return None


def clip(text: str, limit: int = TITLE_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def clip_result(text: str, limit: int = RESULT_LIMIT) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}\n… [{len(text) - limit} more characters]"


def title_from_messages(messages: list[Message], fallback: str) -> str:
    """The first user message's first non-blank line, clipped: what the user asked first."""
    for message in messages:
        if message.role == USER and message.is_conversation:
            for line in message.text.splitlines():
                if line.strip():
                    return clip(line.strip())
    return fallback


def number_messages(messages: list[Message]) -> list[Message]:
    """Give ids by position (`msg-0`, ...): stable across re-parses of the same file."""
    for position, message in enumerate(messages):
        message.id = f"msg-{position}"
    return messages


def json_error_reason(exc: json.JSONDecodeError, text: str) -> str:
    if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
        return "truncated JSON (ends in the middle of a value)"
    return f"invalid JSON ({exc.msg}, column {exc.colno})"


def iter_json_lines(text: str, problems: list[tuple[int, str]]) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each readable JSON line; bad lines go to `problems`."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append((number, json_error_reason(exc, line)))
        except RecursionError:
            problems.append((number, "JSON nested too deeply"))


def strip_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text


def folder_name(cwd: str) -> str:
    """The last folder of a working directory written on Linux, macOS or Windows."""
    cwd = cwd.rstrip("/\\")
    return (PureWindowsPath(cwd) if "\\" in cwd else Path(cwd)).name or cwd


def load_json(path: Path, text: str) -> Any:
    """One JSON document, or a ParseError saying where and why it is not one."""
    from convo_tui.core.errors import ParseError

    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, json_error_reason(exc, text), line=exc.lineno) from None
    except RecursionError:
        raise ParseError(path, "JSON nested too deeply") from None


def token_count(value: Any) -> int:
    """One token counter as the source wrote it; anything but a count >= 0 is 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value > 0 else 0


def usage_of(**counts: int) -> dict[str, int]:
    """A `usage` object for `Message.meta` (read by `core.stats.message_tokens`), zeros left out."""
    return {key: value for key, value in counts.items() if value > 0}


def add_usage(first: dict[str, int], second: dict[str, int]) -> dict[str, int]:
    """Two usage objects of the same shape added counter by counter."""
    return {key: first.get(key, 0) + second.get(key, 0) for key in {**first, **second}}
