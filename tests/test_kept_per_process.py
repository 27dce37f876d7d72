"""What a grading worker keeps from one student to the next is what it would read afresh.

In-process and quick: the source notebooks' locked cells (``settings.expected_notebooks``), on a scratch course.
"""

from __future__ import annotations

import os

import nbformat

from autograder.course import ASSIGNMENT, Assignment, Course
from autograder.grading.intake import locked_cells
from autograder.grading.settings import expected_notebooks, notebook_points
from autograder.notebooks import read_notebook

from .conftest import scratch_course


def read_afresh(assignment: Assignment) -> dict:
    return {path.stem: locked_cells(read_notebook(path)) for path in assignment.source_notebooks()}


def test_the_source_notebooks_kept_are_what_they_hold_and_a_changed_one_is_read_again(tmp_path):
    scratch_course(tmp_path)
    assignment = Assignment(Course(tmp_path), ASSIGNMENT)
    kept = expected_notebooks(assignment)
    assert kept == read_afresh(assignment) and len(kept) == 5
    name, cells = next(iter(kept.items()))
    cells.clear()  # a caller's copy is its own
    assert expected_notebooks(assignment) == read_afresh(assignment)

    points = notebook_points(expected_notebooks(assignment))[name]
    path = next(p for p in assignment.source_notebooks() if p.stem == name)
    nb = nbformat.read(str(path), as_version=4)
    graded = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("points"))
    graded.metadata["nbgrader"]["points"] += 1  # the instructor gives a test one more point
    before = os.stat(path)
    nbformat.write(nb, str(path))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same modification time
    again = expected_notebooks(assignment)
    assert again == read_afresh(assignment)
    assert notebook_points(again)[name] == points + 1
