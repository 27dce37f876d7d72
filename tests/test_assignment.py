"""One value for an assignment of a course: its folders are nbgrader's, it survives a worker's pickle, and it is
made where a command starts, with a one-line error when the folder is no course.

In-process and quick: nbgrader's own ``CourseDirectory`` says where each folder is; no kernel runs.
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest
from nbgrader.coursedir import CourseDirectory

from autograder.config import read_course_config
from autograder.course import ASSIGNMENT, KIT_RELEASE, STAGING, Assignment, Course, CourseError, open_assignment

from .conftest import REPO

RENAMED = {
    "source_directory": "authored",
    "submitted_directory": "handed-in",
    "autograded_directory": "graded-copies",
    "feedback_directory": "for-students",
    "directory_structure": "{nbgrader_step}/{assignment_id}/{student_id}",
}


@pytest.fixture
def renamed(tmp_path):
    """A course that renames nbgrader's steps and turns its folders inside out (assignment before student)."""
    root = tmp_path / "course"
    (root / "authored" / ASSIGNMENT).mkdir(parents=True)
    for name in ("01_why_position", "02_token_embeddings"):
        shutil.copy(REPO / "source" / ASSIGNMENT / f"{name}.ipynb", root / "authored" / ASSIGNMENT)
    lines = ["c = get_config()"] + [f"c.CourseDirectory.{key} = {value!r}" for key, value in RENAMED.items()]
    (root / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
    for student in ("ada", "ben"):
        (root / "handed-in" / ASSIGNMENT / student).mkdir(parents=True)
    return root


def nbgraders(root, step: str, student: str = ".") -> Path:
    """Where nbgrader itself puts ``step`` of the assignment, for ``student``."""
    dirs = CourseDirectory(config=read_course_config(root))
    dirs.root = str(root)
    return Path(dirs.format_path(getattr(dirs, f"{step}_directory") if step.isalpha() else step, student, ASSIGNMENT))


def test_every_folder_of_an_assignment_is_where_nbgrader_looks(renamed):
    assignment = open_assignment(renamed, ASSIGNMENT)
    assert assignment.source == nbgraders(renamed, "source")
    assert assignment.release == nbgraders(renamed, "release")
    assert [p.name for p in assignment.source_notebooks()] == ["01_why_position.ipynb", "02_token_embeddings.ipynb"]
    assert assignment.submitted("ada") == nbgraders(renamed, "submitted", "ada")
    assert assignment.autograded("ada") == nbgraders(renamed, "autograded", "ada")
    assert assignment.feedback("ada") == nbgraders(renamed, "feedback", "ada")
    assert assignment.staged("ada") == nbgraders(renamed, STAGING, "ada")
    assert assignment.registered_release == nbgraders(renamed, KIT_RELEASE)
    assert assignment.notebook("autograded", "01_why_position", "ada") == assignment.autograded("ada") / (
        "01_why_position.ipynb"
    )
    assert assignment.students() == {s: renamed / "handed-in" / ASSIGNMENT / s for s in ("ada", "ben")}
    assert assignment.submitted("ada") == renamed / "handed-in" / ASSIGNMENT / "ada"  # the layout really changed


def test_what_the_kit_keeps_of_an_assignment_is_under_its_name(renamed):
    assignment = open_assignment(renamed, ASSIGNMENT)
    kit = renamed / ".kit"
    assert assignment.state_file("ada") == kit / ASSIGNMENT / "ada.json"
    assert assignment.state_file("ada").parent == assignment.state_folder
    assert assignment.in_flight_note("ada") == kit / ASSIGNMENT / ".ada.grading"
    assert assignment.verdict_record("ada") == kit / "overrides" / ASSIGNMENT / "ada.json"
    assert assignment.lms_names == kit / "lms" / f"{ASSIGNMENT}.json"
    assert assignment.reports == renamed / "reports" / ASSIGNMENT


def test_a_worker_is_handed_the_same_assignment(renamed, tmp_path):
    """Pickled for a worker process, the value keeps the course's configuration, and so its folders; moved to a
    scratch copy of the course, the same assignment is laid out there."""
    assignment = open_assignment(renamed, ASSIGNMENT)
    again = pickle.loads(pickle.dumps(assignment))
    assert again.name == ASSIGNMENT and again.root == renamed
    assert again.submitted("ada") == assignment.submitted("ada") and again.students() == assignment.students()
    scratch = tmp_path / "scratch"
    shutil.copytree(renamed, scratch)
    there = assignment.in_course(scratch)
    assert there.name == ASSIGNMENT and there.submitted("ada") == scratch / "handed-in" / ASSIGNMENT / "ada"
    assert isinstance(there, Assignment) and repr(there.course) == f"Course({str(scratch)!r})"


def test_a_command_is_told_in_one_line_when_the_folder_is_no_course(tmp_path):
    with pytest.raises(CourseError, match=r"^course directory .*nowhere does not exist$"):
        open_assignment(tmp_path / "nowhere")
    (tmp_path / "class").mkdir()
    with pytest.raises(CourseError, match=r"is not a course root: .*--course-dir PATH$"):
        open_assignment(tmp_path / "class")
    (tmp_path / "class" / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.root = (\n")
    with pytest.raises(CourseError) as broken:
        open_assignment(tmp_path / "class")
    assert str(broken.value).startswith(f"{tmp_path / 'class' / 'nbgrader_config.py'}: ")
    assert "\n" not in str(broken.value)


def test_an_assignment_the_course_lacks_is_named_with_the_closest_it_has(renamed):
    assignment = open_assignment(renamed, "embedings")  # the course is fine; the notebooks are what is missing
    assert assignment.source_notebooks() == []
    with pytest.raises(CourseError, match=f"unknown assignment 'embedings': .*did you mean '{ASSIGNMENT}'"):
        assignment.notebooks()
    assert Course(renamed).root == assignment.root
