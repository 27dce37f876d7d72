"""Grading one submission: the single step every grader of the kit runs.

``grade_student(assignment, student, db_url)`` is a plain function of the assignment (its course
directory on shared storage: :class:`~autograder.course.Assignment`, which pickles) and the gradebook
URL, so any worker process can run it: a local process pool, a Dask worker in a scratch course.  It
autogrades with nbgrader's own converters (so the gradebook is nbgrader's), generates the feedback,
and returns a :class:`StudentResult` with the per-test points and diagnoses.  It never raises for a
bad submission: a failure is recorded with its reason.
"""

from __future__ import annotations

import errno
import shutil
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import nbformat
from traitlets.config import Config

from .. import timing
from ..config import GradingOptions, grading_options
from ..course import Assignment, ensure_tools_on_path, run_converter
from .execute import TIMING_KEY, kernel_starts, notebook_seconds
from .faults import exception_fault, kit_fault
from .gradebook_engine import shared_engines
from .intake import stage_submission
from .metadata_check import KIT_CHECK, with_kit_check
from .results import NOT_GRADED, Status, StudentResult, TestResult, notebook_failures, run_problems
from .settings import course_settings, expected_notebooks, notebook_points
from .verdicts import NO_VERDICT, recorded_verdicts


def course_config(course_dir: Path, db_url: str | None = None, options: GradingOptions | None = None) -> Config:
    """The course's settings (:func:`~.settings.course_settings`) with the kit's executor, preprocessors and
    feedback: what a grading runs with."""
    course_dir = Path(course_dir).resolve()
    config = course_settings(course_dir, db_url, options)
    config.BudgetedExecute.outside_checks = True  # hidden checks run here; the kernel only answers them
    # a graded kernel has nothing to save: stop it at once instead of waiting for a graceful exit
    config.BudgetedExecute.shutdown_kernel = "immediate"
    config.SandboxedKernelManager.hide_paths = [str(course_dir)]
    config.Autograde.autograde_preprocessors = [
        "autograder.grading.execute.BudgetedExecute",
        "nbgrader.preprocessors.IgnorePattern",
        "nbconvert.preprocessors.ClearMetadataPreprocessor",
        "nbgrader.preprocessors.LimitOutput",
        "nbgrader.preprocessors.SaveAutoGrades",
        "autograder.grading.verdicts.ApplyVerdicts",  # the outside checks' verdicts, in the same run
        "nbgrader.preprocessors.AssignLatePenalties",
        KIT_CHECK,  # nbgrader's CheckCellMetadata, its schema checked once per process
    ]
    from nbgrader.converters import Autograde

    sanitize = config.Autograde.get("sanitize_preprocessors", None)
    config.Autograde.sanitize_preprocessors = with_kit_check(
        sanitize or Autograde.class_traits()["sanitize_preprocessors"].default()
    )
    # the executor's timing travels in the autograded notebook's metadata, past the metadata cleaner
    config.ClearMetadataPreprocessor.preserve_nb_metadata_mask = {("language_info", "name"), TIMING_KEY}
    from .feedback import use_kit_feedback  # (imports nbgrader)

    use_kit_feedback(config)
    return config


@contextmanager
def timed_step(steps: dict, name: str, student: str = ""):
    """Record in ``steps[name]`` the wall time of the block and the CPU this process spent in it (seconds):
    where one student's grading goes, for ``make bench``; a step that runs twice adds up.  With
    ``AUTOGRADER_TIMINGS`` set, also a phase ``student: name`` (:mod:`autograder.timing`)."""
    wall, cpu = time.monotonic(), time.process_time()
    try:
        with timing.phase(f"{student}: {name}"):
            yield
    finally:
        before = steps.get(name, {"wall": 0.0, "cpu": 0.0})
        steps[name] = {
            "wall": round(before["wall"] + time.monotonic() - wall, 3),
            "cpu": round(before["cpu"] + time.process_time() - cpu, 3),
        }


def _log_text(outcome: dict) -> str:
    return (outcome.get("log") or "") + "\n" + (outcome.get("error") or "")


def _log_reason(outcome: dict) -> str:
    text = _log_text(outcome)
    for marker in (
        "DeadKernelError",
        "Kernel died",
        "UnresponsiveKernelError",
        "CellTimeoutError",
        "NotJSONError",
        "JSONDecodeError",
        "ValidationError",
        "Notebook does not appear to be JSON",
    ):
        if marker in text:
            return marker
    lines = [line for line in text.splitlines() if line.startswith("[ERROR]")]
    return lines[0][8:][:300] if lines else "nbgrader could not grade it (see the log)"


def verdict_notes(name: str, verdicts: dict, zeroed: list[str]) -> list[str]:
    """Why the kit zeroed cells of notebook ``name``, in words for the result's reason."""
    return [
        f"{name}/{gid} scored in the student's kernel but its hidden check, run outside the kernel, did not "
        f"pass it [{verdicts.get(gid, NO_VERDICT).diagnosis}]: 0 points"
        for gid in zeroed
    ]


def record_empty_submission(db_url: str, assignment: str, student: str) -> None:
    """A submission with no gradable notebook still gets its row in the gradebook: 0 points everywhere."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        gb.update_or_create_student(student)
        try:
            gb.remove_submission(assignment, student)
        except MissingEntry:
            pass
        gb.add_submission(assignment, student)


def read_result(assignment: Assignment, student: str, db_url: str, notebooks: dict | None = None) -> StudentResult:
    """The student's per-test points from the gradebook, with the diagnoses of the autograded notebooks
    (and the verdicts the kit applied to them); the reason lists the cells the kit zeroed.  ``notebooks``
    holds the autograded notebooks the caller has read already (name -> notebook)."""
    from nbgrader.api import Gradebook, MissingEntry

    autograded = assignment.autograded(student)
    with Gradebook(db_url) as gb:
        try:
            submission = gb.find_submission(assignment.name, student)
        except MissingEntry:
            return StudentResult(student, Status.FAILED, "no submission in the gradebook")
        tests, notes = [], []
        for nb in sorted(submission.notebooks, key=lambda n: n.name):
            path = autograded / f"{nb.name}.ipynb"
            graded = (notebooks or {}).get(nb.name)
            if graded is None and path.exists():
                graded = nbformat.read(str(path), as_version=4)
            recorded = recorded_verdicts(graded) if graded is not None else None
            verdicts = recorded[0] if recorded is not None else None
            if recorded is not None:
                notes += verdict_notes(nb.name, *recorded)
            failures = notebook_failures(graded, verdicts) if graded is not None else {}
            for grade in sorted(nb.grades, key=lambda g: g.name):
                diagnosis, message = failures.get(grade.name, (None, None))
                if path.exists() and grade.name not in failures and (grade.score or 0) < grade.max_score:
                    diagnosis, message = "missing", "this test cell is not in the submitted notebook"
                verdict = verdicts.get(grade.name, NO_VERDICT) if verdicts is not None else None
                if verdict and not verdict.passed and diagnosis is None:
                    diagnosis, message = verdict.diagnosis, verdict.message
                if not path.exists():
                    diagnosis, message = NOT_GRADED, "the notebook was not submitted or could not be graded"
                tests.append(
                    TestResult(
                        nb.name, grade.name, float(grade.score or 0.0), float(grade.max_score), diagnosis, message
                    )
                )
        score, max_score = float(submission.score or 0.0), float(submission.max_score or 0.0)
    return StudentResult(student, Status.GRADED, "; ".join(notes), score, max_score, 0.0, tests)


def grade_student(
    assignment: Assignment, student: str, db_url: str | None = None, options: GradingOptions | None = None
) -> StudentResult:
    """Autograde one student's submission and generate its feedback; never raises for a bad submission.

    ``options`` are the run's (by default the course's own, from its nbgrader_config.py).  The result
    records how long it took, and each step's wall and CPU time (``step_seconds``)."""
    ensure_tools_on_path()
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's own SQLAlchemy noise
    start, steps = time.monotonic(), {}
    with shared_engines():  # nbgrader's ~36 Gradebooks of a student on one engine: its SQL compiled once
        result = _grade_student(assignment, student, db_url, options, steps)
    result.seconds = round(time.monotonic() - start, 3)
    result.step_seconds = steps
    return result


def _grade_student(
    assignment: Assignment, student: str, db_url: str | None, options: GradingOptions | None, steps: dict
) -> StudentResult:
    from nbgrader.converters import Autograde, GenerateFeedback

    from .feedback import ungraded_reasons, write_ungraded_pages

    with timed_step(steps, "intake", student):
        options = options or grading_options(assignment.course.config)
        config = course_config(assignment.root, db_url, options)
        db_url = config.CourseDirectory.db_url
        limits = options.limits
        expected = expected_notebooks(assignment)
        try:
            notes = stage_submission(
                assignment,
                student,
                expected,
                max_other_bytes=limits.max_submitted_mb * 2**20,
                max_other_files=limits.max_submitted_files,
            )
        except OSError as e:  # a submission that cannot be read is the student's; a full disk is not
            full = e.errno in (errno.ENOSPC, errno.EDQUOT)
            return (
                StudentResult(student, Status.ERROR, exception_fault(e))
                if full
                else StudentResult(student, Status.FAILED, f"could not read the submission: {e}")
            )
    staged = assignment.staged(student)
    if not any(staged.glob("*.ipynb")):
        with timed_step(steps, "gradebook", student):
            for folder in (assignment.autograded(student), assignment.feedback(student)):  # nothing earlier lingers
                shutil.rmtree(folder, ignore_errors=True)
            record_empty_submission(db_url, assignment.name, student)
            assignment.verdict_record(student).unlink(missing_ok=True)  # its grades were removed with it
        graded = {"success": True}
    else:
        # a test keeps its points only if the checker, outside the kernel, passed it in this run (ApplyVerdicts)
        with timed_step(steps, "autograde", student):
            graded = run_converter(Autograde, config, assignment.name, student)
    # a converter that failed on the kit's side (the disk, the gradebook, a kernel that cannot start) is no grade:
    # status error, and the caller removes what it wrote
    fault = kit_fault(_log_text(graded)) if not graded["success"] else None
    if fault:
        return StudentResult(student, Status.ERROR, fault)
    if not graded["success"]:
        return StudentResult(student, Status.FAILED, "; ".join(notes + [_log_reason(graded)]))
    with timed_step(steps, "gradebook", student):
        autograded = sorted(assignment.autograded(student).glob("*.ipynb"))
        notebooks = {path.stem: nbformat.read(str(path), as_version=4) for path in autograded}  # read once
        for path in autograded:
            notes += run_problems(path, notebooks[path.stem])
        result = read_result(assignment, student, db_url, notebooks)
        notes += [result.reason] if result.reason else []
        result.notebook_seconds = notebook_seconds(notebooks)
        result.kernel_starts = kernel_starts(notebooks)
    with timed_step(steps, "feedback", student):
        if options.feedback and autograded:
            fb = run_converter(GenerateFeedback, config, assignment.name, student)
            fault = kit_fault(_log_text(fb)) if not fb["success"] else None
            if not fb["success"] and not fault:
                notes.append("feedback: " + _log_reason(fb))
        if options.feedback:  # a notebook intake left out gets a page saying why, and what to do
            write_ungraded_pages(
                assignment.feedback(student),
                assignment.submitted(student),
                assignment.name,
                ungraded_reasons(sorted(expected), staged, notes),
                notebook_points(expected),
            )
    result.reason = "; ".join(notes)
    if fault:
        result = StudentResult(student, Status.ERROR, f"{fault}, while writing the feedback")
    return result
