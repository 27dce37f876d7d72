"""nbgrader's Gradebook on one engine per gradebook (grading.gradebook_engine): the same gradebook as on its own.

The quick tests open nbgrader's Gradebook on a SQLite file directly; the last grades the same submission
(one that loses points, graded twice) in two courses, with and without the shared engines,
and compares everything grading recorded.
"""

from __future__ import annotations

import contextlib

import nbgrader.api
import pytest
import sqlalchemy
from nbgrader.api import Gradebook, MissingEntry

from autograder.course import ASSIGNMENT, Assignment, Course
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission
from autograder.grading import grade
from autograder.grading.gradebook_engine import shared_engine, shared_engines

from .conftest import scratch_course


def test_nbgrader_gets_the_shared_engine_only_inside_the_block():
    assert nbgrader.api.create_engine is sqlalchemy.create_engine
    with shared_engines():
        with shared_engines():  # nested (or another thread's): the outer block still shares
            pass
        assert nbgrader.api.create_engine is shared_engine
    assert nbgrader.api.create_engine is sqlalchemy.create_engine


def test_one_engine_per_gradebook_with_a_fresh_pool(tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with shared_engines():
        with Gradebook(url) as gb:
            first = gb.engine
            gb.add_student("ada")
        with Gradebook(url) as gb:
            assert gb.engine is first  # its statements compiled once
            assert gb.engine.pool.checkedin() <= 1  # no connection handed on from the last Gradebook
            assert [s.id for s in gb.students] == ["ada"]
        with Gradebook(f"sqlite:///{tmp_path / 'other.db'}") as gb:
            assert gb.engine is not first
            assert gb.students == []


def test_a_gradebook_file_replaced_meanwhile_is_opened_afresh(tmp_path):
    """No connection outlives its Gradebook: a new file under the same name is the one a new Gradebook sees."""
    path = tmp_path / "gradebook.db"
    url = f"sqlite:///{path}"
    with shared_engines():
        with Gradebook(url) as gb:
            gb.add_student("ada")
        path.unlink()
        with Gradebook(url) as gb:  # nbgrader creates its tables in the new file
            assert gb.students == []
            with pytest.raises(MissingEntry):
                gb.find_student("ada")


def gradebook_contents(db_url: str, student: str) -> dict:
    """Everything grading records of one submission: each cell's scores and comments, and the totals."""
    with Gradebook(db_url) as gb:
        submission = gb.find_submission(ASSIGNMENT, student)
        cells = {
            (nb.name, g.name): (g.auto_score, g.manual_score, g.extra_credit, g.max_score, g.needs_manual_grade)
            for nb in submission.notebooks
            for g in nb.grades
        }
        comments = {
            (nb.name, c.name): (c.auto_comment, c.manual_comment) for nb in submission.notebooks for c in nb.comments
        }
        return {
            "cells": cells,
            "comments": comments,
            "score": submission.score,
            "late": submission.total_seconds_late,
            "penalty": submission.late_submission_penalty,
        }


def graded_twice(course, shared: bool, monkeypatch) -> tuple[dict, list[dict], list[str]]:
    """Grade (then regrade) a submission that loses points: what grading recorded, and the feedback pages written.

    (The hidden checks draw their cases at random, so a diagnosis's message is left out, and a page's text.)"""
    db_url = scratch_course(course)
    write_submission(course, "fay", persona_notebooks(["sin-cos-swap"]))
    if not shared:
        monkeypatch.setattr(grade, "shared_engines", contextlib.nullcontext)
    assignment = Assignment(Course(course), ASSIGNMENT)
    results = [grade.grade_student(assignment, "fay", db_url) for _ in range(2)]
    monkeypatch.undo()
    outcomes = [
        (r.status, r.score, r.max_score, [(t.notebook, t.test, t.points, t.max_points, t.diagnosis) for t in r.tests])
        for r in results
    ]
    pages = sorted(p.name for p in assignment.feedback("fay").glob("*.html"))
    return gradebook_contents(db_url, "fay"), outcomes, pages


def test_grading_records_the_same_with_and_without_shared_engines(tmp_path, monkeypatch):
    shared = graded_twice(tmp_path / "shared", True, monkeypatch)
    own = graded_twice(tmp_path / "own", False, monkeypatch)
    contents, outcomes, pages = shared
    status, score, max_score, tests = outcomes[0]
    assert status == "graded" and 0 < score < max_score and len(pages) == 5
    assert any(auto < most for auto, _, _, most, _ in contents["cells"].values())  # cells that lost points
    assert outcomes[0] == outcomes[1]
    assert shared == own
