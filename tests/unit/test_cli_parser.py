"""The command line registers only the command it runs (cli/main.py, command_of):
every other command's module is left unimported; anything else gets them all."""

from __future__ import annotations

import pytest
from convo_tui.cli.main import COMMANDS, build_parser, command_of


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["search", "qdrant"], "search"),
        (["--index-dir", "search", "sessions"], "sessions"),  # the folder is called `search`
        (["--index", "search", "show", "x"], "show"),  # argparse's abbreviation of --index-dir
        (["--conf", "f.toml", "stats"], "stats"),
        (["--config=f.toml", "export", "s"], "export"),
        (["--demo"], None),
        ([], None),
        (["--help"], None),
        (["-h", "search"], None),
        (["--version"], None),
        (["serch", "x"], None),  # no command: argparse's own error, which lists them all
        (["--index-dir"], None),
    ],
)
def test_the_command_a_line_runs(argv, command):
    assert command_of(argv) == command


def _choices(parser) -> list[str]:
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    return list(sub.choices)


def test_a_command_line_registers_its_command_alone_and_help_all_of_them():
    assert _choices(build_parser(["search", "qdrant"])) == ["search"]
    assert _choices(build_parser(["--help"])) == COMMANDS
    assert _choices(build_parser(["nonsense"])) == COMMANDS
    assert _choices(build_parser()) == COMMANDS


def test_a_lone_command_parses_as_it_did_among_all(tmp_path):
    argv = ["--index-dir", str(tmp_path), "search", "qdrant hybrid", "--mode", "keyword", "--limit", "3"]
    alone, among_all = build_parser(argv).parse_args(argv), build_parser().parse_args(argv)
    assert {k: v for k, v in vars(alone).items() if k != "func"} == {k: v for k, v in vars(among_all).items() if k != "func"}
    assert alone.func is among_all.func


@pytest.mark.parametrize("value", ["0", "-3", "soon", "nan", "inf", "100001"])
def test_serve_idle_exit_takes_seconds_over_0_and_at_most_the_maximum(value, capsys):
    argv = ["serve", "--no-watch", "--idle-exit", value]
    with pytest.raises(SystemExit) as info:
        build_parser(argv).parse_args(argv)
    assert info.value.code == 2
    assert f"argument --idle-exit: '{value}' is not a number of seconds over 0 and at most 100000" in capsys.readouterr().err


def test_serve_idle_exit_reads_a_number_of_seconds():
    argv = ["serve", "--no-watch", "--idle-exit", "2.5"]
    assert build_parser(argv).parse_args(argv).idle_exit == 2.5
    assert build_parser(["serve"]).parse_args(["serve"]).idle_exit is None
