"""An English query's translated search (core/search/translated_search.py): the real e5 model and Edge store.

Without filters of its own the search asks Edge for Chinese texts by `lang`
alone and keeps the visible turns and messages itself (TRANSLATED_SPARE);
with filters Edge checks them all. Either way a Chinese
text not yet published, or outside the filters, never becomes a card.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from convo_tui.core.embed.dense import DenseModel, shared_dense
from convo_tui.core.embed.e5 import E5_MODEL
from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.index.points import LEVEL_TURN, turn_key, turn_text
from convo_tui.core.index.text_lang import text_lang
from convo_tui.core.search.pipeline import search
from convo_tui.core.search.request import Embedders
from convo_tui.core.store.base import Point
from convo_tui.core.store.edge import EdgeStore

QUERY = "database timeout"  # translated: 数据库 / 资料库, 超时


def _turn(dense: DenseModel, sparse: SparseEmbedder, session: str, project: str, user: str, ai: str, visible: bool) -> Point:
    text = turn_text(user, ai)
    payload = {
        "level": LEVEL_TURN,
        "key": turn_key(session, 0),
        "session_id": session,
        "project": project,
        "turn_index": 0,
        "message_ids": ["m0", "m1"],
        "timestamp": 1_780_000_000.0,
        "user_text": user,
        "ai_text": ai,
        "lang": text_lang(text),
        "visible": visible,
        "dense_ready": True,
    }
    return Point(payload["key"], dense.embed_documents([text])[0], sparse.embed_document(text), payload)


@pytest.fixture
def store(tmp_path: Path):
    dense = shared_dense(E5_MODEL)  # a model that reads Chinese: English queries get a translated search
    sparse = SparseEmbedder()
    edge = EdgeStore(tmp_path / "index")
    edge.ensure(dense.dim)
    edge.upsert(
        [
            _turn(
                dense, sparse, "zh-timeout", "backend", "数据库连接超时怎么办？", "把数据库的超时设为三十秒，并加上重试。", True
            ),
            _turn(dense, sparse, "zh-timeout-new", "backend", "数据库又超时了", "超时改成六十秒。", False),
            _turn(dense, sparse, "zh-timeout-web", "webshop", "网页的数据库超时报警", "数据库超时的告警已经加上。", True),
            # An English word of the query the index knows: else the query is nonsense to it (unknown_words.knows_a_word).
            _turn(dense, sparse, "en-backup", "webshop", "Back up the database nightly", "A cron job runs pg_dump at 2am.", True),
        ]
    )
    yield edge, Embedders(dense, sparse)
    edge.close()


def test_an_english_query_finds_the_published_chinese_turns_and_never_one_being_published(store):
    edge, embedders = store
    sessions = [hit.session_id for hit in search(edge, embedders, QUERY, limit=10)]
    assert "zh-timeout" in sessions  # by the translation of its words: no English word of it matches
    assert "zh-timeout-new" not in sessions  # not visible: its session is still being written


def test_a_filtered_english_query_keeps_to_its_filters(store):
    edge, embedders = store
    sessions = [hit.session_id for hit in search(edge, embedders, f"{QUERY} project:backend", limit=10)]
    assert sessions == ["zh-timeout"]
