"""`convo-tui context` is an export: secrets pasted into a chat are masked unless asked."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

from convo_tui.cli.main import main

KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2


def _context(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def test_context_masks_secrets_by_default_and_keeps_them_on_request(tmp_path):
    source = tmp_path / "src" / "keys.jsonl"
    source.parent.mkdir()
    rows = [
        {
            "conversation_id": "deploy",
            "timestamp": "2026-03-01T10:00:00Z",
            "user_message": f"The deploy fails, my key is {KEY}",
            "ai_response": "Rotate that key and read it from the environment.",
        },
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    index = str(tmp_path / "index")
    assert main(["--index-dir", index, "index", str(source.parent)]) == 0

    masked = json.loads(
        _context("--index-dir", index, "context", "why did the deploy fail?", "--session", "deploy", "--refs", "0")
    )
    content = masked["messages"][-1]["content"]
    assert KEY not in content and "REDACTED" in content
    assert "Rotate that key" in content

    clear = json.loads(
        _context("--index-dir", index, "context", "why did the deploy fail?", "--session", "deploy", "--refs", "0", "--no-redact")
    )
    assert KEY in clear["messages"][-1]["content"]
