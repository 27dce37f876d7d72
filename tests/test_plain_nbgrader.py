"""The kit graded by plain nbgrader commands in a course root: the instructors' own workflow."""

from __future__ import annotations

import csv
import filecmp

import pytest
from nbgrader.api import Gradebook

from autograder.course import ASSIGNMENT, NOTEBOOKS

from .conftest import REPO


def notebook_scores(course, student):
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        submission = gb.find_submission(ASSIGNMENT, student)
        return {nb.name: (nb.score, nb.max_score) for nb in submission.notebooks}


def test_reference_solutions_score_full_marks(plain_course):
    scores = notebook_scores(plain_course, "reference")
    assert set(scores) == set(NOTEBOOKS)
    assert sum(s for s, _ in scores.values()) == 100
    assert all(score == top for score, top in scores.values()), scores


def test_untouched_release_scores_zero_on_every_notebook(plain_course):
    scores = notebook_scores(plain_course, "stub")
    assert all(top > 0 for _, top in scores.values())
    assert {name: score for name, (score, _) in scores.items()} == {name: 0 for name in NOTEBOOKS}


def test_independent_correct_solution_scores_full_marks(plain_course):
    scores = notebook_scores(plain_course, "independent")
    assert {n: s for n, (s, _) in scores.items()} == {n: t for n, (_, t) in scores.items()}


def test_correct_code_that_emits_warnings_keeps_full_marks(plain_course):
    """The independent solution's code emits RuntimeWarnings and a UserWarning in every function (conftest's
    with_noise): one student of plain_course for both, as correct code that warns is correct code."""
    scores = notebook_scores(plain_course, "independent")
    assert sum(s for s, _ in scores.values()) == 100, scores
    for name in NOTEBOOKS:  # the noise really is in every graded unit's code
        submitted = (plain_course / "submitted" / "independent" / ASSIGNMENT / f"{name}.ipynb").read_text()
        assert "just noise" in submitted and "np.log(np.zeros(1))" in submitted


def test_scatter_overwrite_loses_points_only_in_lesson_2(plain_course):
    scores = notebook_scores(plain_course, "overwriter")
    lost = {name: top - score for name, (score, top) in scores.items() if score != top}
    assert list(lost) == ["02_token_embeddings"] and lost["02_token_embeddings"] > 0


def test_feedback_shows_the_diagnosis_and_no_hidden_test_source(plain_course):
    html = (plain_course / "feedback" / "overwriter" / ASSIGNMENT / "02_token_embeddings.html").read_text()
    assert "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]" in html
    assert "np.add.at" in html
    for student in ("overwriter", "stub", "reference"):
        for name in NOTEBOOKS:
            text = (plain_course / "feedback" / student / ASSIGNMENT / f"{name}.html").read_text()
            for secret in ("HIDDEN TESTS", "_hidden", "autograder"):
                assert secret not in text, f"{student}/{name}.html shows {secret!r}"
    # tracebacks from the student's own cells are theirs to read; a test cell shows its diagnosis
    html = (plain_course / "feedback" / "stub" / ASSIGNMENT / "02_token_embeddings.html").read_text()
    assert "Embedding.forward still raises NotImplementedError: fill in its stub." in html


def test_export_lists_every_student(plain_course):
    with open(plain_course / "grades.csv", newline="") as f:
        rows = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert rows["reference"] == 100.0 and rows["independent"] == 100.0 and rows["stub"] == 0.0


def test_grading_leaves_source_untouched(plain_course):
    cmp = filecmp.dircmp(plain_course / "source" / ASSIGNMENT, plain_course / "source-copy")
    assert not cmp.diff_files and not cmp.left_only and not cmp.right_only


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_release_has_no_solution_or_hidden_test_text(name):
    text = (REPO / "release" / ASSIGNMENT / f"{name}.ipynb").read_text()
    for secret in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "autograder", "_hidden"):
        assert secret not in text
    assert "NotImplementedError" in text
