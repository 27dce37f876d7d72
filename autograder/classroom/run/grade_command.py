"""`python -m autograder grade ASSIGNMENT`: grade a class, give feedback, export, report."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from ... import timing
from ...course import Assignment, CourseError, use_alembic_head
from ...grading.canary import CanaryFailed, run_canary
from ...grading.faults import exception_fault, from_driver
from ...grading.gradebook_engine import riding_out_restarts
from ...grading.notes import student_row
from ...grading.results import Status
from ...grading.settings import course_settings, expected_notebooks
from ...sandbox import SandboxUnavailable, check_sandbox, describe
from ...sandbox.limits import LimitUnavailable
from ..history.changes import format_summary
from ..history.history import RunRecorder, grading_inputs
from ..history.regrade import run_changes
from ..history.scale import OffScale, check_scale, current_total
from ..lms.export import export_grades, export_tests, scored_rows
from ..lms.lms import load_roster
from ..report import changes_section, figures, text_report, write_report
from ..similarity.similarity_command import after_grading
from . import workers
from .batch import BatchOptions, BatchOutcome, GradingError, grade_all, submissions, worker_pool
from .gradebook_guard import GradebookFault, back_up, gradebook_fault
from .grading_lock import Held, grading_lock
from .progress import Progress


def _registered_points(db_url: str, assignment: str) -> dict[str, dict[str, float]] | None:
    """notebook -> test -> points, as the gradebook has the assignment (None: not registered).  A course's first run
    creates its gradebook here: its schema version read in this process (``course.use_alembic_head``)."""
    from nbgrader.api import Gradebook, MissingEntry

    use_alembic_head()
    with Gradebook(db_url) as gb:
        try:
            return {
                nb.name: {c.name: float(c.max_score) for c in nb.grade_cells}
                for nb in gb.find_assignment(assignment).notebooks
            }
        except MissingEntry:
            return None


def ensure_assignment(assignment: Assignment, db_url: str) -> None:
    """The assignment and its source notebooks, with their tests' points, must be in the gradebook as the
    source has them now (a test's points changed in the source count from the next run); register if not."""
    try:
        assignment.notebooks()
    except CourseError as e:
        raise GradingError(str(e)) from None
    points = {
        nb: {test: float(cell["points"] or 0) for test, cell in cells.items() if cell["grade"]}
        for nb, cells in expected_notebooks(assignment).items()
    }
    try:
        known = _registered_points(db_url, assignment.name)
    except Exception as e:  # noqa: BLE001 - any gradebook failure is reported the same way, in one line
        raise GradingError(str(gradebook_fault(assignment.course.root, db_url, "open", e))) from None
    if known != points:
        try:
            assignment.register(db_url)
        except RuntimeError as e:
            raise GradingError(str(e)) from None
        except Exception as e:  # noqa: BLE001 - the driver's text goes to the log, not the terminal
            raise GradingError(
                str(gradebook_fault(assignment.course.root, db_url, "register the assignment in", e))
            ) from None


def _checked_course(assignment: Assignment, db_url: str | None, options: BatchOptions):
    """The run's nbgrader config and grading options, once the course's config, the sandbox and the gradebook
    (backed up) are checked; GradingError if not."""
    course = assignment.course
    try:
        grading = options.grading(course.config)
        config = course_settings(course.root, db_url, grading)
    except Exception as e:  # noqa: BLE001 - a broken nbgrader_config.py is named with its error
        raise GradingError(f"{course.root / 'nbgrader_config.py'}: {type(e).__name__}: {e}") from None
    db_url = config.CourseDirectory.db_url
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
    try:  # the gradebook is never the only copy: checked and copied before anything writes to it
        back_up(course.root, db_url)
    except GradebookFault as e:
        raise GradingError(str(e)) from None
    return config, grading


def grade_assignment(
    assignment: Assignment,
    *,
    db_url: str | None = None,
    students: list[str] | None = None,
    options: BatchOptions | None = None,
    progress: Progress | None = None,
    out=print,
) -> BatchOutcome:
    """Grade every submission of ``assignment`` (made by :func:`~autograder.course.open_assignment`, which said
    whether the course is there), record the run, export, report; GradingError when grading cannot start."""
    options = options or BatchOptions()
    with ExitStack() as held:  # one grading of an assignment at a time: nothing is read or written before
        url = lock_url(assignment, db_url)
        try:
            held.enter_context(grading_lock(url, assignment.name, wait=options.wait))
        except Held as e:
            raise GradingError(str(e)) from None
        except OSError as e:  # the lock file's folder: read-only, full
            raise GradingError(
                str(gradebook_fault(assignment.course.root, url, "lock the assignment beside", e))
            ) from None
        except Exception as e:  # noqa: BLE001 - a PostgreSQL server down or refusing: one line, the driver's in the log
            if not from_driver(e):
                raise
            raise GradingError(str(gradebook_fault(assignment.course.root, url, "lock the assignment in", e))) from None
        with timing.phase("course config and checks, gradebook backed up"):
            config, grading = _checked_course(assignment, db_url, options)
        db_url = config.CourseDirectory.db_url
        with timing.phase("gradebook opened, assignment registered"):
            ensure_assignment(assignment, db_url)
        with riding_out_restarts():  # from here on, a PostgreSQL server that restarts is waited for
            return _grade_class(assignment, db_url, students, options, progress, grading, config, out)


def lock_url(assignment: Assignment, db_url: str | None) -> str:
    """The gradebook the run will use (``db_url``, else the course's), where its lock lives."""
    try:
        return course_settings(assignment.course.root, db_url).CourseDirectory.db_url
    except Exception as e:  # noqa: BLE001 - a broken nbgrader_config.py is named with its error
        raise GradingError(f"{assignment.course.root / 'nbgrader_config.py'}: {type(e).__name__}: {e}") from None


def _grade_class(assignment, db_url, students, options, progress, grading, config, out) -> BatchOutcome:
    course = assignment.course
    found = submissions(assignment, students)
    if not found:
        out(f"no submissions of {assignment.name!r} under {course.step_root('submitted')}: nothing to grade")
        return BatchOutcome()
    where = f"on the Dask cluster {options.scheduler}" if options.scheduler else f"with {grading.jobs} worker(s)"
    out(f"grading {len(found)} submission(s) of {assignment.name!r} {where}; gradebook {db_url}")
    try:
        out(describe(grading.limits, grading.sandbox, grading.notebook_budget))
    except LimitUnavailable as e:
        raise GradingError(f"ResourceLimits.mechanism is 'cgroup', but {e}") from None
    # the run's worker processes (local ones): the canary's reference is graded in one of them, then the class
    pool = None if options.scheduler else (workers.take(grading.jobs) or worker_pool(grading.jobs))
    try:
        outcome, recorder = _canary_then_class(assignment, db_url, found, options, progress, grading, pool, out)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    try:
        with timing.phase("run recorded, grades exported, report written"):
            recorder.finish(outcome.results)
            changes = run_changes(db_url, assignment.name, recorder.run_id)
    except Exception as e:  # noqa: BLE001 - the grades are recorded; the driver's text goes to the log
        raise GradingError(str(gradebook_fault(course.root, db_url, "record the run in", e))) from None
    ungraded = {r.student for r in outcome.results if r.status is Status.ERROR}
    report_dir = assignment.reports
    total = current_total(assignment)
    try:  # every file that carries scores: on the assignment's current total, none above its maximum
        check_scale(scored_rows(outcome.results), total, "the grades of this run (grades.csv, tests, report)")
        with timing.phase("run recorded, grades exported, report written"):
            report_dir.mkdir(parents=True, exist_ok=True)
            grades_csv = export_grades(
                db_url,
                assignment.name,
                course.grades_csv,
                roster=load_roster(course.root),
                leave_out=ungraded,
                total=total,
            )
            tests_csv = export_tests(outcome.results, report_dir / "tests.csv", total)
        with timing.phase("similarity"):
            similar = after_grading(assignment, report_dir, config)
        with timing.phase("run recorded, grades exported, report written"):
            index = write_report(
                outcome.results, report_dir, assignment.name, sections=(changes_section(changes),) + similar.sections
            )
    except OffScale as e:
        raise GradingError(str(e)) from None
    except OSError as e:  # a full disk: the grades are in the gradebook; the exports are written again next run
        grades_csv = tests_csv = index = f"not written ({exception_fault(e)})"
        similar = None
    except Exception as e:
        if not from_driver(e):
            raise
        raise GradingError(str(gradebook_fault(course.root, db_url, "export the grades from", e))) from None
    out("")
    out(class_table(outcome))
    out("")
    out(text_report(figures(outcome.results)))
    out("")
    if changes:
        out(format_summary(changes))
        out("")
    if similar is not None:
        out(similar.text)
        out("")
    errors = f", not graded {outcome.errors} (the kit's own side failed: see `error` above)" if outcome.errors else ""
    out(
        f"graded {outcome.graded}, skipped {outcome.skipped} (unchanged), failed {outcome.failed}{errors} "
        f"in {outcome.seconds:.1f}s"
    )
    out(
        f"grades:   {grades_csv}\ntests:    {tests_csv}\nreport:   {index}\n"
        f"{similar.where if similar is not None else ''}feedback: {course.step_root('feedback')}"
    )
    if outcome.stopped:
        out(
            f"STOPPED: {outcome.stopped}. The students graded before are recorded whole; the one in flight and those "
            "after it were not graded. Free space on that disk and run `grade` again: it goes on with them."
        )
    elif outcome.errors:
        out(
            f"{outcome.errors} student(s) not graded: a fault on the kit's side, not theirs (status `error`); no grade "
            "was recorded for them, and the next `grade` grades them again."
        )
    return outcome


def _canary_then_class(assignment, db_url, found, options, progress, grading, pool, out):
    """The canary, then the class; on local processes the canary is graded beside the first students, and nothing
    of a student is recorded before it passed (:mod:`.beside`)."""
    course = assignment.course
    recorder = None

    def canary(beside: bool) -> None:  # the reference, through the same grading: a fault of the kit's is nobody's grade
        # beside the students, in its own process (started as `grade` started, else forked now from the run's fork
        # server, which imported the grading: no process exists until the reference is graded); else in the run's pool
        own = (workers.take_canary() or worker_pool(1)) if beside else None
        try:
            with timing.phase("canary"):
                run_canary(
                    assignment,
                    grading,
                    notebooks=handed_in(assignment, found),
                    gradebook=db_url,
                    pool=own if beside else pool,
                    out=out,
                )
        finally:
            if own is not None:
                own.shutdown(cancel_futures=True)

    def open_history() -> None:
        nonlocal recorder
        try:
            recorder = RunRecorder(db_url, assignment.name, grading_inputs(assignment, grading))
        except Exception as e:  # noqa: BLE001 - no grading goes unrecorded: without the history, no run
            raise GradingError(str(gradebook_fault(course.root, db_url, "record the run in", e))) from None

    try:
        with timing.phase("the class graded"):
            outcome = grade_all(
                assignment,
                db_url,
                found,
                options,
                progress,
                grading,
                on_graded=lambda result: recorder.record(result),
                pool=pool,
                canary=canary,
                after_canary=open_history,
            )
    except CanaryFailed as e:
        raise GradingError(f"no student was graded: the canary failed: {e}") from None
    return outcome, recorder


def handed_in(assignment: Assignment, found: dict) -> list[str] | None:
    """The notebooks of the assignment that at least one of the run's submissions (``found``: student -> folder)
    holds: the canary grades their reference, not the others' (a class that handed in one lesson waits on one
    reference notebook, not five).  None, every notebook, when no submission holds any."""
    sources = {p.stem for p in assignment.source_notebooks()}
    held = {p.stem for folder in found.values() for p in Path(folder).glob("*.ipynb")} & sources
    return sorted(held) or None


def class_table(outcome: BatchOutcome) -> str:
    width = max([len(r.student) for r in outcome.results] + [7])
    lines = [f"{'student':{width}}  {'score':>9}  status   notes", "-" * (width + 40)]
    for r in outcome.results:
        score = f"{r.score:g}/{r.max_score:g}" if r.status not in (Status.FAILED, Status.ERROR) else "-"
        lines.append(f"{r.student:{width}}  {score:>9}  {r.status:7}  {student_row(r.reason)}")
    return "\n".join(lines)


def interrupted(course_dir, assignment: str, db_url: str | None, started: float) -> str:
    """What a run stopped by Ctrl-C or SIGTERM (started at ``started``, ``time.time()``) leaves, in one line."""
    from ...course import Course
    from ..history.history import History, stamp

    course = Course(Path(course_dir).resolve())
    folder = Assignment(course, assignment).state_folder
    recorded = sum(1 for p in folder.glob("*.json") if p.stat().st_mtime >= started) if folder.is_dir() else 0
    run = ""
    try:
        with History(course_settings(course.root, db_url).CourseDirectory.db_url) as history:
            last = history.runs(assignment)[-1] if history.exists() else None
        if last is not None and last.finished is None:
            run = f" in run {last.id} (started {stamp(last.started)} UTC, kept as unfinished)"
    except Exception:  # noqa: BLE001, S110 - only the run's number is missing from the line
        pass
    return (
        f"stopped: {recorded} student(s) graded and recorded{run}; the one(s) in flight were not. "
        f"Run `autograder grade {assignment}` again: it goes on with the students not yet graded."
    )
