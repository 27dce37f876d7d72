"""ApplyVerdicts in a real nbgrader gradebook (SQLite): what the outside checks did not pass scores 0,
an instructor's own manual scores are never touched, and the kit's zero is cleared when a fixed
resubmission passes.  No kernel: the verdicts are handed in ``resources`` as the executor leaves them."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from traitlets.config import Config

from autograder.course import Course, sqlite_url
from autograder.grading.checker import VERDICTS, Verdict
from autograder.grading.verdicts import ApplyVerdicts, recorded_verdicts

NB, ASSIGNMENT, STUDENT = "lesson", "hw", "ada"
CELLS = ("test-a", "test-b", "test-c")


@pytest.fixture(scope="module")
def empty_gradebook(tmp_path_factory):
    """Made once: creating a gradebook runs alembic, which takes seconds."""
    from nbgrader.api import Gradebook

    path = tmp_path_factory.mktemp("gradebook") / "gradebook.db"
    with Gradebook(sqlite_url(path)) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(NB, ASSIGNMENT)
        for name in CELLS:
            gb.add_grade_cell(name, NB, ASSIGNMENT, max_score=2, cell_type="code")
        gb.add_student(STUDENT)
        gb.add_submission(ASSIGNMENT, STUDENT)
    return path


@pytest.fixture
def course(tmp_path, empty_gradebook):
    shutil.copy(empty_gradebook, tmp_path / "gradebook.db")
    return tmp_path, sqlite_url(tmp_path / "gradebook.db")


def autograde(course, verdicts: dict[str, Verdict], manual: dict[str, float] | None = None) -> dict:
    """Every cell scored in the kernel (auto_score 2), as SaveAutoGrades leaves it; then ApplyVerdicts."""
    from nbgrader.api import Gradebook

    root, db_url = course
    with Gradebook(db_url) as gb:
        for name in CELLS:
            grade = gb.find_grade(name, NB, ASSIGNMENT, STUDENT)
            grade.auto_score = 2.0
            if manual and name in manual:
                grade.manual_score = manual[name]
        gb.db.commit()
    config = Config()
    config.CourseDirectory.root = str(root)
    nb = nbformat.v4.new_notebook()
    resources = {
        "nbgrader": {"notebook": NB, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": db_url},
        VERDICTS: verdicts,
    }
    nb, _ = ApplyVerdicts(config=config).preprocess(nb, resources)
    with Gradebook(db_url) as gb:
        scores = {name: gb.find_grade(name, NB, ASSIGNMENT, STUDENT).score for name in CELLS}
    return {"scores": scores, "recorded": recorded_verdicts(nb)}


def test_what_the_checks_did_not_pass_scores_zero_and_is_recorded(course):
    failed = Verdict(False, "scatter-overwrite", "Row 0 is used twice")
    out = autograde(course, {"test-a": Verdict(True), "test-b": failed})  # test-c: no verdict at all
    assert out["scores"] == {"test-a": 2.0, "test-b": 0.0, "test-c": 0.0}
    verdicts, zeroed = out["recorded"]
    assert verdicts["test-b"] == failed and zeroed == ["test-b", "test-c"]
    assert Course(course[0]).verdict_record(ASSIGNMENT, STUDENT).exists()


def test_a_fixed_resubmission_is_judged_afresh(course):
    autograde(course, {"test-a": Verdict(True), "test-b": Verdict(False, "unverified", "x")})
    out = autograde(course, {name: Verdict(True) for name in CELLS})
    assert out["scores"] == {name: 2.0 for name in CELLS}
    assert out["recorded"][1] == []


def test_an_instructors_manual_scores_are_never_touched(course):
    autograde(course, {name: Verdict(True) for name in CELLS}, manual={"test-a": 0.0, "test-b": 1.5})
    out = autograde(course, {name: Verdict(True) for name in CELLS})
    assert out["scores"] == {"test-a": 0.0, "test-b": 1.5, "test-c": 2.0}
