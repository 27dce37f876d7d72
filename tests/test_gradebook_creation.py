"""A new gradebook records the schema version nbgrader would record, read without a second Python
(course.alembic_head, used by register_assignment)."""

from __future__ import annotations

import sqlite3

import nbgrader.api
from nbgrader.api import Gradebook

from autograder.course import (
    ASSIGNMENT,
    Course,
    alembic_head,
    ensure_tools_on_path,
    make_scratch_course,
    nbgrader_alembic_version,
    use_alembic_head,
)


def test_the_schema_version_is_the_one_alembic_names():
    ensure_tools_on_path()
    use_alembic_head()  # (as a kit process that registered an assignment has it)
    assert nbgrader.api.get_alembic_version is alembic_head
    assert alembic_head.replaced is not alembic_head
    assert alembic_head() == nbgrader_alembic_version()  # nbgrader's own: `alembic heads` in a new process


def test_a_scratch_course_gradebook_is_nbgraders(tmp_path):
    db_url = make_scratch_course(tmp_path / "course")
    path = Course(tmp_path / "course").gradebook
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(alembic_head(),)]
    with Gradebook(db_url) as gradebook:  # nbgrader opens it and finds the assignment registered
        assert [n.name for n in gradebook.find_assignment(ASSIGNMENT).notebooks]
