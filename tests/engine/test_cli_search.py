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
    assert list(hit) == list(Hit.__dataclass_fields__)
    assert (hit["session_id"], hit["turn_index"], hit["user_text"]) == ("rag-chunking", 1, "数据库迁移应该怎么回滚？")
    assert main(["search", "zzzqqq", "--mode", "keyword"]) == 0
    assert capsys.readouterr().out == ""
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
