"""Needles with queries for the real-history bench (issue 26): exact and paraphrase.

Exact needles are things a developer pastes back into search: an error naming
a table, a constant, a command, a path, a test name, a host and port. Most
sit where a dense model never looks (a tool's input or output, thinking), in
sessions about the same topic as many others, so prose about the topic
competes with them; keyword mode finds each one in its top 5, and hybrid must
too. Paraphrase needles are a distinctive problem told in a user's prompt;
the query says the same thing in other words (few shared terms), so only the
meaning finds it.

Each entry: (part, planted text, query, topic). `part` is where the text goes:
"prompt" (the first question), "ai" (the first answer), "thinking", "tool
input" (a Bash command or an Edit's new text), "tool output".
"""

from __future__ import annotations

EXACT: list[tuple[str, str, str, str]] = [
    (
        "tool output",
        'psycopg2.errors.UndefinedTable: relation "ledger_entries_2019" does not exist\n'
        "LINE 1: SELECT id, amount FROM ledger_entries_2019 WHERE posted_at < $1",
        'relation "ledger_entries_2019" does not exist',
        "db",
    ),
    ("tool input", "MAX_REFRESH_RETRIES = 7  # give up after a week of failed refreshes", "MAX_REFRESH_RETRIES", "auth"),
    (
        "tool input",
        "kubectl rollout undo deployment/payments-gateway --to-revision=41",
        "rollout undo payments-gateway --to-revision=41",
        "k8s",
    ),
    (
        "tool output",
        "FileNotFoundError: [Errno 2] No such file or directory: '/srv/models/reranker-v3.onnx'",
        "/srv/models/reranker-v3.onnx",
        "rag",
    ),
    ("prompt", "Why does useDebouncedSearchQuery fire twice on the first render?", "useDebouncedSearchQuery", "frontend"),
    (
        "tool output",
        "FAILED tests/test_scheduler.py::test_cron_skips_dst_gap - AssertionError: expected 3 runs, got 2",
        "test_cron_skips_dst_gap",
        "ci",
    ),
    (
        "thinking",
        "The QDRANT__SERVICE__GRPC_PORT override is ignored because the compose file sets the port again.",
        "QDRANT__SERVICE__GRPC_PORT",
        "qdrant",
    ),
    (
        "tool output",
        "panic: dial tcp 10.42.7.19:6380: connect: connection refused",
        "10.42.7.19:6380 connection refused",
        "go",
    ),
    ("tool input", "grep -rn 'def reconcile_ledger_snapshot' src/", "reconcile_ledger_snapshot", "db"),
    (
        "ai",
        "Set `priority_escape_binding = false` in the app's bindings so Escape reaches the input first.",
        "priority_escape_binding",
        "tui",
    ),
]

PARAPHRASE: list[tuple[str, str, str, str]] = [
    (
        "prompt",
        "Our nightly export to the accounting partner writes every row twice whenever the job gets retried after a timeout.",
        "the overnight bookkeeping file has duplicated lines after a re-run",
        "db",
    ),
    (
        "prompt",
        "The mobile app logs people out every time they switch from wifi to cellular data.",
        "users lose their login when the phone changes network",
        "auth",
    ),
    (
        "prompt",
        "Search results still show products that were deleted from the catalogue hours ago.",
        "removed items keep appearing when customers look things up",
        "qdrant",
    ),
    (
        "prompt",
        "The invoice PDF renders the currency symbol as a question mark for Japanese yen.",
        "yen sign broken in the generated bills",
        "frontend",
    ),
    (
        "prompt",
        "Deploying on Friday evening took checkout down for twenty minutes because the migration locked the orders table.",
        "a schema change blocked purchases during a release",
        "db",
    ),
    (
        "prompt",
        "The test suite passes on my machine but the build server kills it after exactly one hour.",
        "CI job stopped at the sixty minute limit although tests are fine on my laptop",
        "ci",
    ),
    (
        "prompt",
        "Every morning the dashboard chart shows yesterday's numbers until somebody clears the cache by hand.",
        "graphs are stale at the start of the day until a manual purge",
        "perf",
    ),
    (
        "prompt",
        "Memory of the worker process climbs by a few megabytes with every uploaded image and never comes back down.",
        "RAM keeps growing for each picture that gets processed",
        "perf",
    ),
    (
        "prompt",
        "Emails to customers with an apostrophe in their surname bounce because the address gets escaped twice.",
        "messages fail for people named O'Brien because of double encoding",
        "auth",
    ),
    (
        "prompt",
        "The autocomplete box freezes the page while typing because it filters fifty thousand cities on every keystroke.",
        "typing in the suggestion field makes the browser hang",
        "frontend",
    ),
]


def all_needles() -> list[tuple[str, str, str, str, str]]:
    """(name, part, text, query, topic): "exact-0".."exact-9", "paraphrase-0".."paraphrase-9"."""
    return [(f"exact-{i}", *n) for i, n in enumerate(EXACT)] + [(f"paraphrase-{i}", *n) for i, n in enumerate(PARAPHRASE)]
