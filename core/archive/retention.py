"""What the tools will delete on their own, read from their settings files.

- Claude Code deletes transcripts older than `cleanupPeriodDays` (default 30)
  at every start. It is read from managed settings (which win), the user's
  `settings.json` in each config folder (`$CLAUDE_CONFIG_DIR`, else
  `~/.claude`), and each known project's `.claude/settings.json` and
  `.claude/settings.local.json` (projects listed in `~/.claude.json`):
  Claude started in a project with a shorter period sweeps every project's
  transcripts with it, so the shortest one is what the user must expect.
- Gemini CLI deletes chats past `general.sessionRetention` (`maxAge` such as
  "30d", or `maxCount`) when it is enabled: on by default with 30 days in
  current versions. Read from the system settings (which win), the user's
  `~/.gemini/settings.json` and known projects' `.gemini/settings.json`.
- Codex CLI keeps sessions until `codex delete`; Cursor, OpenCode, Copilot
  Chat and Cline document no automatic deletion: nothing to say for them.

Settings files are other tools' data: read, never written, and a file that
is not JSON is passed over.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLAUDE_DEFAULT_DAYS = 30
GEMINI_DEFAULT_AGE = "30d"
_AGE = re.compile(r"^(\d+)([hdwm])$")
_AGE_DAYS = {"h": 1 / 24, "d": 1, "w": 7, "m": 30}
CLAUDE_MANAGED = (
    Path("/etc/claude-code/managed-settings.json"),
    Path("/Library/Application Support/ClaudeCode/managed-settings.json"),
    Path("C:/Program Files/ClaudeCode/managed-settings.json"),
)
GEMINI_SYSTEM = (Path("/etc/gemini-cli/settings.json"), Path("/Library/Application Support/GeminiCli/settings.json"))


@dataclass(frozen=True)
class Retention:
    """One tool's automatic deletion, as its settings say."""

    tool: str  # "Claude Code"
    source: str  # the `source:` name of its sessions
    days: float | None  # sessions untouched this long are deleted
    keep: int | None  # or only this many newest are kept
    where: str  # which setting in which file, or "its default"
    folders: tuple[Path, ...] = ()  # where it deletes (a copy elsewhere is not its to delete)

    def covers(self, key: str) -> bool:
        return any(key.startswith(str(folder).rstrip("/") + "/") for folder in self.folders)


def _load(path: Path) -> dict[str, Any]:
    """A settings file as a dict ({} when missing or not JSON); // and /* */ comments allowed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    for candidate in (text, _without_comments(text)):
        try:
            data = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        return data if isinstance(data, dict) else {}
    return {}


_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


def _without_comments(text: str) -> str:
    return _TOKENS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)


def _home(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


# -- Claude Code -----------------------------------------------------------------------


def claude_config_dirs() -> list[Path]:
    env = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    if env:
        return [Path(p.strip()).expanduser() for p in env.split(",") if p.strip()]
    return [Path.home() / ".claude"]


def claude_projects() -> list[Path]:
    """Project folders Claude Code knows (the keys of `projects` in its `.claude.json`)."""
    found: list[Path] = []
    places = [Path.home() / ".claude.json", *(d / ".claude.json" for d in claude_config_dirs())]
    for place in dict.fromkeys(places):
        projects = _load(place).get("projects")
        if isinstance(projects, dict):
            found += [Path(p) for p in projects if isinstance(p, str) and os.path.isabs(p)]
    return list(dict.fromkeys(found))


def _days(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def claude_retention() -> Retention | None:
    for managed in CLAUDE_MANAGED:
        days = _days(_load(managed).get("cleanupPeriodDays"))
        if days is not None:
            where = f"cleanupPeriodDays in {managed}, set by your organisation"
            return Retention("Claude Code", "claude-code", days, None, where, _claude_folders())
    found: list[tuple[int, str]] = []
    for folder in claude_config_dirs():
        days = _days(_load(folder / "settings.json").get("cleanupPeriodDays"))
        if days is not None:
            found.append((days, f"cleanupPeriodDays in {_home(folder / 'settings.json')}"))
    user = min(found) if found else (CLAUDE_DEFAULT_DAYS, "its default: cleanupPeriodDays is not set")
    shortest = user
    for project in claude_projects():
        for name in ("settings.json", "settings.local.json"):
            path = project / ".claude" / name
            days = _days(_load(path).get("cleanupPeriodDays"))
            if days is not None and days < shortest[0]:
                shortest = (days, f"cleanupPeriodDays in {_home(path)}, when it starts in {_home(project)}")
    if shortest[0] == 0:
        # Older versions read 0 as "keep nothing"; newer ones refuse the value.
        return Retention("Claude Code", "claude-code", 0, None, f"{shortest[1]} (0: transcripts are not kept)", _claude_folders())
    return Retention("Claude Code", "claude-code", shortest[0], None, shortest[1], _claude_folders())


def _claude_folders() -> tuple[Path, ...]:
    from convo_tui.core.index.discover import claude_projects_dirs

    return tuple(claude_projects_dirs())


# -- Gemini CLI --------------------------------------------------------------------------


def gemini_home() -> Path:
    base = os.environ.get("GEMINI_CLI_HOME", "").strip()
    return (Path(base).expanduser() if base else Path.home()) / ".gemini"


def _gemini_rule(data: dict[str, Any]) -> dict[str, Any] | None:
    general = data.get("general")
    rule = general.get("sessionRetention") if isinstance(general, dict) else None
    return rule if isinstance(rule, dict) else None


def _age_days(value: Any) -> float | None:
    match = _AGE.match(value) if isinstance(value, str) else None
    return int(match.group(1)) * _AGE_DAYS[match.group(2)] if match and int(match.group(1)) > 0 else None


def gemini_retention() -> Retention | None:
    layers: list[tuple[dict[str, Any], str]] = []
    user = gemini_home() / "settings.json"
    for path in (user, *_gemini_projects()):
        rule = _gemini_rule(_load(path))
        if rule is not None:
            layers.append((rule, _home(path)))
    for system in GEMINI_SYSTEM:  # system settings override the user's and the projects'
        rule = _gemini_rule(_load(system))
        if rule is not None:
            layers = [(rule, str(system))]
            break
    if not layers:
        if not gemini_home().is_dir():
            return None
        days = _age_days(GEMINI_DEFAULT_AGE)
        where = "its default in current versions: general.sessionRetention is not set"
        return Retention("Gemini CLI", "gemini-cli", days, None, where, (gemini_home() / "tmp",))
    shortest: Retention | None = None
    for rule, where in layers:
        if rule.get("enabled") is False:
            continue
        days, keep = _age_days(rule.get("maxAge", GEMINI_DEFAULT_AGE)), _days(rule.get("maxCount"))
        if days is None and keep is None:
            continue
        candidate = Retention(
            "Gemini CLI", "gemini-cli", days, keep, f"general.sessionRetention in {where}", (gemini_home() / "tmp",)
        )
        if shortest is None or (candidate.days or 1e9, candidate.keep or 1e9) < (shortest.days or 1e9, shortest.keep or 1e9):
            shortest = candidate
    return shortest


def _gemini_projects() -> list[Path]:
    """Project settings of the folders Gemini CLI recorded beside its chats (`.project_root`)."""
    found: list[Path] = []
    try:
        markers = sorted((gemini_home() / "tmp").glob("*/.project_root"))
    except OSError:
        return []
    for marker in markers:
        try:
            folder = marker.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if folder and os.path.isabs(folder):
            found.append(Path(folder) / ".gemini" / "settings.json")
    return found


def retentions() -> list[Retention]:
    """Every tool that will delete sessions on its own, with its rule."""
    return [rule for rule in (claude_retention(), gemini_retention()) if rule is not None]


def describe(rule: Retention) -> str:
    """ "Claude Code deletes sessions after 30 days (cleanupPeriodDays ...)"."""
    if rule.days == 0:
        what = "keeps no sessions"
    elif rule.days is not None and rule.keep is not None:
        what = f"deletes sessions after {_span(rule.days)} and keeps only its {rule.keep} newest"
    elif rule.days is not None:
        what = f"deletes sessions after {_span(rule.days)}"
    else:
        what = f"keeps only its {rule.keep} newest sessions"
    return f"{rule.tool} {what} ({rule.where})"


def _span(days: float) -> str:
    if days < 1:
        hours = round(days * 24)
        return f"{hours} hour{'s' * (hours != 1)}"
    whole = round(days)
    return f"{whole} day{'s' * (whole != 1)}"
