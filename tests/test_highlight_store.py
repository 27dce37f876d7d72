"""The highlighted HTML of locked cells, kept on disk between grading processes (autograder/grading/highlight_store.py).

In this process: a feedback page is the same with the store off, cold and warm; only locked cells are kept; a file
cut short or changed is not used; a store that cannot be written keeps nothing and the page is the same.
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbconvert.filters.highlight import Highlight2HTML

from autograder.cells import is_locked
from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.grading import feedback, highlight_store
from autograder.grading.feedback import FeedbackExporter

from .conftest import REPO

RELEASED = nbformat.read(str(REPO / "release" / ASSIGNMENT / f"{NOTEBOOKS[-1]}.ipynb"), as_version=4)


def code_sources(nb, locked: bool) -> set[str]:
    return {c.source for c in nb.cells if c.cell_type == "code" and c.source and is_locked(c) == locked}


def page(nb=RELEASED) -> str:
    """The page of ``nb`` by a process that has highlighted nothing yet."""
    feedback._stored_highlight.cache_clear()
    feedback._highlighted.cache_clear()
    return FeedbackExporter().from_notebook_node(copy.deepcopy(nb))[0]


@pytest.fixture
def highlighted(monkeypatch):
    """The sources Pygments highlights from now on (nbconvert's own filter, under the kit's memory and store)."""
    seen = []
    real = Highlight2HTML.__call__

    def counting(self, source, *args, **kwargs):
        seen.append(source)
        return real(self, source, *args, **kwargs)

    monkeypatch.setattr(Highlight2HTML, "__call__", counting)
    return seen


def test_a_locked_cells_highlight_is_kept_and_the_page_is_the_same_off_cold_and_warm(
    tmp_path, monkeypatch, highlighted
):
    locked, own = code_sources(RELEASED, True), code_sources(RELEASED, False)
    assert len(locked) > 5 and own  # the lesson has given code and tests, and cells of the student's
    monkeypatch.setenv(highlight_store.STORE_ENV, "off")
    off = page()
    store = tmp_path / "store"
    monkeypatch.setenv(highlight_store.STORE_ENV, str(store))
    cold = page()
    kept = list(store.glob("*.html"))
    assert len(kept) == len(locked)  # one file a locked source; none for the student's cells
    assert not any(own_source in f.read_text() for f in kept for own_source in own if len(own_source) > 40)
    highlighted.clear()
    warm = page()
    assert off == cold == warm
    assert set(highlighted) == own  # a fresh process highlighted only the student's cells
    assert oct(store.stat().st_mode & 0o777) == "0o700"


def test_a_file_cut_short_or_changed_is_not_used_and_is_written_again(tmp_path, monkeypatch, highlighted):
    monkeypatch.setenv(highlight_store.STORE_ENV, str(tmp_path))
    right = page()
    files = sorted(tmp_path.glob("*.html"), key=lambda f: f.stat().st_size)
    whole = {f: f.read_bytes() for f in files}
    files[-1].write_bytes(whole[files[-1]][: len(whole[files[-1]]) // 2])  # cut short
    check, _, body = whole[files[-2]].partition(b"\n")
    files[-2].write_bytes(check + b"\n" + body.replace(b"<span", b"<span onmouseover='x()'", 1))  # changed
    files[-3].write_bytes(b"")  # empty
    highlighted.clear()
    assert page() == right
    assert len(highlighted) == len(code_sources(RELEASED, False)) + 3  # the three highlighted anew
    assert {f: f.read_bytes() for f in files} == whole  # and kept whole again


def test_a_store_that_cannot_be_written_keeps_nothing_and_the_page_is_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv(highlight_store.STORE_ENV, "off")
    right = page()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(highlight_store.STORE_ENV, str(blocked / "store"))
    assert page() == right
    assert blocked.read_text() == "not a folder"
