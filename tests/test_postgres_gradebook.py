"""The gradebook is whatever nbgrader supports: the same class graded on PostgreSQL, two workers."""

from __future__ import annotations

import csv

from autograder.course import ASSIGNMENT
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import kit, scratch_course


def test_parallel_grading_on_postgresql(tmp_path, postgres):
    course = tmp_path / "course"
    scratch_course(course)
    # full marks, none and a diagnosed mistake, graded by two workers that write to the server at once
    for student, persona in {"ada": "reference", "ben": "stub", "eli": ["scatter-overwrite"]}.items():
        write_submission(course, student, persona_notebooks(persona))
    result = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", "--db-url", postgres)
    assert f"gradebook {postgres}" in result.stdout
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert scores["ada"] == 100 and scores["ben"] == 0 and 0 < scores["eli"] < 100
    again = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", "--db-url", postgres)
    assert "skipping 3 submission(s)" in again.stdout
    from nbgrader.api import Gradebook

    with Gradebook(postgres) as gb:
        assert sorted(s.student.id for s in gb.assignment_submissions(ASSIGNMENT)) == ["ada", "ben", "eli"]
