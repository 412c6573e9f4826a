"""A corpus of secret shapes that must be masked and look-alikes that must stay visible.

Every secret below is made up (right shape, no real key). Each secret line is
checked twice: no character run of the value survives (only a vendor's public
prefix and, for long tokens, the last four), and `display()` of a cut title
never lets part of it through.
"""

from __future__ import annotations

import pytest
from convo_tui.core.redact import display, find_secrets, redact

from tests.paths import FIXTURES

# (text, the secret value in it)
SECRETS: list[tuple[str, str]] = [
    ("export OPENAI_API_KEY=sk-proj-Q2x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo", "Q2x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo"),
    ("my key sk-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4 works", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"),
    ("sk-svcacct-Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8Zx1Cv4", "Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8Zx1"),
    ("ANTHROPIC_API_KEY=sk-ant-api03-Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8Zx1Cv4Bn7Mq0We3Rt6Yu9-Ab1CdEfGh", "Zq8Xw3Rt6Yu1Io4Pa7Sd0"),
    ("maps key AIzaSyB3x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5 in the url", "SyB3x9Lm4TzR7vB1nW8cYk3HfP6sD0a"),
    ("aws_access_key_id = AKIAZ3Q7X2LM4TR8VB1N", "Z3Q7X2LM4TR8"),
    ("aws_secret_access_key = wJa1rXUtnFEMI/K7MDENG+bPxRfiCYz9Lm4TzR7v", "wJa1rXUtnFEMI/K7MDENG+bPxRfiCYz9Lm4TzR7v"),
    ("the id is AKIAZ3Q7X2LM4TR8VB1N and the secret wJa1rXUtnFEMI/K7MDENG+bPxRfiCYz9Lm4TzR7v", "wJa1rXUtnFEMI/K7"),
    ("AKIAZ3Q7X2LM4TR8VB1N\nwJa1rXUtnFEMI/K7MDENG+bPxRfiCYz9Lm4TzR7v", "bPxRfiCYz9Lm4TzR7v"),
    ("use secret key: Tq7Wx2Lm9Rt4Vb6Nc1Wd5Ye0Hs3Jk8Pz1Qa4Xr6 for it", "Tq7Wx2Lm9Rt4Vb6Nc1Wd5Ye0Hs3Jk8Pz1Qa4Xr6"),
    ("GH_TOKEN=ghp_4Tz9Lm2Qx7Rv1Bn8Wc3Yk6Hf0Pa5Sd9JeUgVtX", "4Tz9Lm2Qx7Rv1Bn8Wc3Yk6Hf0Pa5Sd9"),
    ("github_pat_11ABCDE2Q0x9Lm4TzR7vB1_nW8cYk3HfP6sD0aJeU5gVt2Xo4Tz9Lm2Qx7Rv1Bn8Wc3Yk6", "11ABCDE2Q0x9Lm4TzR7vB1"),
    ("token glpat-x9Lm4TzR7vB1nW8cYk3H", "x9Lm4TzR7vB1nW8c"),
    ("SLACK_BOT_TOKEN=xoxb-2048301234-5123456789012-Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2", "2048301234-5123456789012"),
    ("https://hooks.slack.com/services/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", "Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2"),
    ("stripe.api_key = 'sk_live_51Hx9Lm4TzR7vB1nW8cYk3HfP6sD0aJe'", "51Hx9Lm4TzR7vB1nW8cYk3HfP6"),
    ("rk_test_51Hx9Lm4TzR7vB1nW8cYk3HfP6sD0aJe", "51Hx9Lm4TzR7vB1nW8cYk3"),
    ("huggingface-cli login --token hf_Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8Zx1Cv", "Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2"),
    (
        "cookie=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ),
    ("Authorization: Bearer 7f3Kq9Zx2Lm8Rt4Vb6Nc1Wd5Ye0Hs", "7f3Kq9Zx2Lm8Rt4Vb6Nc1Wd5Ye0Hs"),
    ("Authorization: Basic YWxpY2U6aHVudGVyMg==", "YWxpY2U6aHVudGVyMg"),
    ("postgres://alice:Sup3r-Secr3t!@db.internal:5432/app", "Sup3r-Secr3t!"),
    ("redis://:p4ssW0rd-2024@cache:6379/0", "p4ssW0rd-2024"),
    ("password = 'Tr0ub4dor&3xyz'", "Tr0ub4dor&3xyz"),
    ("DB_PASSWORD: hunter2-Prod-99", "hunter2-Prod-99"),
    ("client_secret=9Lm4TzR7vB1nW8cYk3HfP6sD0aJe", "9Lm4TzR7vB1nW8cYk3HfP6sD0aJe"),
    ("access_token: Qx7Rv1Bn8Wc3Yk6Hf0Pa5Sd9", "Qx7Rv1Bn8Wc3Yk6Hf0Pa5Sd9"),
    ("my api key is Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5", "Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5"),
    ("the token for staging: 7f3Kq9Zx2Lm8Rt4Vb6Nc1Wd5", "7f3Kq9Zx2Lm8Rt4Vb6Nc1Wd5"),
    ("password is Xk9Lm2Qw7Rt4Vb6Nc1Wd5Ye0", "Xk9Lm2Qw7Rt4Vb6Nc1Wd5Ye0"),
    ("credentials: Pa5Sd9JeUgVtX4Tz9Lm2Qx7Rv1Bn", "Pa5Sd9JeUgVtX4Tz9Lm2Qx7Rv1Bn"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAz9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo4Tz9Lm2Qx7R\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEAz9Lm4TzR7vB1nW8cYk3HfP6",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ),
    ('{"apiKey": "Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2"}', "Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2"),
]

# Ordinary text that looks a little like a secret and must stay as it is.
LOOK_ALIKES: list[str] = [
    "commit 3f9a2c1d8e7b6a5f4c3d2e1f0a9b8c7d6e5f4a3b fixed it",
    "git checkout 3f9a2c1",
    "session 7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b was indexed",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "base64 of hello world is aGVsbG8gd29ybGQ=",
    "the token count was 4096 tokens per request",
    "set the password field to required",
    "password: ********",
    "api_key = os.environ['OPENAI_API_KEY']",
    "token = get_token(user)",
    "secret = settings.secret_key",
    "password=${DB_PASSWORD}",
    "api_key: <your-api-key>",
    "token: YOUR_TOKEN_HERE",
    "the secret to good tests is isolation",
    "Keep your API keys out of the repo.",
    "sk-learn is spelled scikit-learn",
    "task-ant-colony-optimization is a heuristic",
    "AKIA is the prefix of AWS access key ids",
    "file /usr/lib/python3.11/site-packages/fastembed/text/onnx_embedding.py",
    "docker image sha256:2c2f7e4a9b1d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f",
    "request id req_2024_11_22_abc",
    "UUID 123e4567-e89b-12d3-a456-426614174000 in the log",
    "npm token list shows nothing",
    "The password reset link expires in 24 hours.",
    "use tokenizer.encode(text) for ids",
    "bearer tokens are sent in the Authorization header",
    "ghp_ is GitHub's prefix for personal tokens",
    "secret_key_base is defined in config/credentials.yml.enc",
    "version 1.2.3-beta.4+build.5678",
    "the password manager is called KeePassXC",
    "aws s3 cp s3://bucket/path/to/object.txt .",
    "token usage: prompt 1234, completion 5678, total 6912",
    "my password is long and boring",
]


def test_the_corpus_is_big_enough():
    assert len(SECRETS) >= 30 and len(LOOK_ALIKES) >= 30


@pytest.mark.parametrize(("text", "value"), SECRETS, ids=[f"secret-{i}" for i in range(len(SECRETS))])
def test_every_secret_shape_is_masked_and_no_run_of_it_survives(text, value):
    masked = redact(text)
    assert "[REDACTED:" in masked, masked
    # No 8-character run of the secret (beyond a vendor's public prefix and the last four).
    core = value[:-4] if len(value) > 12 else value
    runs = {core[i : i + 8] for i in range(max(1, len(core) - 7))}
    assert not [r for r in runs if r in masked], masked


@pytest.mark.parametrize(("text", "value"), SECRETS, ids=[f"cut-{i}" for i in range(len(SECRETS))])
def test_display_masks_before_the_cut(text, value):
    title = "Debugging: " + text
    for limit in (12, 20, 31, 45, 60, 90):
        shown = display(title, limit)
        assert len(shown) <= limit
        runs = {value[i : i + 6] for i in range(max(1, len(value) - 5))}
        assert not [r for r in runs if r in shown], (limit, shown)
        assert shown.count("[REDACTED:") == shown.count("]") - title.count("]") or "[REDACTED:" not in shown


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[f"look-alike-{i}" for i in range(len(LOOK_ALIKES))])
def test_look_alikes_stay_visible(text):
    assert find_secrets(text) == [], [(s.kind, s.value) for s in find_secrets(text)]
    assert redact(text) == text
    assert display(text) == " ".join(text.split())


def test_display_is_one_line_and_never_splits_a_marker():
    title = "Fix login\n\n  with key sk-proj-Q2x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo  please"
    full = display(title)
    assert "\n" not in full and "[REDACTED:openai-key sk-proj-…t2Xo]" in full
    for limit in range(1, len(full) + 2):
        shown = display(title, limit)
        assert len(shown) <= limit
        assert ("[REDACTED:" in shown) == ("]" in shown)  # whole marker or none


def test_a_cut_tool_call_argument_masks_the_whole_key_before_the_cut():
    from convo_tui.core.model import ToolCall
    from convo_tui.tui.render import tool_title

    key = "sk-proj-Q2x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo"
    tool = ToolCall(name="Bash", args={"command": f"curl -s https://api.openai.com/v1/models -H 'Authorization: Bearer {key}'"})
    for width in (40, 60, 90, 140):
        title = tool_title(tool, width, shown=redact)
        assert ("Q2x9" not in title and "gVt2" not in title and "t2Xo]" not in title) or "openai-key sk-proj-…t2Xo]" in title
        assert ("[REDACTED:" in title) == ("]" in title), title
        assert not any(key[i : i + 6] in title for i in range(8, len(key) - 10)), title


def test_titles_are_masked_in_every_face(tmp_path, capsys):
    """A key pasted into what became the title: CLI lists, cards, reader head, Markdown."""
    import json

    from convo_tui.cli.main import main
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings
    from convo_tui.tui.markdown import session_markdown
    from convo_tui.tui.widgets.card import card_title
    from convo_tui.tui.widgets.session_view import session_head

    key = "sk-proj-Q2x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo"
    data = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text(encoding="utf-8"))
    data[0]["title"] = f"use {key} for the sorting script"
    src = tmp_path / "src"
    src.mkdir()
    (src / "conversations.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["index", str(src)]) == 0
    capsys.readouterr()
    for argv in (["sessions"], ["search", "sorting rows"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "[REDACTED:openai-key" in out and "Q2x9Lm4T" not in out, out
    with Library.open(Settings.load(), read_only=True) as lib:
        hit = next(h for h in lib.search("sorting rows", limit=5) if "sorting script" in h.session_title)
        session = lib.session(hit.session_id)
    for shown in (card_title(hit).plain, session_head(session).plain, session_markdown(session)):
        assert "Q2x9Lm4T" not in shown and "[REDACTED:openai-key sk-proj-…t2Xo]" in shown, shown
