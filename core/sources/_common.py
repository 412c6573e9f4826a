"""Small helpers every source parser shares: values, times, titles, roles,
arguments, content parts and JSON lines.

Kept here so that each format module only describes its own format (the
reader contract: docs/ARCHITECTURE.md, "Adding a source").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path, PureWindowsPath
from typing import Any

from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Role

TITLE_LIMIT = 80
# A tool's answer is kept for reading and keyword search, not as a full copy of
# every file it read: longer answers keep their start and their last
# RESULT_TAIL characters (where a test run or a build says what failed), and
# say how much was cut between.
RESULT_LIMIT = 8000
RESULT_TAIL = 2000
# Epoch values above this are milliseconds (1e11 s is the year 5138).
_MS_THRESHOLD = 1e11


class Names(frozenset[str]):
    """Type names a reader knows. `in` answers any value read from a file (a list or
    an object where a name belongs is simply not one of them), never raises."""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and frozenset.__contains__(self, value)


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
    tail = min(RESULT_TAIL, limit // 4)
    head = limit - tail
    return f"{text[:head].rstrip()}\n… [{len(text) - limit} characters cut] …\n{text[len(text) - tail :].lstrip()}"


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


def json_records(path: Path, text: str, warnings: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each JSON object line of a JSONL file.

    A line that is not JSON, or not an object, is dropped and told in
    `warnings` as `path:line: reason`: one bad line never costs the file.
    """
    problems: list[tuple[int, str]] = []
    for number, value in iter_json_lines(text, problems):
        while problems:
            line, reason = problems.pop(0)
            warnings.append(f"{path}:{line}: {reason}")
        if isinstance(value, dict):
            yield number, value
        else:
            warnings.append(f"{path}:{number}: not a JSON object")
    warnings.extend(f"{path}:{line}: {reason}" for line, reason in problems)


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


_HEAD_RECORDS = 8


def head_records(head: str, limit: int = _HEAD_RECORDS) -> list[dict[str, Any]]:
    """The first JSON object lines of a sniffed head (a line cut by the head's end is left out).

    Every sniffer asks about the same head: it is parsed once (`_parsed_head`)."""
    return list(_parsed_head(head)[: min(limit, _HEAD_RECORDS)])


@lru_cache(maxsize=4)
def _parsed_head(head: str) -> tuple[dict[str, Any], ...]:
    found: list[dict[str, Any]] = []
    for line in strip_bom(head).splitlines():
        if len(found) >= _HEAD_RECORDS:
            break
        line = line.strip()
        if not line:
            continue
        if not line.startswith("{"):
            break
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            found.append(value)
    return tuple(found)


def first_record(head: str) -> dict[str, Any]:
    """The first JSON object line of a sniffed head, or an empty object."""
    records = head_records(head, 1)
    return records[0] if records else {}


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


# -- roles, arguments and content parts -----------------------------------------------

ROLES: dict[str, Role] = {
    "user": USER,
    "human": USER,
    "assistant": ASSISTANT,
    "model": ASSISTANT,
    "agent": ASSISTANT,
    "ai": ASSISTANT,
    "bot": ASSISTANT,
    "gemini": ASSISTANT,
    "system": SYSTEM,
    "developer": SYSTEM,
}


def role_of(value: Any, table: dict[str, Role] | None = None) -> Role | None:
    """The model's role for a source's role word (case-insensitive), or None for a word we do not know."""
    if not isinstance(value, str):
        return None
    word = value.strip().lower()
    return (table if table is not None else ROLES).get(word)


def arguments(raw: Any, key: str = "input") -> dict[str, Any]:
    """A tool call's arguments as an object: an object as it is, a JSON text decoded,
    anything else (a bare string, a number, a list) kept under `key`."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            return {key: raw}
        return value if isinstance(value, dict) else {key: value}
    return {key: raw}


def decoded_values(args: dict[str, Any]) -> dict[str, Any]:
    """Each value that is itself JSON text decoded (tools that encode every argument twice)."""
    out: dict[str, Any] = {}
    for name, value in args.items():
        if isinstance(value, str) and value[:1] in '"[{':
            try:
                out[name] = json.loads(value)
                continue
            except (json.JSONDecodeError, RecursionError):
                pass
        out[name] = value
    return out


IMAGE = "[image]"
_TEXT_PARTS = ("text", "input_text", "output_text")
_IMAGE_PARTS = ("image", "image_url", "input_image")


def parts_text(content: Any, text_types: tuple[str, ...] = _TEXT_PARTS) -> str:
    """The words of a content field: a string, or its text parts joined by lines
    (a part without a type counts as text; images become a placeholder)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    pieces: list[str] = []
    for part in list_of(content):
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if isinstance(part.get("text"), str) and (kind is None or kind in text_types):
                pieces.append(part["text"])
            elif kind in _IMAGE_PARTS:
                pieces.append(IMAGE)
    return "\n".join(p for p in pieces if p)


def result_text(content: Any) -> str:
    """What a tool answered, as text, clipped: a string, the text of its parts, or its JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return clip_result(content)
    if isinstance(content, list) and all(isinstance(part, (str, dict)) for part in content):
        text = parts_text(content)
        if text or not content:
            return clip_result(text)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return clip_result(content["text"])
    try:
        return clip_result(json.dumps(content, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError):
        return ""


def joined(parts: list[str], separator: str = "\n\n") -> str:
    """The non-blank parts, trimmed, joined."""
    return separator.join(p.strip() for p in parts if isinstance(p, str) and p.strip())


def last_branch(records: list[dict[str, Any]], id_key: str, parent_key: str) -> list[dict[str, Any]]:
    """The records on the path from the last one back to the root through `parent_key`, in
    file order: the conversation the user last saw in a log that branches (rewinds, forks).
    Records without an id are kept; a log without ids is read whole."""
    parents = {r[id_key]: r.get(parent_key) for r in records if isinstance(r.get(id_key), str)}
    if not parents:
        return records
    leaf = next((r[id_key] for r in reversed(records) if isinstance(r.get(id_key), str)), None)
    kept: set[str] = set()
    while isinstance(leaf, str) and leaf not in kept:
        kept.add(leaf)
        leaf = parents.get(leaf)
    return [r for r in records if not isinstance(r.get(id_key), str) or r[id_key] in kept]
