"""Session ids as people type them: whole, or the first 8+ characters cards show.

Every engine operation that takes a session id resolves it here first, so
`convo-tui show 7a8e4618`, `session star 7a8e4618`, `context --session`, the
MCP tools and the app all accept a prefix. An id that is indexed is itself
(never a prefix of a longer one); a prefix must name one session, else the
error lists a few of those it could mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from convo_tui.core.errors import AmbiguousSessionId, ConvoError
from convo_tui.core.index.points import LEVEL_SESSION
from convo_tui.core.index.visible import visible_filter
from convo_tui.core.store.base import Cond, Store

# Shortest prefix accepted (a card shows 8 characters of the id).
MIN_PREFIX = 8
# Candidates an ambiguous prefix names.
SHOWN = 3


def _matching(prefix: str, ids: Iterable[str]) -> list[str]:
    folded = prefix.casefold()
    return sorted({sid for sid in ids if sid.casefold().startswith(folded)})


def pick(session_id: str, ids: Callable[[], Iterable[str]]) -> str | None:
    """The one id of `ids()` that `session_id` is a prefix of (8+ characters); None when
    none is. `ids` is only called when needed (it lists every session)."""
    found = _matching(session_id, ids()) if session_id else []
    if len(session_id) < MIN_PREFIX:
        if found:
            raise AmbiguousSessionId(f"session id '{session_id}' is too short: give {MIN_PREFIX} or more characters of it")
        return None
    if len(found) > 1:
        shown = ", ".join(found[:SHOWN]) + (f" and {len(found) - SHOWN} more" if len(found) > SHOWN else "")
        raise AmbiguousSessionId(
            f"session id '{session_id}' is ambiguous: {len(found)} sessions start with it ({shown}); give more characters"
        )
    return found[0] if found else None


class SessionIds:
    """Resolve ids against the published sessions of a store (and, for a restore, the deleted ones)."""

    def __init__(self, store: Store, deleted: Callable[[], Iterable[str]], indexed: Callable[[], Iterable[str]]):
        self.store = store
        self.deleted = deleted
        # Every indexed id, from the sessions list's rows (core/library/catalogue.py):
        # reading every session point for them took 11 s at a million messages.
        self.indexed = indexed

    def _indexed(self, session_id: str) -> bool:
        return self.store.count(visible_filter(Cond("level", value=LEVEL_SESSION), Cond("session_id", value=session_id))) > 0

    def all(self) -> list[str]:
        return list(self.indexed())

    def resolve(self, session_id: str) -> str:
        """The indexed session `session_id` names (itself or a unique prefix); one-line error otherwise."""
        if self._indexed(session_id):
            return session_id
        found = pick(session_id, self.all)
        if found is None:
            raise ConvoError(f"no session '{session_id}' in the index")
        return found

    def resolve_in_query(self, session_id: str) -> str:
        """For a `session:` filter: a unique prefix becomes the id; an unknown id stays
        as typed (it finds nothing, as any filter that matches nothing)."""
        if self._indexed(session_id):
            return session_id
        return pick(session_id, self.all) or session_id

    def resolve_deleted(self, session_id: str) -> str:
        """A session deleted from the index (restore): itself, or the one deleted id it starts."""
        deleted = list(self.deleted())
        if session_id in deleted:
            return session_id
        return pick(session_id, lambda: deleted) or session_id
