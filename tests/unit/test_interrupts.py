"""Ctrl+C and SIGTERM as a stop request for `index` and `serve` (cli/interrupts.py)."""

from __future__ import annotations

import os
import signal

import pytest
from convo_tui.cli.interrupts import StopRequest


def test_the_first_signal_asks_to_stop_and_wakes_a_waiting_main_thread():
    before = signal.getsignal(signal.SIGTERM)
    with StopRequest() as stop:
        assert not stop.is_set() and not stop()
        os.kill(os.getpid(), signal.SIGTERM)  # handled in this (the main) thread before kill returns
        assert stop.wait() and stop.is_set() and stop.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_second_signal_stops_at_once():
    with StopRequest() as stop, pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.is_set()
        os.kill(os.getpid(), signal.SIGINT)


def test_wait_returns_when_nothing_came_within_its_timeout():
    with StopRequest() as stop:
        assert stop.wait(0.01) is False


def test_a_sigint_the_shell_ignores_stays_ignored():
    """A script's `convo-tui serve &` ignores Ctrl+C on purpose (the shell set SIG_IGN)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with StopRequest() as stop:
            os.kill(os.getpid(), signal.SIGINT)
            assert not stop.is_set()
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
