"""`convo-tui mcp install [AGENT ...] [--print]`: put convo-tui's MCP server in each agent's own config.

Idempotent: an entry already as wanted is left alone (no write, no backup);
otherwise the file is backed up beside itself (`FILE.convo-tui.bak`, the state
before the first change convo-tui made) and rewritten whole through a temporary
file, keeping its mode. Keys of an existing entry that convo-tui does not set
(an `env`, a timeout) are kept. Before writing, the new text is parsed back and
compared with the old: everything but our entry must be unchanged, else nothing
is written. A file that is not plain JSON (comments) or holds the entry in a
form this cannot edit safely is refused in one line with the entry to add by hand.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from convo_tui.cli.agent_configs import AGENTS, SERVER_NAME, Agent
from convo_tui.core.errors import ConvoError

BACKUP_SUFFIX = ".convo-tui.bak"


def server_command() -> str:
    """This installation's `convo-tui` script, by absolute path: an agent's PATH may not hold a virtualenv."""
    running = Path(sys.argv[0])
    if running.name == "convo-tui" and running.is_file():
        return str(running.absolute())
    beside = Path(sys.executable).parent / ("convo-tui.exe" if os.name == "nt" else "convo-tui")
    if beside.is_file():
        return str(beside)
    return shutil.which("convo-tui") or "convo-tui"


# -- reading and writing one config ------------------------------------------------------------


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConvoError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None


def _parse(agent: Agent, path: Path, text: str | None, snippet: str) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = tomllib.loads(text) if agent.toml else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        kind = "TOML" if agent.toml else "plain JSON (comments or trailing commas are not edited)"
        raise ConvoError(f"{path}: not {kind}: {exc}; add by hand: {snippet}") from None
    if not isinstance(data, dict):
        raise ConvoError(f"{path}: the top level is not an object; add by hand: {snippet}")
    servers = data.get(agent.servers_key, {})
    if not isinstance(servers, dict):
        raise ConvoError(f"{path}: '{agent.servers_key}' is not an object; add by hand: {snippet}")
    return data


def snippet(agent: Agent, entry: dict[str, Any]) -> str:
    if agent.toml:
        return f"[{agent.servers_key}.{SERVER_NAME}] " + " ".join(f"{k} = {toml_value(v)}" for k, v in entry.items())
    return json.dumps({agent.servers_key: {SERVER_NAME: entry}}, ensure_ascii=False)


def toml_value(value: Any) -> str:
    """TOML for the values an MCP entry holds: strings, numbers, booleans, arrays, inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise ConvoError(f"cannot write {value!r} as TOML")


def _toml_text(text: str, key: str, entry: dict[str, Any]) -> str:
    """`text` with the `[key.convo-tui]` table's own lines replaced (subtables kept), or appended."""
    name = rf"(?:{SERVER_NAME}|\"{SERVER_NAME}\"|'{SERVER_NAME}')"
    header = re.compile(rf"^\[\s*{re.escape(key)}\s*\.\s*{name}\s*\]\s*(?:#.*)?$")
    subtable = re.compile(rf"^\[\s*{re.escape(key)}\s*\.\s*{name}\s*\.\s*[\"']?([\w-]+)")
    own_tables = {m.group(1) for line in text.splitlines() if (m := subtable.match(line.strip()))}
    body = [f"{field} = {toml_value(value)}" for field, value in entry.items() if field not in own_tables]
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if header.match(line.strip())), None)
    if start is None:
        lead = text.rstrip("\n")
        return (lead + "\n\n" if lead else "") + "\n".join([f"[{key}.{SERVER_NAME}]", *body]) + "\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    return "\n".join([*lines[: start + 1], *body, "", *lines[end:]]).rstrip("\n") + "\n"


def _write(path: Path, text: str) -> None:
    """Through a temporary file beside it, so a crash leaves the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def install(agent: Agent, command: str, args: list[str], *, dry_run: bool = False) -> str:
    """Add or update our entry in the agent's config; the one-line summary of what happened."""
    path = agent.file()
    ours = agent.entry(command, args)
    text = _read(path)
    data = _parse(agent, path, text, snippet(agent, ours))
    servers = data.get(agent.servers_key, {})
    existing = servers.get(SERVER_NAME)
    wanted = {**existing, **ours} if isinstance(existing, dict) else ours
    if dry_run:
        return f"{agent.name}: {path}\n{snippet(agent, wanted)}"
    if existing == wanted:
        return f"{agent.name}: {SERVER_NAME} already in {path} (unchanged)"
    updated = dict(data)
    updated[agent.servers_key] = {**servers, SERVER_NAME: wanted}
    if agent.toml:
        new_text = _toml_text(text or "", agent.servers_key, wanted)
        try:
            same = tomllib.loads(new_text) == updated
        except tomllib.TOMLDecodeError:
            same = False
        if not same:  # an inline or dotted entry this cannot edit in place
            raise ConvoError(
                f"{path}: {SERVER_NAME} is written in a form this cannot edit; set it by hand: {snippet(agent, wanted)}"
            )
    else:
        new_text = json.dumps(updated, ensure_ascii=False, indent=2) + "\n"
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    saved = ""
    if text is not None:
        if not backup.exists():  # the state before convo-tui first changed the file
            shutil.copy2(path, backup)
        saved = f" (backup: {backup})"
    try:
        _write(path, new_text)
    except OSError as exc:
        raise ConvoError(f"{path}: cannot write ({exc.strerror or exc})") from None
    verb = "updated" if existing is not None else "added"
    return f"{agent.name}: {verb} {SERVER_NAME} to {path}{saved}"


def run_install(names: list[str], *, dry_run: bool, command: str | None, args: list[str]) -> int:
    if names:
        chosen = [AGENTS[name] for name in names]
    else:
        chosen = [agent for agent in AGENTS.values() if agent.installed()]
        if not chosen:
            raise ConvoError(f"no agent's config folder found; name one: {', '.join(AGENTS)}")
    failed = 0
    for agent in chosen:
        try:
            print(install(agent, command or server_command(), args, dry_run=dry_run))
        except ConvoError as exc:
            print(f"convo-tui: {agent.name}: {exc}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0
