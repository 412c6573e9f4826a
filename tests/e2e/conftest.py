"""The end-to-end tier: the installed `convo-tui` in a pseudo-terminal, as a person runs it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.e2e.terminal import Terminal


@pytest.fixture
def terminal() -> Iterator[Callable[..., Terminal]]:
    """Start programs in terminals (`terminal(argv, cols=80, rows=24)`); all are closed after the test."""
    started: list[Terminal] = []

    def start(argv: list[str], **options: object) -> Terminal:
        term = Terminal(argv, **options)  # type: ignore[arg-type]
        started.append(term)
        return term

    yield start
    for term in started:
        term.close()
