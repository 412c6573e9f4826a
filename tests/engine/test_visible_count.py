"""count_visible (core/index/visible.py) counts what one filter on `visible` and
the field would, on a real Edge store holding hidden points of both kinds."""

from __future__ import annotations

from convo_tui.core.index.visible import count_visible
from convo_tui.core.store.base import Cond, Filter, Point
from convo_tui.core.store.edge import EdgeStore


def test_visible_points_of_a_value_are_its_count_less_the_hidden_ones(tmp_path):
    store = EdgeStore(tmp_path / "index")
    try:
        store.ensure(4)
        points = [
            Point(f"s{i}:{level}", None, None, {"level": level, "visible": i % 3 != 0, "dense_ready": i % 2 == 0})
            for i in range(30)
            for level in ("session", "turn")
        ]
        store.upsert(points)
        for field, value in (
            ("level", "session"),
            ("level", "turn"),
            ("level", "message"),
            ("dense_ready", True),
            ("dense_ready", False),
        ):
            direct = store.count(Filter(must=(Cond("visible", value=True), Cond(field, value=value))))
            assert count_visible(store, field, value) == direct, (field, value)
        assert count_visible(store, "level", "session") == 20  # a third hidden
    finally:
        store.close()
