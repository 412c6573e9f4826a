"""A corpus of hostile transcripts, written in the shapes of the real fixtures
(tests/fixtures), with every value a file on disk may set turned against us:
session ids and folders that look like options or shell, titles holding
secrets and Textual markup, huge and impossible numbers, NUL bytes, deep JSON,
file names that look like options, pipes, links to pipes, loops of links.

Nothing in it may steer a command, a path or the app: the tests that use it
check that no file named `pwned*` ever appears and that every value is shown
as data."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.helpers.hostile import hostile_transcript
from tests.paths import FIXTURES

# A token in the shape GitHub gives them (the redaction tests' own fake).
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
MARKUP = "[/x] [@click=app.quit]quit[/] [b]bold"
HOSTILE_TITLE = f"deploy with {TOKEN} {MARKUP}"
PWN = "$(touch pwned)"
CUT_EMOJI_SESSION = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
# A folder name that would set the terminal's title, and a C1 control (CSI in an 8-bit terminal).
ESCAPED_FOLDER = "proj\x1b]0;DIR\x07\x9b"


def _claude(target: Path, *, session_id: str, cwd: str, first: str, stamp: str | None = None, name: str | None = None) -> None:
    source = FIXTURES / "claude_code" / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
    lines = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        if "sessionId" in record:
            record["sessionId"] = session_id
            record["cwd"] = cwd
        if stamp is not None and "timestamp" in record:
            record["timestamp"] = stamp
        if record.get("type") == "user" and isinstance(record.get("message", {}).get("content"), str) and number < 4:
            record["message"]["content"] = first
        lines.append(json.dumps(record, ensure_ascii=False))
    lines.insert(4, '{"type": "user", "message": {"content": "half-written\x00\x00\x00"}}')
    path = target / (name or "session.jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_hostile_corpus(root: Path) -> Path:
    claude = root / "claude" / "projects" / "-home-dev-hostile"
    _claude(claude, session_id="--dangerously-skip-permissions", cwd=PWN, first=f"Title: {HOSTILE_TITLE}")
    _claude(
        claude,
        session_id="0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f",
        cwd="/tmp/hostile\n; rm -rf ~",
        first="a folder with a newline",
        stamp="99999-01-01T00:00:00Z",
        name="0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f.jsonl",
    )
    _claude(claude, session_id="-rf", cwd="-rf", first="a file named like an option", name="--dangerously-skip-permissions.jsonl")
    _claude(claude, session_id="; rm -rf ~", cwd="/tmp", first="a file named like shell", name=f"{PWN}.jsonl")
    # Half of an emoji, its pair cut off by a tool: JSON can spell it, UTF-8 cannot hold it.
    cut = claude / f"{CUT_EMOJI_SESSION}.jsonl"
    _claude(claude, session_id=CUT_EMOJI_SESSION, cwd="/tmp", first="an emoji cut in half @HALF@ here", name=cut.name)
    cut.write_text(cut.read_text(encoding="utf-8").replace("@HALF@", "\\ud83d"), encoding="utf-8")

    # Terminal control in the texts, and in the folder's name (tests/helpers/hostile.py).
    hostile_transcript(root / "claude" / "projects" / f"-home-dev-{ESCAPED_FOLDER}")

    codex = root / "codex" / "sessions" / "2025" / "10" / "14"
    codex.mkdir(parents=True)
    source = next((FIXTURES / "codex").rglob("rollout-*0199e3a1*.jsonl"))
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "session_meta":
            record["payload"].update(
                id="--full-auto", cwd="--dangerously-skip-permissions"
            )  # its own id: two files with one id, the newer wins
            record["timestamp"] = 1e308
        lines.append(json.dumps(record))
    (codex / "rollout-2025-10-14T16-20-00-hostile.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    gemini = root / "gemini" / "tmp" / "recipe-site"
    shutil.copytree(FIXTURES / "gemini" / "tmp" / "recipe-site", gemini)
    chat = next((gemini / "chats").glob("*.json"))
    data = json.loads(chat.read_text(encoding="utf-8"))
    data.update(sessionId=PWN, startTime=-99999999999999999999, lastUpdated="not a date")
    chat.write_text(json.dumps(data, indent=2), encoding="utf-8")
    (gemini / ".project_root").write_text("--yolo", encoding="utf-8")

    chatgpt = root / "exports" / "conversations.json"
    chatgpt.parent.mkdir(parents=True)
    conversations = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text(encoding="utf-8"))
    conversations[0]["title"] = HOSTILE_TITLE
    conversations[0]["create_time"] = 10**30
    chatgpt.write_text(json.dumps(conversations), encoding="utf-8")

    odd = root / "odd"
    odd.mkdir()
    (odd / "deep.json").write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    deep_line = (
        '{"type": "user", "sessionId": "d", "message": {"role": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    )
    (claude / "deep.jsonl").write_text(deep_line + "\n", encoding="utf-8")
    deep_doc = '{"messages": [' * 5_000 + '{"role": "user", "content": "x"}' + "]}" * 5_000
    (odd / "deep-messages.json").write_text(deep_doc, encoding="utf-8")
    (odd / "zeros.jsonl").write_bytes(b"\x00" * 8192)
    (odd / "huge-numbers.jsonl").write_text(
        json.dumps([{"role": "user", "content": "x" * 10, "timestamp": 10**400}, {"role": "assistant", "content": "y"}]) + "\n",
        encoding="utf-8",
    )
    if hasattr(os, "mkfifo"):
        os.mkfifo(odd / "pipe.jsonl")
        (odd / "link-to-pipe.jsonl").symlink_to(odd / "pipe.jsonl")
        (odd / "loop-a").symlink_to(odd / "loop-b")
        (odd / "loop-b").symlink_to(odd / "loop-a")
        (odd / "dangling.jsonl").symlink_to(odd / "nowhere.jsonl")
        (odd / "back-up").symlink_to(root)  # a loop through a folder: walked once
    return root
