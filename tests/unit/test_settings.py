"""Typed settings: defaults, TOML file, env overrides, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from convo_tui.core.errors import ConfigError
from convo_tui.core.settings import Settings


def test_defaults_when_no_file(isolated_dirs):
    settings = Settings.load()
    assert settings.model == "auto"
    assert settings.search_mode == "hybrid"
    assert settings.redact is True
    assert settings.index_dir == isolated_dirs / "index"  # from CONVO_TUI_INDEX_DIR
    assert settings.config_path == isolated_dirs / "config.toml"  # from CONVO_TUI_CONFIG


def test_reads_toml_file(isolated_dirs, monkeypatch):
    monkeypatch.delenv("CONVO_TUI_INDEX_DIR")
    (isolated_dirs / "config.toml").write_text(
        'index_dir = "/tmp/x-index"\nmodel = "BAAI/bge-small-en-v1.5"\nsources = ["~/notes"]\n'
        'search_limit = 25\ndebounce-ms = 80\n[keys]\n"card.open" = "enter"\n',
        encoding="utf-8",
    )
    settings = Settings.load()
    assert settings.index_dir == Path("/tmp/x-index")
    assert settings.model == "BAAI/bge-small-en-v1.5"
    assert settings.sources == [Path("~/notes").expanduser()]
    assert settings.search_limit == 25 and settings.debounce_ms == 80
    assert settings.keys == {"card.open": "enter"}


def test_env_index_dir_wins_over_file(isolated_dirs):
    (isolated_dirs / "config.toml").write_text('index_dir = "/tmp/elsewhere"\n', encoding="utf-8")
    assert Settings.load().index_dir == isolated_dirs / "index"


def test_explicit_path_argument(tmp_path):
    path = tmp_path / "other.toml"
    path.write_text('search_mode = "keyword"\n', encoding="utf-8")
    assert Settings.load(path).search_mode == "keyword"


@pytest.mark.parametrize(
    "content, message",
    [
        ("model = [", "invalid TOML"),
        ("colour = 'blue'\n", "unknown setting 'colour'"),
        ("search_limit = -1\n", "'search_limit' must be a whole number from 1 to 100,000"),
        ("search_limit = 0\n", "'search_limit' must be a whole number from 1 to 100,000"),
        ("search_limit = 99999999999999999999999\n", "'search_limit' must be a whole number from 1 to 100,000"),
        ("debounce_ms = 99999999999999\n", "'debounce_ms' must be a whole number from 0 to 100,000"),
        ("search_mode = 'magic'\n", "'search_mode' must be one of hybrid, semantic, keyword, fuzzy"),
        ("redact = 'yes'\n", "'redact' must be true or false"),
        ("sources = 'a'\n", "'sources' must be a list of paths"),
        ("sources = ['a', 3]\n", "'sources' must be a list of paths"),
        ("debounce-ms = 1.5\n", "'debounce-ms' must be a whole number from 0 to 100,000"),
        ("keep_warm = -5\n", "'keep_warm' must be a whole number of seconds from 0 to 100,000"),
        ("model = 3\n", "'model' must be a string"),
        ("[keys]\n'card.open' = 1\n", "'keys' must be a table of binding id = key"),
        ("config_path = '/x'\n", "unknown setting 'config_path'"),
    ],
)
def test_bad_file_gives_one_line_error_naming_file(isolated_dirs, content, message):
    (isolated_dirs / "config.toml").write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        Settings.load()
    text = str(info.value)
    assert "\n" not in text.strip()
    assert str(isolated_dirs / "config.toml") in text and message in text


def test_settings_stay_a_plain_dataclass_with_the_same_constructor(tmp_path):
    import dataclasses

    settings = Settings(index_dir=tmp_path / "index", search_limit=3)
    assert dataclasses.replace(settings, search_mode="keyword").search_limit == 3
    settings.index_dir = tmp_path / "other"  # the CLI's --index-dir assigns
    assert settings.index_dir == tmp_path / "other"


def test_keys_checked_against_the_ids_given(isolated_dirs):
    (isolated_dirs / "config.toml").write_text("[keys]\n'reader.next_hit' = 'j'\n'reader.nxt_hit' = 'k'\n", encoding="utf-8")
    settings = Settings.load()
    settings.check_keys({"reader.next_hit", "reader.nxt_hit"})  # both known: fine
    with pytest.raises(ConfigError) as info:
        settings.check_keys({"reader.next_hit"})
    text = str(info.value)
    assert "\n" not in text and str(isolated_dirs / "config.toml") in text and "'reader.nxt_hit'" in text
    assert "'reader.next_hit'" not in text


def test_app_refuses_a_keys_typo_with_one_line_naming_the_id(isolated_dirs):
    from convo_tui.tui.app import create_app
    from convo_tui.tui.keymap import binding_ids

    ids = binding_ids()
    # The ids come from the app's real bindings (README documents these two).
    assert {"reader.next_hit", "session.open", "app.help"} <= ids
    (isolated_dirs / "config.toml").write_text("[keys]\n'reader.next_hit' = 'j'\n", encoding="utf-8")
    create_app(Settings.load(), index_on_start=False)  # a known id: accepted
    (isolated_dirs / "config.toml").write_text("[keys]\n'reader.nexthit' = 'j'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[keys\] unknown binding id 'reader.nexthit'"):
        create_app(Settings.load(), index_on_start=False)


def test_a_config_named_on_the_command_line_must_be_a_file(tmp_path):
    """`--config` naming a missing file or a folder is one line, never the defaults in silence."""
    with pytest.raises(ConfigError, match="no such settings file"):
        Settings.load(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="not a settings file"):
        Settings.load(tmp_path)


def test_the_default_config_may_be_missing_but_not_a_folder(isolated_dirs):
    assert Settings.load().search_limit == 10  # no file: every default
    (isolated_dirs / "config.toml").mkdir()
    with pytest.raises(ConfigError, match="not a settings file"):
        Settings.load()


def test_the_command_line_reads_the_same_binding_ids_as_the_app():
    """The CLI checks [keys] against ids read from the source (no Textual import): the app's exact set."""
    from convo_tui.tui.binding_ids import declared_binding_ids
    from convo_tui.tui.keymap import binding_ids

    assert declared_binding_ids() == binding_ids()


def test_the_command_line_refuses_a_keys_typo(isolated_dirs, capsys):
    from convo_tui.cli.main import main

    (isolated_dirs / "config.toml").write_text("[keys]\n'reader.nexthit' = 'j'\n", encoding="utf-8")
    assert main(["sessions"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[keys] unknown binding id 'reader.nexthit'" in err


def test_keep_warm_from_the_file_and_the_environment(isolated_dirs, monkeypatch):
    """The suite turns keep_warm off through CONVO_TUI_KEEP_WARM; a user's file sets it;
    a bad value in the variable is one line naming it."""
    (isolated_dirs / "config.toml").write_text("keep_warm = 45\n", encoding="utf-8")
    monkeypatch.delenv("CONVO_TUI_KEEP_WARM")
    assert Settings.load().keep_warm == 45
    monkeypatch.setenv("CONVO_TUI_KEEP_WARM", "0")
    assert Settings.load().keep_warm == 0
    monkeypatch.setenv("CONVO_TUI_KEEP_WARM", "soon")
    with pytest.raises(ConfigError) as info:
        Settings.load()
    assert str(info.value) == "CONVO_TUI_KEEP_WARM: must be a whole number of seconds from 0 to 100,000, got 'soon'"
    (isolated_dirs / "config.toml").write_text("", encoding="utf-8")
    monkeypatch.delenv("CONVO_TUI_KEEP_WARM")
    assert Settings.load().keep_warm == 300
