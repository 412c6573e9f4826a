"""What phase 2 embeds (issue 25): each turn once; a message chunk only when its
turn's vector does not read it; search still ranks covered messages by meaning
and says which stage placed each card. Real MiniLM, real Edge index."""

import pytest
from convo_tui.core.index.publish import visible_filter
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.base import Cond

LONG = " ".join(f"Step {i}: drain node {i} and wait for its pods to reschedule." for i in range(60))
SESSIONS = {
    "short": [
        ("why does the checkout page load slowly", "The product images are not cached; add a CDN in front."),
        ("and the fonts?", "Preload them and serve them from the same CDN."),
    ],
    "long": [("how do we upgrade the cluster without downtime", LONG)],
    "tools": [
        (
            "the database refuses connections",
            "Let me check the logs.\n[Tool call] Shell\ncommand: pg_isready -h db-primary-7 -p 6543\n\nThe server is not accepting connections.",
        )
    ],
}


def write(root):
    folder = root / "Users-dev-code-demo" / "agent-transcripts"
    folder.mkdir(parents=True)
    for sid, turns in SESSIONS.items():
        text = "\n\n".join(f"user:\n{u}\n\nassistant:\n{a}" for u, a in turns) + "\n"
        (folder / f"{sid}.txt").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    root = tmp_path_factory.mktemp("selection")
    library = Library.open(Settings(index_dir=root / "index", model=DEFAULT_MODEL))
    library.index([write(root / "src")])
    yield library
    library.close()


def _dense_keys(lib, level):
    flt = visible_filter(Cond("level", value=level), Cond("dense_ready", value=True))
    return sorted(p.payload["key"] for p in lib.store.scroll(flt, fields=["key"]))


def test_every_turn_is_embedded_and_only_the_unread_part_of_a_long_turn_again(lib):
    turns = _dense_keys(lib, "turn")
    assert len(turns) == 4
    messages = _dense_keys(lib, "message")
    # MiniLM embeds each answered question apart (DenseEmbedder.embed_questions);
    # the short answers are read by their turn's vector, the long answer's chunks are not:
    # the turn's vector reads its first 128 word pieces (EMBED_WINDOW), question included,
    # which is less than one 200-piece chunk.
    questions = ["long:msg-0", "short:msg-0", "short:msg-2", "tools:msg-0"]
    assert [key for key in messages if not key.startswith("long:msg-1")] == questions
    assert "long:msg-1" in messages and any(key.startswith("long:msg-1#") for key in messages)
    status = lib.semantic_status()
    assert status.ready == status.total == len(turns) + len(messages)


def test_a_covered_message_is_found_by_meaning_through_its_turn(lib):
    hits = lib.search("preload the web fonts", mode="semantic", limit=3)
    assert (hits[0].session_id, hits[0].turn_index) == ("short", 1)
    assert hits[0].stage == "meaning"


def test_each_card_says_which_stage_placed_it(lib):
    exact = lib.search("pg_isready db-primary-7", limit=3)
    assert (exact[0].session_id, exact[0].stage) == ("tools", "exact")
    keyword = lib.search("pg_isready", mode="keyword", limit=1)
    assert keyword[0].stage in ("keyword", "exact")
    assert all(h.stage == "fuzzy" for h in lib.search("chekout", mode="fuzzy", limit=3))
    both = lib.search("checkout page loads slowly because images are not cached", limit=1)[0]
    assert both.session_id == "short" and both.stage in ("both", "meaning")
    assert both.to_json()["stage"] == both.stage
