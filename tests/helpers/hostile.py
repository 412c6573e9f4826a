"""A transcript whose texts try to act on the reader's terminal (tests of core/unicode.without_controls)."""

from __future__ import annotations

import json
from pathlib import Path

TITLE = "\x1b]0;PWNED\x07"  # sets the terminal's title
CLEAR = "\x1b[2J\x1b[H"  # clears the screen
CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"  # writes "evil" to the clipboard
SEQUENCES = (TITLE, CLEAR, CLIPBOARD, "\x1b]0;", "\x1b]52;", "\x1b[2J")


def hostile_transcript(folder: Path) -> Path:
    """A Claude Code session, `hostile-1`, asking "why does the build fail?" with escapes everywhere."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hostile.jsonl"
    # The project is the folder's name, which readers keep as it is: the app's line filter must drop its escape.
    common = {"sessionId": "hostile-1", "cwd": "/tmp/hostile\x1b]0;CWD\x07", "isSidechain": False, "userType": "external"}
    lines = [
        {
            **common,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-11-01T10:00:00Z",
            "message": {"role": "user", "content": f"why does{TITLE} the build{CLEAR} fail?"},
        },
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-11-01T10:00:02Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-opus-4-5",
                "content": [
                    {"type": "thinking", "thinking": f"look at{CLIPBOARD} the log", "signature": "s"},
                    {"type": "text", "text": "Running the tests."},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": f"pytest{TITLE} -q"}},
                ],
            },
        },
        {
            **common,
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "timestamp": "2026-11-01T10:00:05Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "\x1b[31mFAILED\x1b[0m test_build\r\n1 failed"}
                ],
            },
        },
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path
