"""`python -m autograder grade ASSIGNMENT`: grade a class, give feedback, export, report."""
from __future__ import annotations

from pathlib import Path

from ..config import read_course_config
from ..course import Course, CourseError, assignment_notebooks, not_a_course_root, register_assignment
from ..grading.grade import course_config
from ..grading.notes import grouped_reason
from ..grading.results import Status
from ..sandbox import SandboxUnavailable, check_sandbox, describe
from .batch import BatchOptions, BatchOutcome, GradingError, grade_all, submissions
from .export import export_grades, export_tests
from .lms import load_roster
from ..sandbox.limits import LimitUnavailable, ResourceLimits
from .progress import Progress
from .report import figures, text_report, write_report
from .similarity_command import after_grading


def _registered_notebooks(db_url: str, assignment: str) -> set[str] | None:
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            return {nb.name for nb in gb.find_assignment(assignment).notebooks}
        except MissingEntry:
            return None


def ensure_assignment(course_dir: Path, assignment: str, db_url: str) -> None:
    """The assignment and its source notebooks must be in the gradebook; put them there if not."""
    try:
        names = {p.stem for p in assignment_notebooks(Course(course_dir), assignment)}
    except CourseError as e:
        raise GradingError(str(e)) from None
    try:
        known = _registered_notebooks(db_url, assignment)
    except Exception as e:  # noqa: BLE001 - any gradebook failure is reported the same way
        raise GradingError(f"cannot open the gradebook {db_url}: {type(e).__name__}: {e}") from None
    if known != names:
        try:
            register_assignment(course_dir, db_url, assignment)
        except RuntimeError as e:
            raise GradingError(str(e)) from None


def grade_assignment(course_dir: Path, assignment: str, *, db_url: str | None = None, students: list[str] | None = None,
                     options: BatchOptions | None = None, progress: Progress | None = None, out=print) -> BatchOutcome:
    options = options or BatchOptions()
    course_dir = Path(course_dir).resolve()
    if not course_dir.is_dir():
        raise GradingError(f"course directory {course_dir} does not exist")
    if not_a_course_root(course_dir):
        raise GradingError(not_a_course_root(course_dir))
    try:
        grading = options.grading(read_course_config(course_dir))
        config = course_config(course_dir, db_url, grading)
    except Exception as e:  # noqa: BLE001 - a broken nbgrader_config.py is named with its error
        raise GradingError(f"{course_dir / 'nbgrader_config.py'}: {type(e).__name__}: {e}") from None
    db_url = config.CourseDirectory.db_url
    course = Course(course_dir)  # the course as configured (the grading config stages submissions elsewhere)
    if options.scheduler is None:
        from .dask_pool import default_scheduler

        options.scheduler = default_scheduler()
    if options.scheduler:
        from .dask_pool import ClusterError, refuse_local_gradebook

        try:
            refuse_local_gradebook(db_url)
        except ClusterError as e:
            raise GradingError(f"--scheduler {options.scheduler}: {e}") from None
    if grading.sandbox and not options.scheduler:  # on a cluster, every worker checks its own
        try:
            check_sandbox()
        except SandboxUnavailable as e:
            raise GradingError(str(e)) from None
    ensure_assignment(course_dir, assignment, db_url)
    found = submissions(course_dir, assignment, students)
    if not found:
        out(f"no submissions of {assignment!r} under {course.step_root('submitted')}: nothing to grade")
        return BatchOutcome()
    where = f"on the Dask cluster {options.scheduler}" if options.scheduler else f"with {grading.jobs} worker(s)"
    out(f"grading {len(found)} submission(s) of {assignment!r} {where}; gradebook {db_url}")
    try:
        out(describe(ResourceLimits(config=config), grading.sandbox, grading.notebook_budget))
    except LimitUnavailable as e:
        raise GradingError(f"ResourceLimits.mechanism is 'cgroup', but {e}") from None
    outcome = grade_all(course_dir, assignment, db_url, found, options, progress, grading)
    report_dir = course.reports(assignment)
    report_dir.mkdir(parents=True, exist_ok=True)
    grades_csv = export_grades(db_url, assignment, course.grades_csv, roster=load_roster(course_dir))
    tests_csv = export_tests(outcome.results, report_dir / "tests.csv")
    similar = after_grading(course_dir, assignment, report_dir, config)
    index = write_report(outcome.results, report_dir, assignment, sections=similar.sections)
    out("")
    out(class_table(outcome))
    out("")
    out(text_report(figures(outcome.results)))
    out("")
    out(similar.text)
    out("")
    out(f"graded {outcome.graded}, skipped {outcome.skipped} (unchanged), failed {outcome.failed} "
        f"in {outcome.seconds:.1f}s")
    out(f"grades:   {grades_csv}\ntests:    {tests_csv}\nreport:   {index}\n"
        f"{similar.where}feedback: {course.step_root('feedback')}")
    return outcome


def class_table(outcome: BatchOutcome) -> str:
    width = max([len(r.student) for r in outcome.results] + [7])
    lines = [f"{'student':{width}}  {'score':>9}  status   notes", "-" * (width + 40)]
    for r in outcome.results:
        score = f"{r.score:g}/{r.max_score:g}" if r.status is not Status.FAILED else "-"
        lines.append(f"{r.student:{width}}  {score:>9}  {r.status:7}  {grouped_reason(r.reason)}")
    return "\n".join(lines)
