"""The course's nbgrader_config.py is the kit's configuration: its folder names and the kit's options."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from autograder.config import CELL_TIMEOUT, grading_options, read_course_config
from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission
from autograder.grading.grade import course_config

from .conftest import kit, scratch_course

RENAMED = {
    "submitted_directory": "handed-in",
    "autograded_directory": "graded-copies",
    "feedback_directory": "for-students",
}


def add_to_config(course: Path, lines: list[str]) -> None:
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write("\n" + "\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def renamed_course(tmp_path_factory):
    """Two students graded by `python -m autograder grade` in a course that renames nbgrader's folders."""
    course = tmp_path_factory.mktemp("renamed") / "course"
    scratch_course(course)
    add_to_config(course, [f"c.CourseDirectory.{key} = {value!r}" for key, value in RENAMED.items()])
    write_submission(course, "ada", persona_notebooks("reference"))
    write_submission(course, "eli", persona_notebooks(["scatter-overwrite"]))
    result = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2")
    return course, result


def test_submissions_are_written_where_the_course_says(renamed_course):
    course, _ = renamed_course
    assert sorted(p.name for p in (course / "handed-in").iterdir()) == ["ada", "eli"]
    assert not (course / "submitted").exists()


def test_a_renamed_course_is_graded_in_its_own_folders(renamed_course):
    course, result = renamed_course
    assert "graded ada: 100/100" in result.stdout and "failed 0" in result.stdout, result.stdout[-3000:]
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert scores["ada"] == 100 and 0 < scores["eli"] < 100
    for student in ("ada", "eli"):
        assert sorted(p.stem for p in (course / "graded-copies" / student / ASSIGNMENT).glob("*.ipynb")) == sorted(
            NOTEBOOKS
        )
        assert sorted(p.stem for p in (course / "for-students" / student / ASSIGNMENT).glob("*.html")) == sorted(
            NOTEBOOKS
        )
    assert not (course / "autograded").exists() and not (course / "feedback").exists()
    assert f"feedback: {course / 'for-students'}" in result.stdout


def test_diagnoses_are_read_from_the_renamed_autograded_folder(renamed_course):
    """Diagnoses and timings come from the autograded notebooks: found only if read from the right folder."""
    course, result = renamed_course
    with open(course / "reports" / ASSIGNMENT / "tests.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert ("eli", "scatter-overwrite") in {(r["student"], r["diagnostic"]) for r in rows}
    assert {r["diagnostic"] for r in rows if r["student"] == "ada"} == {""}  # none "missing"
    assert "Slowest notebooks: " in result.stdout


def test_kit_options_come_from_the_course_config_and_flags_win(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.KitConfig.notebook_budget = 90\nc.KitConfig.memory_limit_mb = 2048\nc.KitConfig.jobs = 3\n"
    )
    assert grading_options(read_course_config(course)).jobs == 3
    config = course_config(course)
    assert config.BudgetedExecute.notebook_budget == 90
    assert config.SandboxedKernelManager.memory_limit_mb == "2048"
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
