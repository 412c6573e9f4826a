"""The holder keep_warm starts waits for the command that started it to let the
index go (core/holder/access.py `open_when_free`): that command keeps the lock
to its very end (core/store/parking.py)."""

from __future__ import annotations

import pytest
from convo_tui.core.errors import IndexBusy
from convo_tui.core.holder import access
from convo_tui.core.settings import Settings
from convo_tui.core.store.lock import IndexLock


def test_it_tries_again_until_the_lock_comes_free(tmp_path, monkeypatch):
    held = IndexLock(tmp_path)
    held.acquire()
    tries: list[IndexLock] = []

    def opening(settings: Settings, **_options: object) -> IndexLock:
        if len(tries) == 2:
            held.release()  # the command that started the holder has ended
        lock = IndexLock(settings.index_dir)
        tries.append(lock)
        lock.acquire()  # IndexBusy while the other holds it
        return lock

    monkeypatch.setattr(access, "open_local", opening)
    got = access.open_when_free(Settings(index_dir=tmp_path))
    assert len(tries) == 3 and got is tries[-1]
    got.release()


def test_it_gives_up_after_one_timeout(tmp_path, monkeypatch):
    held = IndexLock(tmp_path)
    held.acquire()
    monkeypatch.setattr(access.protocol, "timeout", lambda: 0.0)

    def opening(settings: Settings, **_options: object) -> IndexLock:
        lock = IndexLock(settings.index_dir)
        lock.acquire()
        return lock

    monkeypatch.setattr(access, "open_local", opening)
    try:
        with pytest.raises(IndexBusy):
            access.open_when_free(Settings(index_dir=tmp_path))
    finally:
        held.release()
