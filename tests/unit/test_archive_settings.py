"""The archive's and the remote machines' settings, the `machine:` filter, the tools'
retention settings and the warnings made of them, remote names (no model, no network)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from convo_tui.core.archive.retention import claude_retention, describe, gemini_retention
from convo_tui.core.archive.status import SourceFile, retention_warning
from convo_tui.core.errors import ConfigError
from convo_tui.core.remote.sftp import local_path, mirror_name, ssh_argv
from convo_tui.core.search.query import parse_query
from convo_tui.core.settings import RemoteSource, Settings
from convo_tui.core.store.base import Cond


def load(text: str) -> Settings:
    Path(os.environ["CONVO_TUI_CONFIG"]).write_text(text, encoding="utf-8")
    return Settings.load()


def test_the_archive_is_on_by_default_with_a_cap_and_can_be_set():
    assert (Settings().archive.enabled, Settings().archive.max_mb) == (True, 10240)
    settings = load('[archive]\nenabled = false\nmax_mb = 500\nexclude = ["~/secret"]\n')
    assert (settings.archive.enabled, settings.archive.max_mb, settings.archive.exclude) == (False, 500, ["~/secret"])


def test_a_remote_is_read_with_its_paths_and_mapping():
    settings = load(
        '[[remotes]]\nname = "devbox"\nhost = "bob@devbox.example.com"\npaths = ["~/.claude/projects"]\n'
        'path_map = { "/home/bob/code" = "/Users/bob/code" }\nport = 2222\n'
    )
    (remote,) = settings.remotes
    assert (remote.name, remote.host, remote.paths, remote.port) == (
        "devbox",
        "bob@devbox.example.com",
        ["~/.claude/projects"],
        2222,
    )
    assert remote.path_map == {"/home/bob/code": "/Users/bob/code"}


@pytest.mark.parametrize(
    "table, message",
    [
        ('[archive]\ncolour = "red"\n', "unknown setting 'archive.colour'"),
        ("[archive]\nmax_mb = -1\n", "'archive.max_mb': expected `int` >= 0"),
        ('[[remotes]]\nname = "d"\nhost = "-oProxyCommand=touch /tmp/x"\n', "is not a host name"),
        ('[[remotes]]\nname = "d"\nhost = "a b"\n', "is not a host name"),
        ('[[remotes]]\nname = "d e"\nhost = "h"\n', "name 'd e' must be letters"),
        ('[[remotes]]\nname = "local"\nhost = "h"\n', "and not 'local'"),
        ('[[remotes]]\nname = "d"\nhost = "h"\nport = 0\n', "'remotes[0].port'"),
        ('[[remotes]]\nname = "d"\nhost = "h"\nuser = "x"\n', "unknown setting 'remotes[0].user'"),
        ('[[remotes]]\nhost = "h"\n', "missing required field `name`"),
    ],
)
def test_bad_archive_and_remote_settings_are_one_line_naming_the_key(table, message):
    with pytest.raises(ConfigError) as caught:
        load(table)
    text = str(caught.value)
    assert "\n" not in text and os.environ["CONVO_TUI_CONFIG"] in text and message in text


def test_ssh_runs_with_a_fixed_argument_list_and_the_host_after_the_options_end():
    remote = RemoteSource(name="devbox", host="bob@devbox", port=2222, ssh_config=Path("/c"), identity_file=Path("/k"))
    argv = ssh_argv(remote, "/usr/bin/ssh")
    assert argv[-4:] == ["-s", "--", "bob@devbox", "sftp"]
    assert "BatchMode=yes" in argv and argv[argv.index("-p") + 1] == "2222" and argv[argv.index("-F") + 1] == "/c"


def test_remote_names_become_local_paths_only_when_plain(tmp_path: Path):
    assert mirror_name(b"s.jsonl") == "s.jsonl"
    assert [mirror_name(n) for n in (b"", b".", b"..", b"a/b", b"a\0b", b"x" * 256)] == [None] * 6
    assert local_path(tmp_path, "/home/bob/.claude/x.jsonl") == tmp_path / "home/bob/.claude/x.jsonl"
    assert local_path(tmp_path, "/home/../etc/passwd") is None
    assert local_path(tmp_path, "relative/x") is None


def test_machine_filter():
    query = parse_query("qdrant machine:devbox")
    assert query.machine == "devbox" and query.text == "qdrant"
    assert Cond("machine", value="devbox") in query.store_filter().must


# -- retention ------------------------------------------------------------------------------


def test_claude_code_retention_from_its_settings_files(tmp_path: Path):
    home = Path.home()
    assert claude_retention().days == 30 and "its default" in claude_retention().where
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 14}))
    rule = claude_retention()
    assert (rule.days, rule.where) == (14, "cleanupPeriodDays in ~/.claude/settings.json")
    assert describe(rule) == "Claude Code deletes sessions after 14 days (cleanupPeriodDays in ~/.claude/settings.json)"
    project = tmp_path / "shop"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"cleanupPeriodDays": 7}))
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {}}}))
    rule = claude_retention()
    assert rule.days == 7 and str(project / ".claude" / "settings.local.json") in rule.where and "when it starts in" in rule.where


def test_gemini_retention_from_its_settings_with_comments():
    home = Path.home() / ".gemini"
    assert gemini_retention() is None  # no Gemini CLI here
    home.mkdir()
    assert gemini_retention().days == 30 and "default" in gemini_retention().where
    (home / "settings.json").write_text(
        '{\n  // keep a week\n  "general": {"sessionRetention": {"enabled": true, "maxAge": "7d"}}\n}'
    )
    rule = gemini_retention()
    assert (rule.days, rule.keep) == (7, None) and "general.sessionRetention in ~/.gemini/settings.json" in rule.where
    (home / "settings.json").write_text('{"general": {"sessionRetention": {"enabled": false}}}')
    assert gemini_retention() is None


def test_a_retention_warning_says_what_goes_next_and_what_is_kept(tmp_path: Path):
    projects = Path.home() / ".claude" / "projects" / "p"
    projects.mkdir(parents=True)
    old, fresh, gone = projects / "old.jsonl", projects / "fresh.jsonl", projects / "gone.jsonl"
    for path in (old, fresh):
        path.write_text("{}\n")
    os.utime(old, (time.time() - 40 * 86400,) * 2)
    files = [
        SourceFile(str(old), "claude-code", 1),
        SourceFile(str(fresh), "claude-code", 2),
        SourceFile(str(gone), "claude-code", 3),
    ]
    rule = claude_retention()
    line = retention_warning(rule, files, {str(gone)})
    assert line == (
        "Claude Code deletes sessions after 30 days (its default: cleanupPeriodDays is not set); 1 of its sessions here is "
        "past that and goes at its next start; convo-tui keeps a copy (3 sessions are kept only here)"
    )
    assert "would lose" in retention_warning(rule, files, None)
    elsewhere = [SourceFile(str(tmp_path / "export.jsonl"), "claude-code", 5)]
    assert retention_warning(rule, elsewhere, set()) is None  # a copy outside Claude's folders is not its to delete
