"""Conversations as units over the real index: isolation, context, user edits, deletion."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.context import context_for, request_body
from convo_tui.core.errors import ConvoError
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.paths import FIXTURES

CORPUS = FIXTURES / "conversations"
B_TEXTS = [
    "My cat eats fish every day",
    "Fish every day is too much",
    "猫可以吃鱼吗",
    "猫可以吃煮熟的鱼",
    "What about cat treats?",
    "Cat treats should stay",
]


def _index(root: Path) -> Path:
    """Copy the corpus under `root`, index it there, return the index folder."""
    shutil.copytree(CORPUS, root / "src")
    with Library.open(Settings(index_dir=root / "index")) as library:
        report = library.index([root / "src"])
    assert (report.added, report.sessions, report.skipped) == (2, 2, [])
    return root / "index"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("conversations")
    lib = Library.open(Settings(index_dir=_index(root)))
    yield lib
    lib.close()


@pytest.fixture
def fresh(tmp_path):
    """A library of its own, for tests that change the index."""
    lib = Library.open(Settings(index_dir=_index(tmp_path)))
    yield lib
    lib.close()


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


# -- isolation -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_session_filter_isolates_every_level(library, mode):
    query = "cat fish 猫 鱼"
    everywhere = library.search(query, limit=20, mode=mode)
    # The two conversations share vocabulary: unscoped, both answer.
    assert {h.session_id for h in everywhere} == {"pets-a", "pets-b"}
    for own, other in (("pets-a", "pets-b"), ("pets-b", "pets-a")):
        turns = library.search(f"{query} session:{own}", limit=20, mode=mode)
        messages = library.search(f"session:{own} role:user {query}", limit=20, mode=mode)
        assert turns and messages
        assert {h.session_id for h in turns} == {own}
        assert {(h.session_id, h.kind) for h in messages} == {(own, "message")}
        assert {h.session_id for h in library.hits_in_session(query, own, mode=mode)} == {own}
        assert other not in json.dumps([h.to_json() for h in turns + messages])


def test_fuzzy_search_is_isolated_too(library):
    assert {h.session_id for h in library.search("fish", limit=20, mode="fuzzy")} == {"pets-a", "pets-b"}
    assert {h.session_id for h in library.search("fish session:pets-a", limit=20, mode="fuzzy")} == {"pets-a"}


def test_a_session_filter_in_the_question_cannot_widen_the_scope(library):
    messages = context_for(library, "cat fish session:pets-b", session_id="pets-a", recent=0, refs=10, system=None)
    assert "Relevant reference (semantic):" in messages[0].content
    assert not any(text in messages[0].content for text in B_TEXTS)


# -- context ----------------------------------------------------------------------


def test_context_for_a_session_uses_its_recent_messages_and_its_own_references(library):
    messages = context_for(library, "猫吃鱼要注意什么？", session_id="pets-a", recent=2, refs=5, system="S")
    assert request_body("gpt-3.5-turbo", messages) == {
        "model": "gpt-3.5-turbo",
        "messages": [
            {"role": "system", "content": "S"},
            {
                "role": "user",
                "content": "Conversation (recent):\n"
                "User: Can my cat eat raw fish?\n"
                "Assistant: Cooked fish is safer for a cat; raw fish can carry parasites.\n\n"
                "Relevant reference (semantic):\n"
                "User: 我家的猫喜欢鱼\nAssistant: 可以适量喂鱼，注意去刺。\n"
                "User: 猫吃什么\nAssistant: 猫是肉食动物，适合吃猫粮、鱼肉和煮熟的鸡肉。\n"
                "User: 狗吃什么\nAssistant: 狗可以吃狗粮、肉类和部分蔬菜。\n\n"
                "用户提问: 猫吃鱼要注意什么？",
            },
        ],
    }


def test_context_across_sessions_draws_on_the_other_conversation(library):
    messages = context_for(
        library, "猫吃鱼要注意什么？", session_id="pets-a", recent=2, refs=3, all_sessions=True, system=None, split=True
    )
    assert [m.role for m in messages] == ["user", "user"]
    assert messages[1].content == "猫吃鱼要注意什么？"
    references = messages[0].content.split("Relevant reference (semantic):\n", 1)[1].splitlines()
    assert "User: 猫可以吃鱼吗" in references
    assert "User: Can my cat eat raw fish?" not in references  # already in the recent section
    assert len(references) == 6


def test_context_without_a_session_has_no_recent_section(library):
    messages = context_for(library, "cat treats", refs=1, system=None, preferences="Short answers.")
    assert messages[0].content == (
        "User Preferences: Short answers.\n\nRelevant reference (semantic):\n"
        "User: What about cat treats?\nAssistant: Cat treats should stay under ten percent of what the cat eats.\n\n"
        "用户提问: cat treats"
    )


def test_context_for_an_unknown_session_is_a_clear_error(library):
    with pytest.raises(ConvoError, match="no session 'nope' in the index"):
        context_for(library, "q", session_id="nope")


# -- user edits ---------------------------------------------------------------------


def test_edits_show_in_listing_session_and_hits(fresh):
    assert [s.id for s in fresh.sessions()] == ["pets-b", "pets-a"]  # newest first
    fresh.rename_session("pets-b", "Daily fish")
    fresh.describe_session("pets-b", "Is fish every day too much?")
    fresh.star_session("pets-b")
    fresh.tag_session("pets-b", ["cats", "food", "cats"])
    summary = fresh.tag_session("pets-b", ["food"], remove=True)
    assert (summary.title, summary.description, summary.starred, summary.tags) == (
        "Daily fish",
        "Is fish every day too much?",
        True,
        ["cats"],
    )
    listed = {s.id: s for s in fresh.sessions()}
    assert listed["pets-b"].title == "Daily fish" and listed["pets-a"].title == "狗吃什么"
    session = fresh.session("pets-b")
    assert (session.title, session.meta["source_title"]) == ("Daily fish", "My cat eats fish every day, is that ok?")
    assert {h.session_title for h in fresh.search("cat treats session:pets-b", limit=3)} == {"Daily fish"}
    assert fresh.set_session_settings("pets-b", hide_tools=True) == {"hide_thinking": False, "hide_tools": True}
    assert fresh.session_settings("pets-a") == {"hide_thinking": False, "hide_tools": False}
    with pytest.raises(ConvoError, match="no session 'nope' in the index"):
        fresh.rename_session("nope", "x")
    # A blank title gives the source's title back.
    assert fresh.rename_session("pets-b", "").title == "My cat eats fish every day, is that ok?"


def test_edits_survive_reindexing_a_changed_source(fresh, tmp_path):
    fresh.rename_session("pets-b", "Daily fish")
    fresh.star_session("pets-b")
    source = tmp_path / "src" / "pets.jsonl"
    with source.open("a", encoding="utf-8") as handle:
        row = {
            "conversation_id": "pets-b",
            "timestamp": "2026-02-11T08:00:00Z",
            "user_message": "And milk?",
            "ai_response": "Most adult cats do not digest milk well.",
        }
        handle.write(json.dumps(row) + "\n")
    report = fresh.index([tmp_path / "src"])
    assert report.updated == 2
    summary = fresh.session_summary("pets-b")
    assert (summary.title, summary.starred, summary.message_count) == ("Daily fish", True, 8)


def test_delete_keeps_the_source_and_survives_rebuild_until_restored(fresh, tmp_path):
    source = tmp_path / "src" / "pets.jsonl"
    before = source.read_bytes()
    fresh.delete_session("pets-a")
    assert source.read_bytes() == before
    assert [s.id for s in fresh.sessions()] == ["pets-b"]
    assert {h.session_id for h in fresh.search("猫 鱼 cat fish", limit=20)} == {"pets-b"}
    with pytest.raises(ConvoError, match="no session 'pets-a'"):
        fresh.session("pets-a")
    # Neither a plain run nor a full rebuild brings it back while the file is unchanged.
    fresh.index([tmp_path / "src"])
    fresh.index([tmp_path / "src"], rebuild=True)
    assert [s.id for s in fresh.sessions()] == ["pets-b"]
    assert fresh.restore_session("pets-a") is True
    assert fresh.restore_session("pets-a") is False
    fresh.index([tmp_path / "src"])
    assert [s.id for s in fresh.sessions()] == ["pets-b", "pets-a"]


def test_a_deleted_session_returns_when_its_source_changes(fresh, tmp_path):
    fresh.delete_session("pets-a")
    source = tmp_path / "src" / "pets.jsonl"
    with source.open("a", encoding="utf-8") as handle:
        row = {
            "conversation_id": "pets-a",
            "timestamp": "2026-03-01T10:00:00Z",
            "user_message": "Hamsters?",
            "ai_response": "Seeds and vegetables.",
        }
        handle.write(json.dumps(row) + "\n")
    fresh.index([tmp_path / "src"])
    assert fresh.session_summary("pets-a").message_count == 10


# -- command line --------------------------------------------------------------------


def test_cli_context_session_and_show(tmp_path):
    index = str(_index(tmp_path))
    code, out = _cli(
        "--index-dir",
        index,
        "context",
        "那猫呢？",
        "--session",
        "pets-a",
        "--recent",
        "2",
        "--refs",
        "0",
        "--system",
        "S",
        "--llm-model",
        "gpt-3.5-turbo",
        "--preferences",
        "用户偏好喝茶。",
    )
    assert code == 0
    assert json.loads(out) == {
        "model": "gpt-3.5-turbo",
        "messages": [
            {"role": "system", "content": "S"},
            {
                "role": "user",
                "content": "User Preferences: 用户偏好喝茶。\n\nConversation (recent):\n"
                "User: Can my cat eat raw fish?\nAssistant: Cooked fish is safer for a cat; raw fish can carry parasites.\n\n用户提问: 那猫呢？",
            },
        ],
    }
    assert '\n  "model"' in out and "那猫呢" in out  # pretty, not ASCII-escaped

    assert _cli("--index-dir", index, "session", "rename", "pets-a", "Pet food") == (0, "pets-a: title is now 'Pet food'\n")
    assert _cli("--index-dir", index, "session", "star", "pets-a") == (0, "pets-a: starred\n")
    assert _cli("--index-dir", index, "session", "tag", "pets-a", "cats", "dogs") == (0, "pets-a: tags cats, dogs\n")
    assert _cli("--index-dir", index, "session", "describe", "pets-a", "What pets eat") == (0, "pets-a: description set\n")
    assert _cli("--index-dir", index, "session", "settings", "pets-a", "--hide-thinking") == (
        0,
        "hide_thinking = true\nhide_tools = false\n",
    )
    assert _cli("--index-dir", index, "session", "settings", "pets-a") == (0, "hide_thinking = true\nhide_tools = false\n")

    code, out = _cli("--index-dir", index, "show", "pets-a", "--newest-first", "--json")
    shown = json.loads(out)
    assert shown["session"]["title"] == "Pet food"
    assert [m["text"] for m in shown["messages"]][:2] == [
        "Cooked fish is safer for a cat; raw fish can carry parasites.",
        "Can my cat eat raw fish?",
    ]
    assert [t["index"] for t in shown["turns"]] == [3, 2, 1, 0]

    assert _cli("--index-dir", index, "session", "delete", "pets-a", "--yes")[0] == 0
    assert main(["--index-dir", index, "session", "delete", "pets-a", "--yes"]) == 1  # already gone
    code, out = _cli("--index-dir", index, "session", "restore", "pets-a")
    assert (code, out) == (0, "pets-a: restored; the next `convo-tui index` brings it back\n")


def test_cli_delete_refuses_without_a_terminal_or_yes(tmp_path, capsys, monkeypatch):
    index = str(_index(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert main(["--index-dir", index, "session", "delete", "pets-b"]) == 1
    assert capsys.readouterr().err == "convo-tui: not deleting pets-b: stdin is not a terminal, pass --yes to confirm\n"
    with Library.open(Settings(index_dir=Path(index))) as library:
        assert [s.id for s in library.sessions()] == ["pets-b", "pets-a"]
