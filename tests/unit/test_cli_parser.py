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


def _error(argv, capsys) -> list[str]:
    from convo_tui.cli.main import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-2:]


def test_a_value_read_as_an_option_is_shown_how_to_pass_it(capsys):
    assert _error(["show", "-abc"], capsys) == [
        "convo-tui show: error: the following arguments are required: PATH ('-abc' was read as an option)",
        "convo-tui show: to give a value that starts with '-', put it after '--': convo-tui show -- -abc",
    ]
    # known options stay before `--`, with their values; the values after it keep their order
    assert _error(["session", "rename", "-abc", "new title", "--index-dir", "/tmp/i", "--json"], capsys)[-1] == (
        "convo-tui session rename: to give a value that starts with '-', put it after '--': "
        "convo-tui session rename --index-dir /tmp/i -- -abc 'new title' --json"
    )


@pytest.mark.parametrize(
    ("argv", "advice"),
    [
        # an option's own value that starts with '-': joined to it, not after '--'
        (["show", "--index-dir", "-d", "x"], "to give --index-dir a value that starts with '-', join them: --index-dir=-d"),
        # an abbreviated option and its value stay before '--'
        (
            ["show", "-abc", "--index", "/tmp/x"],
            "to give a value that starts with '-', put it after '--': convo-tui show --index /tmp/x -- -abc",
        ),
        (
            ["search", "how", "to", "--limit", "3", "fix"],
            "words after an option are not read with the words before it: put the options last, or quote the words",
        ),
    ],
)
def test_advice_fits_the_mistake(argv, advice, capsys):
    command = " ".join(argv[:1])
    assert _error(argv, capsys)[-1] == f"convo-tui {command}: {advice}"


@pytest.mark.parametrize("argv", [["context", "--recent", "-3", "x"], ["search", "--limit", "-5", "foo", "--bogus"]])
def test_no_separator_advice_for_a_value_an_option_took(argv, capsys):
    assert not any("'--'" in line for line in _error(argv, capsys))


def test_no_advice_about_options_where_no_option_was_given(capsys):
    assert _error(["show", "a.jsonl", "b.jsonl"], capsys)[-1] == "convo-tui show: error: unrecognized arguments: b.jsonl"


@pytest.mark.parametrize(
    ("argv", "advice"),
    [
        (["search", "--since", "3d", "qdrant"], "'your words after:3d'"),
        (["search", "qdrant", "--project=web"], "'your words project:web'"),
        (["search", "--tools", "qdrant"], "'your words has:tools'"),
    ],
)
def test_an_option_search_lacks_is_reported_by_search_with_where_the_filter_goes(argv, advice, capsys):
    first, second = _error(argv, capsys)
    assert first.startswith("convo-tui search: error: unrecognized arguments: ")
    assert second == f"convo-tui search: filters go inside the query: convo-tui search {advice}"


def test_an_option_no_command_has_is_reported_by_the_command_with_its_usage(capsys):
    from convo_tui.cli.main import main

    with pytest.raises(SystemExit):
        main(["sessions", "--since", "3d"])
    err = capsys.readouterr().err
    assert err.startswith("usage: convo-tui sessions ")
    assert err.strip().endswith("convo-tui sessions: error: unrecognized arguments: --since 3d")


def test_a_query_of_several_unquoted_words_is_one_query():
    argv = ["search", "how", "we", "set", "up", "qdrant", "--limit", "3"]
    assert build_parser(argv).parse_args(argv).query == ["how", "we", "set", "up", "qdrant"]


def test_search_runs_the_unquoted_words_as_one_query(monkeypatch):
    from convo_tui.cli import search

    asked: list[str] = []

    def parse(query: str):
        asked.append(query)
        raise search.QueryError("stop here")

    monkeypatch.setattr(search, "parse_query", parse)
    argv = ["search", "how", "we", "set", "up", "qdrant"]
    args = build_parser(argv).parse_args(argv)
    with pytest.raises(search.QueryError):
        search.run(args)
    assert asked == ["how we set up qdrant"]


def test_an_empty_question_to_context_is_an_error_as_an_empty_search_is(capsys, tmp_path):
    from convo_tui.cli.main import main

    assert main(["context", "  ", "--index-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == "convo-tui: the question is empty: say what to ask the model\n"
    assert not any(tmp_path.iterdir())  # said before any index was opened
