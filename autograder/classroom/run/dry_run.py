"""`grade ASSIGNMENT --dry-run`: grade a copy of the course in scratch space, show what would change.

The copy holds the course's nbgrader_config.py, the assignment's source notebooks, the submissions and
the kit's state files (so the same students are skipped as a real run would skip), with a gradebook
of its own.  The real gradebook is only read; nothing of the course is written: its gradebook,
grades.csv, feedback, reports and run history stay as they were.  This is how a test fix is previewed.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from ...config import CONFIG_FILE
from ...course import Assignment, sqlite_url
from ...grading.results import Status
from ...grading.settings import course_settings
from ..history.changes import Comparison, compare_grades, format_diff
from ..history.history import History, grade_of
from ..history.regrade import gradebook_url
from .batch import BatchOptions, BatchOutcome, GradingError, submissions
from .grade_command import class_table, grade_assignment


def copy_course(assignment: Assignment, students: dict[str, Path], target: Path) -> Assignment:
    """The parts of the assignment's course that grading reads, copied to ``target``: the assignment there."""
    target.mkdir(parents=True)
    if (assignment.root / CONFIG_FILE).exists():
        shutil.copy(assignment.root / CONFIG_FILE, target / CONFIG_FILE)
    scratch = assignment.in_course(target)
    shutil.copytree(assignment.source, scratch.source)
    for student, folder in students.items():
        shutil.copytree(folder, scratch.submitted(student), symlinks=True)
    if assignment.state_folder.is_dir():
        shutil.copytree(assignment.state_folder, scratch.state_folder)
    return scratch


def recorded_grades(course_dir: Path, db_url: str, assignment: str) -> tuple[str, dict]:
    """The class as the run history last recorded it (read only), and its label."""
    try:
        gradebook_url(course_dir, db_url)
    except ValueError:  # no SQLite gradebook yet (opening one would create it)
        return "no recorded run", {}
    with History(db_url) as history:
        runs = history.runs(assignment)
        if not runs:
            return "no recorded run", {}
        return f"recorded {runs[-1].label}", history.grades_as_of(assignment, runs[-1].id)


def dry_run(
    assignment: Assignment,
    *,
    db_url: str | None = None,
    students: list[str] | None = None,
    options: BatchOptions | None = None,
    progress=None,
    out=print,
) -> tuple[BatchOutcome, Comparison]:
    course_dir = assignment.root
    try:
        config = course_settings(course_dir, db_url)
    except Exception as e:  # noqa: BLE001 - a broken nbgrader_config.py is named with its error
        raise GradingError(f"{course_dir / CONFIG_FILE}: {type(e).__name__}: {e}") from None
    db_url = config.CourseDirectory.db_url
    found = submissions(assignment, students)
    label, before = recorded_grades(course_dir, db_url, assignment.name)
    with tempfile.TemporaryDirectory(prefix="autograder-dry-run-") as scratch_root:
        scratch = copy_course(assignment, found, Path(scratch_root) / "course")
        out(
            f"dry run: grading {len(found)} submission(s) of {assignment.name!r} in scratch space; the course and "
            f"its gradebook {db_url} are only read"
        )
        # local workers on a scratch SQLite gradebook, whatever the course grades with
        outcome = grade_assignment(
            scratch,
            db_url=sqlite_url(scratch.course.gradebook),
            students=students,
            options=replace(options or BatchOptions(), scheduler=""),
            progress=progress,
            out=lambda *_: None,
        )
    after = dict(before)
    for result in outcome.results:
        if result.status in (Status.GRADED, Status.FAILED):
            after[result.student] = grade_of(result)
    comparison = compare_grades(before, after, label, "dry run")
    out("")
    out(class_table(outcome))
    out("")
    out(format_diff(comparison))
    out("")
    out(
        f"dry run: graded {outcome.graded}, skipped {outcome.skipped} (unchanged), failed {outcome.failed}; nothing "
        "was written: the gradebook, grades.csv, feedback, reports and the run history are as they were"
    )
    return outcome, comparison
