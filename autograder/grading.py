"""Grading one submission: the single step every grader of the kit runs.

``grade_student(course_dir, assignment, student, db_url)`` is a plain function of the course
directory on shared storage and the gradebook URL, so any worker process can run it: a local
process pool today, a distributed engine later.  It autogrades with nbgrader's own converters
(so the gradebook is nbgrader's), generates the feedback, and returns a :class:`StudentResult`
with the per-test points and diagnoses.  It never raises for a bad submission: a failure is
recorded with its reason.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import time
import warnings
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from .intake import STAGING, locked_cells, read_notebook, stage_submission
from .preprocessors import LAST_TIMINGS, LAST_VERDICTS
from .sandbox import sandbox_enabled
from .results import StudentResult, TestResult, notebook_failures, run_problems

DEFAULT_NOTEBOOK_BUDGET = 120.0
DEFAULT_CELL_TIMEOUT = 60


def sqlite_url(path: Path) -> str:
    # a generous busy timeout: several worker processes may write the same SQLite gradebook
    return f"sqlite:///{Path(path).resolve()}?timeout=60"


def course_config(course_dir: Path, db_url: str | None = None, *, notebook_budget: float = DEFAULT_NOTEBOOK_BUDGET,
                  cell_timeout: int = DEFAULT_CELL_TIMEOUT) -> Config:
    """The course's nbgrader_config.py, pointed at ``course_dir`` and ``db_url``, with the kit's executor."""
    course_dir = Path(course_dir).resolve()
    config = Config()
    if (course_dir / "nbgrader_config.py").exists():
        config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config())
    config.CourseDirectory.root = str(course_dir)
    config.CourseDirectory.submitted_directory = STAGING  # checked copies; submitted/ is never touched
    config.CourseDirectory.db_url = db_url or config.CourseDirectory.get("db_url") or sqlite_url(course_dir / "gradebook.db")
    config.Execute.timeout = cell_timeout
    config.BudgetedExecute.notebook_budget = notebook_budget
    config.BudgetedExecute.timeout = cell_timeout
    config.BudgetedExecute.sandbox = sandbox_enabled()
    config.BudgetedExecute.outside_checks = True  # hidden checks run here; the kernel only answers them
    # a graded kernel has nothing to save: stop it at once instead of waiting for a graceful exit
    config.BudgetedExecute.shutdown_kernel = "immediate"
    config.SandboxedKernelManager.hide_paths = [str(course_dir)]
    config.Autograde.autograde_preprocessors = [
        "autograder.preprocessors.BudgetedExecute",
        "nbgrader.preprocessors.IgnorePattern",
        "nbconvert.preprocessors.ClearMetadataPreprocessor",
        "nbgrader.preprocessors.LimitOutput",
        "nbgrader.preprocessors.SaveAutoGrades",
        "nbgrader.preprocessors.AssignLatePenalties",
        "nbgrader.preprocessors.CheckCellMetadata",
    ]
    return config


def expected_notebooks(course_dir: Path, assignment: str) -> dict[str, dict[str, dict]]:
    """Notebook name -> its locked and graded cells, from the course's source notebooks."""
    return {path.stem: locked_cells(read_notebook(path))
            for path in sorted((Path(course_dir) / "source" / assignment).glob("*.ipynb"))}


def ensure_tools_on_path() -> None:
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def _run(converter_cls, config: Config, assignment: str, student: str, force: bool = True) -> dict:
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id = assignment
    coursedir.student_id = student
    app = converter_cls(coursedir=coursedir, config=config)
    app.force = force
    if hasattr(app, "create_student"):
        app.create_student = True
    cwd = os.getcwd()
    try:
        return capture_log(app)
    finally:
        os.chdir(cwd)


def _log_reason(outcome: dict) -> str:
    text = (outcome.get("log") or "") + "\n" + (outcome.get("error") or "")
    for marker in ("DeadKernelError", "Kernel died", "UnresponsiveKernelError", "CellTimeoutError",
                   "NotJSONError", "JSONDecodeError", "ValidationError", "Notebook does not appear to be JSON"):
        if marker in text:
            return marker
    lines = [line for line in text.splitlines() if line.startswith("[ERROR]")]
    return lines[0][8:][:300] if lines else "nbgrader could not grade it (see the log)"


OVERRIDES = ".kit/overrides"
NO_VERDICT = [False, "unverified", "no hidden check passed this test in this grading"]


def _override_file(course_dir: Path, assignment: str, student: str) -> Path:
    return Path(course_dir) / OVERRIDES / assignment / f"{student}.json"


def apply_verdicts(course_dir: Path, db_url: str, assignment: str, student: str,
                   verdicts: dict[str, dict]) -> list[str]:
    """Zero every test that scored in the student's kernel but was not passed by its hidden checks, run
    outside the kernel in this grading (a test with no verdict was not); return the reasons.

    The zero is nbgrader's manual score of that cell, which nbgrader keeps across regrades: the kit
    records which cells it zeroed and clears those first, so a fixed resubmission is judged afresh and
    an instructor's own manual scores are never touched.
    """
    from nbgrader.api import Gradebook, MissingEntry

    record = _override_file(course_dir, assignment, student)
    previous = json.loads(record.read_text()) if record.exists() else []
    reasons, zeroed = [], []
    with Gradebook(db_url) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return reasons
        for nb in submission.notebooks:
            tests = verdicts.get(nb.name, {})
            for grade in nb.grades:
                if [nb.name, grade.name] in previous and grade.manual_score == 0.0:
                    grade.manual_score = None
                passed, diagnosis, _ = tests.get(grade.name, NO_VERDICT)
                if not passed and (grade.score or 0) > 0:
                    grade.manual_score = 0.0
                    zeroed.append([nb.name, grade.name])
                    reasons.append(f"{nb.name}/{grade.name} scored in the student's kernel but its hidden check, run "
                                   f"outside the kernel, did not pass it [{diagnosis}]: 0 points")
        gb.db.commit()
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(zeroed))
    return reasons


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


def read_result(course_dir: Path, assignment: str, student: str, db_url: str,
                verdicts: dict[str, dict] | None = None) -> StudentResult:
    """The student's per-test points from the gradebook, with the diagnoses of the autograded notebooks."""
    from nbgrader.api import Gradebook, MissingEntry

    autograded = Path(course_dir) / "autograded" / student / assignment
    with Gradebook(db_url) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return StudentResult(student, "failed", "no submission in the gradebook")
        tests = []
        for nb in sorted(submission.notebooks, key=lambda n: n.name):
            path = autograded / f"{nb.name}.ipynb"
            failures = notebook_failures(path) if path.exists() else {}
            for grade in sorted(nb.grades, key=lambda g: g.name):
                diagnosis, message = failures.get(grade.name, (None, None))
                if path.exists() and grade.name not in failures and (grade.score or 0) < grade.max_score:
                    diagnosis, message = "missing", "this test cell is not in the submitted notebook"
                verdict = (verdicts or {}).get(nb.name, {}).get(grade.name, NO_VERDICT if verdicts is not None else None)
                if verdict and not verdict[0] and diagnosis is None:
                    diagnosis, message = verdict[1], verdict[2]
                if not path.exists():
                    diagnosis, message = "missing", "the notebook was not submitted or could not be graded"
                tests.append(TestResult(nb.name, grade.name, float(grade.score or 0.0), float(grade.max_score),
                                        diagnosis, message))
        score, max_score = float(submission.score or 0.0), float(submission.max_score or 0.0)
    return StudentResult(student, "graded", "", score, max_score, 0.0, tests)


def grade_student(course_dir, assignment: str, student: str, db_url: str | None = None, *,
                  notebook_budget: float = DEFAULT_NOTEBOOK_BUDGET, cell_timeout: int = DEFAULT_CELL_TIMEOUT,
                  feedback: bool = True, verify: bool = True) -> StudentResult:
    """Autograde one student's submission and generate its feedback; never raises for a bad submission."""
    from nbgrader.converters import Autograde, GenerateFeedback

    ensure_tools_on_path()
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's own SQLAlchemy noise
    start = time.monotonic()
    course_dir = Path(course_dir).resolve()
    config = course_config(course_dir, db_url, notebook_budget=notebook_budget, cell_timeout=cell_timeout)
    db_url = config.CourseDirectory.db_url
    try:
        notes = stage_submission(course_dir, assignment, student, expected_notebooks(course_dir, assignment))
    except OSError as e:
        result = StudentResult(student, "failed", f"could not read the submission: {e}")
        result.seconds = round(time.monotonic() - start, 3)
        return result
    staged = course_dir / STAGING / student / assignment
    LAST_TIMINGS.clear()
    LAST_VERDICTS.clear()
    if not any(staged.glob("*.ipynb")):
        for folder in ("autograded", "feedback"):  # nothing of an earlier grading may linger
            shutil.rmtree(course_dir / folder / student / assignment, ignore_errors=True)
        record_empty_submission(db_url, assignment, student)
        graded = {"success": True}
    else:
        graded = _run(Autograde, config, assignment, student)
    if not graded["success"]:
        result = StudentResult(student, "failed", "; ".join(notes + [_log_reason(graded)]))
    else:
        autograded = sorted((course_dir / "autograded" / student / assignment).glob("*.ipynb"))
        for path in autograded:
            notes += run_problems(path)
        verdicts = None
        if verify:
            # a test keeps its points only if the checker, outside the kernel, passed it in this run
            verdicts = dict(LAST_VERDICTS)
            notes += apply_verdicts(course_dir, db_url, assignment, student, verdicts)
        result = read_result(course_dir, assignment, student, db_url, verdicts)
        result.notebook_seconds = dict(LAST_TIMINGS)
        if feedback and autograded:
            fb = _run(GenerateFeedback, config, assignment, student)
            if not fb["success"]:
                notes.append("feedback: " + _log_reason(fb))
        result.reason = "; ".join(notes)
    result.seconds = round(time.monotonic() - start, 3)
    return result
