"""The redaction layer: every kind of secret is masked, ordinary text is left alone.

All secret values below are made up for these tests (right shape, no real key).
"""

from __future__ import annotations

import pytest
from convo_tui.core.redact import find_secrets, redact
from convo_tui.core.secret_rules import KINDS
from hypothesis import given, settings
from hypothesis import strategies as st

OPENAI_PROJ = "sk-proj-Q2x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo"
OPENAI_LEGACY = "sk-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4"
ANTHROPIC = "sk-ant-api03-Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8Zx1Cv4Bn7Mq0We3Rt6Yu9-Ab1CdEfGh"
GOOGLE = "AIzaSyB3x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5"
AWS_ID = "AKIAZ3Q7X2LM4TR8VB1N"
AWS_SECRET = "wJa1rXUtnFEMI/K7MDENG+bPxRfiCYz9Lm4TzR7v"
GITHUB = "ghp_4Tz9Lm2Qx7Rv1Bn8Wc3Yk6Hf0Pa5Sd9JeUgVtX"
GITHUB_PAT = "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gV"
GITLAB = "glpat-x9Lm4TzR7vB1nW8cYk3H"
SLACK = "xoxb-2048301234-5123456789012-Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2"
STRIPE = "sk_live_51Hx9Lm4TzR7vB1nW8cYk3HfP6sD0aJe"
HF = "hf_Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8Zx1Cv"
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0.Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl8Zx1Cv4Bn7Mq0"
BEARER = "7f3Kq9Zx2Lm8Rt4Vb6Nc1Wd5Ye0Hs"
PEM_BODY = "MIIEowIBAAKCAQEAz9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gVt2Xo4Tz9Lm2Qx7R\nv1Bn8Wc3Yk6Hf0Pa5Sd9JeUgVtXq2x9Lm4TzR7vB1nW8cYk3HfP6sD0aJeU5gV==\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"export OPENAI_API_KEY={OPENAI_PROJ}", "export OPENAI_API_KEY=[REDACTED:openai-key sk-proj-…t2Xo]"),
        (f"key: {OPENAI_LEGACY}.", "key: [REDACTED:openai-key sk-…W3x4]."),
        (
            f'client = Anthropic(api_key="{ANTHROPIC}")',
            'client = Anthropic(api_key="[REDACTED:anthropic-key sk-ant-api03-…EfGh]")',
        ),
        (
            f"https://maps.googleapis.com/api?key={GOOGLE}&q=x",
            "https://maps.googleapis.com/api?key=[REDACTED:google-api-key AIza…JeU5]&q=x",
        ),
        (f"aws_access_key_id = {AWS_ID}", "aws_access_key_id = [REDACTED:aws-access-key-id AKIA…VB1N]"),
        (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_access_key = [REDACTED:aws-secret-key]"),
        (f'"SecretAccessKey": "{AWS_SECRET}"', '"SecretAccessKey": "[REDACTED:aws-secret-key]"'),
        (
            f"git remote set-url origin https://{GITHUB}@github.com/a/b",
            "git remote set-url origin https://[REDACTED:github-token ghp_…gVtX]@github.com/a/b",
        ),
        (f"GH_TOKEN={GITHUB_PAT}", "GH_TOKEN=[REDACTED:github-token github_pat_…eUgV]"),
        (f"token {GITLAB}", "token [REDACTED:gitlab-token glpat-…Yk3H]"),
        (f"SLACK_BOT_TOKEN={SLACK}", "SLACK_BOT_TOKEN=[REDACTED:slack-token xoxb-…0Fg2]"),
        (f"stripe.api_key = '{STRIPE}'", "stripe.api_key = '[REDACTED:stripe-key sk_live_…0aJe]'"),
        (f"huggingface-cli login --token {HF}", "huggingface-cli login --token [REDACTED:huggingface-token hf_…x1Cv]"),
        (f"cookie session={JWT}; path=/", "cookie session=[REDACTED:jwt eyJ…7Mq0]; path=/"),
        (
            f"curl -H 'Authorization: Bearer {BEARER}' https://api.example.com",
            "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://api.example.com",
        ),
        ("Authorization: Basic YWxpY2U6aHVudGVyMg==", "Authorization: Basic [REDACTED:basic-auth]"),
        (
            f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}-----END RSA PRIVATE KEY-----\n",
            "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED:private-key]\n-----END RSA PRIVATE KEY-----\n",
        ),
        (
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED:private-key]\n",
        ),
        (
            "DATABASE_URL=postgres://alice:Tr0ub4dor&3@db.internal:5432/app",
            "DATABASE_URL=postgres://alice:[REDACTED:url-password]@db.internal:5432/app",
        ),
        ("redis://:s3cretPassw0rd@cache:6379/0", "redis://:[REDACTED:url-password]@cache:6379/0"),
        ('DB_PASSWORD="correct-horse-battery-9"', 'DB_PASSWORD="[REDACTED:password]"'),
        ("password: Xk29!mQv", "password: [REDACTED:password]"),
        ("api_key=4f9d2c7a1b8e6f3d0a5c", "api_key=[REDACTED:secret]"),
        ('{"client_secret": "Zq8Xw3Rt6Yu1Io4Pa7"}', '{"client_secret": "[REDACTED:secret]"}'),
        ("secret=correcthorsebatterystaple", "secret=[REDACTED:secret]"),
    ],
)
def test_each_kind_is_masked(text, expected):
    assert redact(text) == expected


def test_every_kind_is_exercised():
    samples = [
        OPENAI_PROJ,
        ANTHROPIC,
        GOOGLE,
        AWS_ID,
        f"aws_secret_access_key={AWS_SECRET}",
        GITHUB,
        GITLAB,
        SLACK,
        "https://hooks.slack.com/services/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",
        STRIPE,
        HF,
        JWT,
        f"Bearer {BEARER}",
        "Authorization: Basic YWxpY2U6aHVudGVyMg==",
        f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}",
        "ftp://bob:Pa55w0rd!x@files.example.org",
        "password=Xk29!mQv",
        "api_key=4f9d2c7a1b8e6f3d0a5c",
    ]
    found = {s.kind for sample in samples for s in find_secrets(sample)}
    assert found == set(KINDS)


def test_find_secrets_spans_and_values():
    text = f"first {GITHUB} then postgres://u:Pa55w0rd!x@h/db"
    secrets = find_secrets(text)
    assert [(s.kind, s.value) for s in secrets] == [("github-token", GITHUB), ("url-password", "Pa55w0rd!x")]
    for s in secrets:
        assert text[s.start : s.end] == s.value


def test_specific_kind_wins_over_generic_context():
    # A bearer token that is a JWT, an api_key assignment that is an OpenAI key.
    assert [s.kind for s in find_secrets(f"Authorization: Bearer {JWT}")] == ["jwt"]
    assert [s.kind for s in find_secrets(f"api_key={OPENAI_PROJ}")] == ["openai-key"]
    assert [s.kind for s in find_secrets(f"Authorization: Bearer {ANTHROPIC}")] == ["anthropic-key"]


def test_reveal_by_value_and_by_id():
    text = f"a={GITHUB} b={HF}"
    github, hf = find_secrets(text)
    assert redact(text, reveal={GITHUB}) == f"a={GITHUB} b=[REDACTED:huggingface-token hf_…x1Cv]"
    assert redact(text, reveal={hf.id}) == f"a=[REDACTED:github-token ghp_…gVtX] b={HF}"
    assert redact(text, reveal={github.id, hf.id}) == text
    assert github.id != hf.id
    assert find_secrets(text)[0].id == github.id  # stable within a run


def test_ids_do_not_contain_the_value():
    (secret,) = find_secrets("password=Xk29!mQv")
    assert secret.id.isalnum() and len(secret.id) == 12
    assert "Xk29" not in secret.id and "Xk29" not in secret.marker


def test_markers_never_show_the_middle_of_a_secret():
    masked = redact(f"{OPENAI_PROJ} {GOOGLE} {ANTHROPIC} {SLACK}")
    for value in (OPENAI_PROJ, GOOGLE, ANTHROPIC, SLACK):
        assert value[len(value) // 2 - 4 : len(value) // 2 + 4] not in masked


@pytest.mark.parametrize(
    "text",
    [
        "The task-force met to discuss the risk-assessment and the desk-layout.",
        "pip install scikit-learn; from sklearn import sk-learn-compatible-estimator-wrapper",
        "Use sk-learn-style pipelines and mask-rcnn-benchmark-implementation-details here",
        "session 3f2b8c1e-9d4a-4e5f-8a7b-1c2d3e4f5a6b is a uuid",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it (git SHA)",
        "def get_api_key(self): return self.api_key",
        "api_key = os.environ['OPENAI_API_KEY']",
        "password = getpass.getpass()",
        "password = settings.DATABASE_PASSWORD",
        "token = tokenizer.encode(text)",
        "api_key=YOUR_API_KEY and password=<password> and secret=${SECRET}",
        "postgres://user:password@localhost:5432/db and redis://localhost:6379",
        "The bearer of this letter is trusted; use a Bearer token in the header.",
        "Authorization: Bearer <token> or Bearer $TOKEN or Bearer YOUR_ACCESS_TOKEN_HERE",
        "password: required, secret: rotate it, token: see docs",
        "max_tokens=4096, input_tokens: 1234567, token_count = 12345678",
        "ghp_ is the GitHub prefix; hf_hub_download(repo_id='x'); AKIA is AWS; AIza is Google",
        "http://localhost:8080/path?x=1 and https://example.com:443/a@b",
        "The key insight: SKIP_ALL_TESTS_ON_CI_AKIA_BRANCH is an env var name",
        "我们讨论了 API 密钥的轮换策略,以及 password 的存储方式。",
        "eyJhbGciOi is the start of a JWT header",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert find_secrets(text) == []
    assert redact(text) == text


def test_empty_and_secretless_text():
    assert redact("") == ""
    assert redact("hello world") == "hello world"


def test_large_text_is_handled():
    # 1 MB of transcript-like text with one secret in the middle.
    filler = "The assistant explained the sk-learn pipeline and the api key rotation. " * 7000
    text = filler + f"Authorization: Bearer {BEARER}\n" + filler
    assert redact(text) == filler + "Authorization: Bearer [REDACTED:bearer-token]\n" + filler


TOKENS = [OPENAI_PROJ, OPENAI_LEGACY, ANTHROPIC, GOOGLE, AWS_ID, GITHUB, GITHUB_PAT, GITLAB, SLACK, STRIPE, HF, JWT]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.lists(st.text(max_size=40) | st.sampled_from(TOKENS), max_size=12))
def test_random_text_with_tokens(chunks):
    """Tokens between arbitrary text are always masked; redaction never raises and
    is idempotent (a marker is never mistaken for a secret)."""
    text = " ".join(chunks)
    masked = redact(text)
    for chunk in chunks:
        if chunk in TOKENS:
            assert chunk not in masked
    assert redact(masked) == masked
    for secret in find_secrets(text):
        assert text[secret.start : secret.end] == secret.value


def test_context_markers_are_idempotent():
    text = "postgres://alice:Tr0ub4dor&3@db/app password=Xk29!mQv api_key=4f9d2c7a1b8e6f3d0a5c Bearer 7f3Kq9Zx2Lm8Rt4Vb6Nc1Wd5"
    once = redact(text)
    assert redact(once) == once
    assert once == (
        "postgres://alice:[REDACTED:url-password]@db/app password=[REDACTED:password] "
        "api_key=[REDACTED:secret] Bearer [REDACTED:bearer-token]"
    )
