"""One value for an assignment of a course: its folders are nbgrader's, it survives a worker's pickle, and it is
made where a command starts, with a one-line error when the folder is no course.

In-process and quick: nbgrader's own ``CourseDirectory`` says where each folder is; no kernel runs.
"""

from __future__ import annotations

import ast
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
    assert assignment.export_file("canvas") == renamed / f"{ASSIGNMENT}-canvas.csv"
    assert assignment.canary_record("k") == kit / "canary" / f"{ASSIGNMENT}-k"


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


# Course's methods that take an assignment's name (given, or the default one) and derive a path of it
BY_NAME = {"folder", "notebook", "student_folders", "source_notebooks", "reports", "state_folder", "state_file"}
BY_NAME |= {"in_flight_note", "verdict_record", "lms_names"}


def paths_derived_by_hand(source: str) -> list[str]:
    """Where a module derives a path of an assignment itself: one of Course's BY_NAME methods called on a Course
    (``Course(...)``, a name bound to one, ``course``, ``.course``), the name-taking helpers of course.py, or a
    path joined with an f-string that holds the assignment's name."""
    tree = ast.parse(source)
    courses = {"course"} | {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func) == "Course"
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BY_NAME:
            receiver = node.func.value
            if (
                (isinstance(receiver, ast.Call) and ast.unparse(receiver.func) == "Course")
                or (isinstance(receiver, ast.Name) and receiver.id in courses)
                or (isinstance(receiver, ast.Attribute) and receiver.attr == "course")
            ):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("assignment_notebooks", "register_assignment"):
            found.append(ast.unparse(node))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            for side in (node.left, node.right):
                if isinstance(side, ast.JoinedStr) and "assignment" in ast.unparse(side):
                    found.append(ast.unparse(node))
    return found


def test_the_guard_sees_a_path_derived_by_hand():
    for by_hand in (
        "course.folder('submitted', name, student)",
        "Course(root).notebook('source', nb)",
        "c = Course(root)\nc.state_file(name, student)",
        "assignment.course.reports(name)",
        "register_assignment(root, url, name)",
        "root / f'{assignment.name}-canvas.csv'",
    ):
        assert paths_derived_by_hand(by_hand), by_hand
    assert not paths_derived_by_hand("assignment.folder('submitted', student)\nassignment.notebook('source', nb)")


def test_no_module_outside_course_derives_a_path_of_an_assignment():
    """Every folder and file of an assignment comes from its Assignment (course.py): none is derived elsewhere."""
    package = REPO / "autograder"
    found = {
        str(path.relative_to(REPO)): derived
        for path in sorted(package.rglob("*.py"))
        if path != package / "course.py"
        for derived in [paths_derived_by_hand(path.read_text(encoding="utf-8"))]
        if derived
    }
    assert not found, f"paths of an assignment derived outside course.py: {found}"
