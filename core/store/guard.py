"""A Store shared by threads: the holder answers requests while it indexes.

Qdrant Edge runs reads and writes from several threads at once (its .pyi says
nothing either way; tests/engine/test_holder_threads.py drives upserts, optimize,
queries and scrolls together), but a close, drop or create swaps the shard
under everyone. So every call shares a lock that those three take alone.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.store.base import DenseSwitch, Filter, Point, Query, Restage, Scored, Store


class SharedLock:
    """Many holders at once, or one exclusive holder (writers are not starved)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._waiting_writers = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._waiting_writers:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting_writers += 1
            while self._writer or self._readers:
                self._cond.wait()
            self._waiting_writers -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


class GuardedStore(Store):
    """`inner` with lifecycle calls (ensure, drop, close) kept apart from everything else."""

    def __init__(self, inner: Store):
        self.inner = inner
        self._lock = SharedLock()

    def __getattr__(self, name: str) -> Any:  # path, read_only...
        return getattr(self.inner, name)

    @property
    def damaged(self) -> IndexUnavailable | None:  # type: ignore[override]
        return self.inner.damaged

    def ensure(self, dim: int) -> None:
        with self._lock.exclusive():
            self.inner.ensure(dim)

    def drop(self) -> None:
        with self._lock.exclusive():
            self.inner.drop()

    def close(self) -> None:
        with self._lock.exclusive():
            self.inner.close()

    def let_go(self) -> None:
        with self._lock.exclusive():
            self.inner.let_go()

    def upsert(self, points: Sequence[Point]) -> None:
        with self._lock.shared():
            self.inner.upsert(points)

    def update_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None:
        with self._lock.shared():
            self.inner.update_vectors(vectors)

    def delete(self, flt: Filter) -> None:
        with self._lock.shared():
            self.inner.delete(flt)

    def set_payload(self, values: dict[str, Any], flt: Filter) -> None:
        with self._lock.shared():
            self.inner.set_payload(values, flt)

    def query(self, queries: Sequence[Query]) -> list[list[Scored]]:
        with self._lock.shared():
            return self.inner.query(queries)

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        with self._lock.shared():
            return self.inner.payloads(ids)

    def scroll(self, flt: Filter | None = None, *, fields: Sequence[str] | None = None, batch: int = 512) -> Iterator[Scored]:
        """Each page is read under the lock; a close between pages ends the scroll."""
        pages = self.inner.scroll(flt, fields=fields, batch=batch)
        while True:
            with self._lock.shared():
                chunk = [point for _, point in zip(range(batch), pages, strict=False)]
            yield from chunk
            if len(chunk) < batch:
                return

    def retrieve(self, keys: Sequence[str]) -> list[Scored]:
        with self._lock.shared():
            return self.inner.retrieve(keys)

    def newest(self, flt: Filter | None, *, limit: int, fields: Sequence[str] | None = None) -> list[Scored]:
        with self._lock.shared():
            return self.inner.newest(flt, limit=limit, fields=fields)

    def count(self, flt: Filter | None = None) -> int:
        with self._lock.shared():
            return self.inner.count(flt)

    def read_meta(self) -> dict[str, Any]:
        return self.inner.read_meta()

    def write_meta(self, meta: dict[str, Any]) -> None:
        with self._lock.shared():
            self.inner.write_meta(meta)

    def begin_dense_switch(self, dim: int) -> DenseSwitch:
        with self._lock.shared():
            return _GuardedSwitch(self.inner.begin_dense_switch(dim), self._lock)

    def optimize(self) -> None:
        with self._lock.shared():
            self.inner.optimize()

    def flush(self) -> None:
        with self._lock.shared():
            self.inner.flush()

    def release_pages(self) -> None:
        with self._lock.shared():
            self.inner.release_pages()

    def rebuild_note(self) -> str | None:
        return self.inner.rebuild_note()

    def writes(self) -> int | None:
        return self.inner.writes()


class _GuardedSwitch(DenseSwitch):
    """Pages are copied beside readers; the commit swaps the shard, so it goes alone."""

    def __init__(self, inner: DenseSwitch, lock: SharedLock):
        self.inner = inner
        self._lock = lock

    def copy(self, restage: Restage, batch: int = 512) -> int:
        with self._lock.shared():
            return self.inner.copy(restage, batch)

    def commit(self, meta: dict[str, Any]) -> None:
        with self._lock.exclusive():
            self.inner.commit(meta)

    def abort(self) -> None:
        with self._lock.shared():
            self.inner.abort()
