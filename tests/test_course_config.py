"""The course's nbgrader_config.py is the kit's configuration: its folder names and the kit's options."""

from __future__ import annotations

import csv

from autograder.config import CELL_TIMEOUT, NotebookLimits, grading_options, read_course_config
from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.grading.grade import course_config

from .conftest import RENAMED_FOLDERS

# The renamed course is conftest's first_class: four students collected with a roster and graded by
# `python -m autograder grade` in a course whose nbgrader_config.py renames nbgrader's folders
# (conftest.RENAMED_FOLDERS); test_class_feedback reads what its students and instructor see.
GRADED_WHOLE = ("ada", "eli")  # handed in every notebook (cor's first is not JSON, his second missing)


def test_submissions_are_written_where_the_course_says(first_class):
    course = first_class["root"]
    assert first_class["submitted"] == course / RENAMED_FOLDERS["submitted_directory"]
    assert sorted(p.name for p in first_class["submitted"].iterdir()) == ["ada", "cor", "eli", "lock"]
    assert not (course / "submitted").exists()


def test_a_renamed_course_is_graded_in_its_own_folders(first_class):
    course, out = first_class["root"], first_class["stdout"]
    assert "graded ada: 100/100" in out and "failed 0" in out, out[-3000:]
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert scores["ada"] == 100 and 0 < scores["eli"] < 100
    graded, feedback = (course / RENAMED_FOLDERS[f"{name}_directory"] for name in ("autograded", "feedback"))
    for student in GRADED_WHOLE:
        assert sorted(p.stem for p in (graded / student / ASSIGNMENT).glob("*.ipynb")) == sorted(NOTEBOOKS)
        assert sorted(p.stem for p in (feedback / student / ASSIGNMENT).glob("*.html")) == sorted(NOTEBOOKS)
    assert not (course / "autograded").exists() and not (course / "feedback").exists()
    assert f"feedback: {feedback}" in out


def test_diagnoses_are_read_from_the_renamed_autograded_folder(first_class):
    """Diagnoses and timings come from the autograded notebooks: found only if read from the right folder."""
    course = first_class["root"]
    with open(course / "reports" / ASSIGNMENT / "tests.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert ("eli", "scatter-overwrite") in {(r["student"], r["diagnostic"]) for r in rows}
    assert {r["diagnostic"] for r in rows if r["student"] == "ada"} == {""}  # none "missing"
    assert "Slowest notebooks: " in first_class["stdout"]


def test_kit_options_come_from_the_course_config_and_flags_win(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.KitConfig.notebook_budget = 90\nc.ResourceLimits.memory_limit = '1536MiB'\nc.KitConfig.jobs = 3\n"
    )
    assert grading_options(read_course_config(course)).jobs == 3
    config = course_config(course)
    assert config.BudgetedExecute.notebook_budget == 90
    assert NotebookLimits.from_config(config).memory_limit == 1536 * 2**20  # what the kernel manager reads
    assert config.BudgetedExecute.timeout == CELL_TIMEOUT  # no c.Execute.timeout in the course: the kit's default
    flagged = course_config(
        course, options=grading_options(read_course_config(course), notebook_budget=30, cell_timeout=5)
    )
    assert flagged.BudgetedExecute.notebook_budget == 30 and flagged.Execute.timeout == 5


def test_the_cell_timeout_is_the_courses_execute_timeout(tmp_path):
    """One home: the course's c.Execute.timeout (which plain nbgrader reads too) is what the kit grades with."""
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.Execute.timeout = 17\n")
    options = grading_options(read_course_config(course))
    assert options.cell_timeout == 17
    config = course_config(course, options=options)
    assert config.Execute.timeout == config.BudgetedExecute.timeout == 17
