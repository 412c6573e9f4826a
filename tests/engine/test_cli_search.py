import json
import shutil

from convo_tui.cli.main import main
from convo_tui.core.hits import Hit

from tests.paths import FIXTURES

RELEVANCE = FIXTURES / "relevance"


def test_index_search_sessions_show_prune(tmp_path, capsys):
    src = tmp_path / "src"
    shutil.copytree(RELEVANCE / "Users-alice-code-ragdocs", src / "Users-alice-code-ragdocs")
    assert main(["index", str(src)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sessions: 1 added, 0 updated, 0 unchanged, 0 removed; 0 file(s) skipped\n")
    assert main(["search", "数据库回滚", "--json", "--limit", "1"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    hit = json.loads(line)
    assert list(hit) == [*Hit.__dataclass_fields__, "coverage"]
    assert (hit["session_id"], hit["turn_index"], hit["user_text"]) == ("rag-chunking", 1, "数据库迁移应该怎么回滚？")
    assert hit["stage"] in ("keyword", "meaning", "both")
    # How much of the index the meaning part searched: all of it once phase 2 is done.
    coverage = hit["coverage"]
    assert coverage["texts_ready"] == coverage["texts_total"] > 0 and coverage["fraction"] == 1.0
    assert main(["search", "数据库回滚", "--json", "--limit", "1", "--mode", "keyword"]) == 0
    assert "coverage" not in json.loads(capsys.readouterr().out)  # keyword mode uses no meaning
    assert main(["search", "zzzqqq", "--mode", "keyword"]) == 0
    assert capsys.readouterr() == (
        "",
        "convo-tui: no results for 'zzzqqq' (misspelt? --mode fuzzy matches near spellings)\n",
    )  # said where a person reads
    assert main(["search", "zzzqqq", "--mode", "keyword", "--json"]) == 0
    assert capsys.readouterr() == ("", "")  # JSON lines: no line is the answer
    assert main(["search", "rollback source:claude"]) == 0
    assert capsys.readouterr().err == (
        "convo-tui: no results for 'rollback source:claude' (source:claude is no source convo-tui reads: did you mean "
        "source:claude-ai or source:claude-code or source:claude-managed-agents or source:claude-stream-json?)\n"
    )
    assert main(["search", "rollback project:no-such-project"]) == 0
    assert capsys.readouterr().err == (
        "convo-tui: no results for 'rollback project:no-such-project' "
        "(project:no-such-project is no indexed project: F3 or `convo-tui sessions` lists them)\n"
    )
    assert main(["search", "rollback machine:devbox"]) == 0  # no [[remotes]] here
    assert capsys.readouterr().err == (
        "convo-tui: no results for 'rollback machine:devbox' "
        "(machine:devbox is no machine convo-tui pulls from: no other machine is set up ([[remotes]] in the settings))\n"
    )
    assert main(["search", "rollback project:no-such-project machine:devbox"]) == 0  # two wrong: the app's first
    assert "(machine:devbox is no machine convo-tui pulls from" in capsys.readouterr().err
    assert main(["search", "rollback after:2099-01-01"]) == 0  # filters that match nothing, a project or not
    assert capsys.readouterr().err == (
        "convo-tui: no results for 'rollback after:2099-01-01' (no conversation matches its filters alone)\n"
    )
    assert main(["search", "  "]) == 1
    assert capsys.readouterr() == ("", 'convo-tui: the query is empty: give words, a "phrase" or a filter such as project:NAME\n')
    assert main(["search", "role:bot x"]) == 1
    assert capsys.readouterr().err == "convo-tui: role:bot is not a role (use role:user or role:ai)\n"
    assert main(["sessions", "--json"]) == 0
    assert [json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()] == ["rag-chunking"]
    shutil.rmtree(src)
    assert main(["show", "rag-chunking", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["session"]["id"] == "rag-chunking"
    assert main(["prune"]) == 0
    assert capsys.readouterr().out == "pruned 1 session(s)\n"
    assert main(["show", "rag-chunking"]) == 1


def test_search_says_how_much_is_searchable_by_meaning_while_phase_2_has_not_run(tmp_path, capsys):
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings

    src = tmp_path / "src"
    shutil.copytree(RELEVANCE / "Users-alice-code-ragdocs", src / "Users-alice-code-ragdocs")
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        library.index([src], semantic=False)  # keyword-searchable, no vectors yet
    assert main(["search", "数据库回滚", "--limit", "1", "--index-dir", str(tmp_path / "index")]) == 0
    captured = capsys.readouterr()
    assert "rag-chunking" in captured.out
    assert captured.err.startswith("convo-tui: 0/") and "searchable by meaning so far" in captured.err
    assert main(["search", "数据库回滚", "--json", "--limit", "1", "--index-dir", str(tmp_path / "index")]) == 0
    coverage = json.loads(capsys.readouterr().out)["coverage"]
    assert coverage["texts_ready"] == 0 < coverage["texts_total"] and coverage["fraction"] == 0.0
