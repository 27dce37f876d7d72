"""The install, in short: what `make smoke` runs in a second environment made with another Python.

`make smoke` selects the tests marked ``smoke``: this file and the byte-for-byte rebuild check of
test_build.py. CI runs it in an environment made from Debian's own /usr/bin/python3, so a lock that
pins a release the interpreter cannot install, or a grading path that breaks on it, fails there.
"""

from __future__ import annotations

import csv
import sys

import pytest

from autograder.course import ASSIGNMENT, make_scratch_course
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import kit

pytestmark = pytest.mark.smoke


def test_a_reference_and_a_stub_are_graded(tmp_path):
    course = tmp_path / "course"
    make_scratch_course(course)
    write_submission(course, "ref", persona_notebooks("reference"))
    write_submission(course, "stub", persona_notebooks("stub"))
    result = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2")
    with open(course / "grades.csv", newline="") as f:
        scores = {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}
    assert scores == {"ref": 100.0, "stub": 0.0}, (sys.version, result.stdout[-2000:])
