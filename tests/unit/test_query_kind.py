"""Query classification (core/search/query_kind.py): identifiers, code, pasted errors."""

import pytest
from convo_tui.core.search.query_kind import classify, holds_all, identifier_tokens


@pytest.mark.parametrize(
    ("query", "identifiers"),
    [
        ("ECONNREFUSED 127.0.0.1:5432", ["ECONNREFUSED", "127.0.0.1:5432"]),
        ("test_checkout_total_rounding_half_even", ["test_checkout_total_rounding_half_even"]),
        ("why does useDebouncedCallback fire twice", ["useDebouncedCallback"]),
        ("git push --force-with-lease", ["--force-with-lease"]),
        ("error E0425 in main.rs", ["E0425", "main.rs"]),
        ("QDRANT__SERVICE__GRPC_PORT is ignored", ["QDRANT__SERVICE__GRPC_PORT"]),
        ("open /srv/models/reranker-v3.onnx", ["/srv/models/reranker-v3.onnx"]),
        ("`pool_size` in the config", ["pool_size"]),
        ("the login bug only one browser had", []),
        ("non-root pods can't write to sign-in volumes", []),
        ("The Postgres deadlock HTTP", []),
    ],
)
def test_identifier_tokens(query, identifiers):
    assert identifier_tokens(query) == identifiers


def test_a_sentence_with_an_identifier_is_not_code_but_keeps_the_identifier():
    kind = classify("how did we fix the deadlock in reconcile_ledger_snapshot last week")
    assert kind.identifiers == ("reconcile_ledger_snapshot",) and not kind.code and not kind.error


def test_a_query_made_of_identifiers_is_code():
    assert classify("MAX_REFRESH_RETRIES").code
    assert classify("rollout undo payments-gateway --to-revision=41").code is False  # two words of prose, one flag
    assert classify("kubectl --to-revision=41 deployment/payments-gateway").code


@pytest.mark.parametrize(
    "query",
    [
        'psycopg2.OperationalError: connection to server at "db-primary.internal" (10.0.7.4), port 5432 failed',
        "Traceback (most recent call last): File app.py line 3",
        "panic: dial tcp 10.42.7.19:6380: connect: connection refused",
        "error[E0382]: borrow of moved value: `config`",
        "bash: pg_isready: command not found on the runner",
    ],
)
def test_pasted_errors_are_recognised(query):
    assert classify(query).error


@pytest.mark.parametrize("query", ['"keyset pagination" has:tools', "error handling in the checkout", "Postgres deadlock"])
def test_prose_and_phrases_are_not_errors(query):
    assert not classify(query).error


def test_holds_all_is_a_case_insensitive_verbatim_test():
    text = "Error: connect ECONNREFUSED 127.0.0.1:5432 while starting"
    assert holds_all(text, ("econnrefused", "127.0.0.1:5432"))
    assert not holds_all(text, ("ECONNREFUSED", "127.0.0.1:6543"))
