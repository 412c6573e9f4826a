"""core/environ.py: a variable set for a block is put back as it was, even on an error."""

import os

import pytest
from convo_tui.core.environ import environment_variable


def test_a_variable_that_was_unset_is_unset_again(monkeypatch):
    monkeypatch.delenv("CONVO_TUI_PROBE", raising=False)
    with environment_variable("CONVO_TUI_PROBE", "1"):
        assert os.environ["CONVO_TUI_PROBE"] == "1"
    assert "CONVO_TUI_PROBE" not in os.environ


def test_a_variable_that_was_set_gets_its_value_back_after_an_error(monkeypatch):
    monkeypatch.setenv("CONVO_TUI_PROBE", "users")
    with pytest.raises(RuntimeError), environment_variable("CONVO_TUI_PROBE", "ours"):
        assert os.environ["CONVO_TUI_PROBE"] == "ours"
        raise RuntimeError("the load failed")
    assert os.environ["CONVO_TUI_PROBE"] == "users"
