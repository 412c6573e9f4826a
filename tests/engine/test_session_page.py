"""The sessions list by pages (Engine.session_page): the same sessions in the same
order as the whole list, counts from the index, and a page that follows the index
(a delete, an index run) and the user's edits (a title, a star)."""

from __future__ import annotations

import shutil

import pytest
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.conftest import build_relevance, built_once


@pytest.fixture
def library(tmp_path_factory, tmp_path):
    built = built_once(tmp_path_factory, "relevance-index", build_relevance)
    shutil.copytree(built / "index", tmp_path / "index", symlinks=True)
    with Library.open(
        Settings(index_dir=tmp_path / "index", sources=[built / "src"], discover_defaults=False, model=DEFAULT_MODEL)
    ) as lib:
        yield lib


def ids(page) -> list[str]:
    return [entry.summary.id for entry in page.entries if entry.summary]


def test_pages_cut_the_whole_list_in_its_order(library):
    def newest_first(s):  # ties in a fixed order: title, then id
        stamp = s.updated_at or s.started_at
        return (-(stamp.timestamp() if stamp else 0.0), s.title.casefold(), s.id)

    whole = sorted(library.sessions(), key=newest_first)
    first = library.session_page(offset=0, limit=2)
    rest = library.session_page(offset=2, limit=100)
    assert ids(first) + ids(rest) == [s.id for s in whole]
    assert first.total == first.matched == first.everything == len(whole) and first.starred == 0
    assert first.entries[0].summary == whole[0]  # the same summary, source check included


def test_grouped_by_project_has_a_header_with_its_count_before_its_sessions(library):
    page = library.session_page(limit=1000, sort="project")
    headers = [(e.header, e.count) for e in page.entries if e.header is not None]
    assert sorted(headers) == sorted(library.projects())
    assert page.total == page.matched + len(headers)
    current = None
    for entry in page.entries:
        if entry.header is not None:
            current = entry.header
        else:
            assert entry.summary.project == current


def test_titles_stars_filters_and_deletes_show_in_the_next_page(library):
    first = library.sessions()[0]
    library.rename_session(first.id, "Zzz renamed")
    library.star_session(first.id)
    by_title = library.session_page(limit=1000, sort="title")
    titles = [e.summary.title for e in by_title.entries]
    assert "Zzz renamed" in titles and titles == sorted(titles, key=str.casefold)
    starred = library.session_page(starred_only=True)
    assert ids(starred) == [first.id] and starred.starred == 1 and starred.matched == 1
    found = library.session_page(text="zzz renamed")
    assert ids(found)[0] == first.id
    library.delete_session(first.id)
    after = library.session_page(limit=1000)
    assert first.id not in ids(after) and after.everything == len(library.sessions())
