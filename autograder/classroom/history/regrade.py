"""`runs` and `diff`: the recorded grade runs of an assignment, and what changed between two of them."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .changes import Comparison, class_mean, compare_grades, off_total, out_of
from .history import History, HistoryError, Run, stamp, what_changed

RUN_COLUMNS = ["run", "started", "finished", "students", "mean", "out_of"]


def gradebook_url(course_dir: Path, db_url: str | None) -> str:
    """The course's gradebook URL; a SQLite gradebook must exist (opening it would create an empty one)."""
    from ...course import not_a_course_root, sqlite_file
    from ...grading.settings import course_settings

    course_dir = Path(course_dir).resolve()
    if not course_dir.is_dir():
        raise ValueError(f"course directory {course_dir} does not exist")
    db_url = course_settings(course_dir, db_url).CourseDirectory.db_url
    db_file = sqlite_file(db_url)
    if db_file and not Path(db_file).exists():
        raise ValueError(not_a_course_root(course_dir) or f"no gradebook at {db_file}: grade the assignment first")
    return db_url


def recorded_runs(history: History, assignment: str) -> list[Run]:
    runs = history.runs(assignment)
    if not runs:
        raise HistoryError(
            f"no recorded grade runs of {assignment!r} in {history.db_url}: "
            f"`python -m autograder grade {assignment}` records one"
        )
    return runs


def run_rows(history: History, assignment: str) -> list[dict]:
    """Each run, oldest first: when, how many students it graded, the class mean after it and the total it is
    out of (a point change moves the total: 71.00/100, then 97.50/102; each run on its own total, never a mix),
    what changed."""
    rows, previous = [], None
    for run in recorded_runs(history, assignment):
        grades = history.grades_as_of(assignment, run.id)
        mean = class_mean(grades)
        apart = off_total(grades)
        inputs = what_changed(
            previous.inputs if previous else None,
            run.inputs,
            (previous.kit_version, run.kit_version) if previous else None,
        )
        if apart:
            inputs += f" ({apart} student(s) graded on another total, left out of the mean: `grade` regrades them)"
        rows.append(
            {
                "run": run.id,
                "started": stamp(run.started),
                "finished": stamp(run.finished),
                "students": run.students,
                "mean": "" if mean is None else f"{mean:.2f}",
                "out_of": out_of(grades),
                "inputs": inputs,
            }
        )
        previous = run
    return rows


def runs_text(rows: list[dict]) -> str:
    lines = [
        f"{'run':>4}  {'started (UTC)':19}  {'finished (UTC)':19}  {'students':>8}  {'mean':>7}  "
        "grading inputs (against the run before)"
    ]
    for r in rows:
        lines.append(
            f"{r['run']:>4}  {r['started']:19}  {r['finished']:19}  {r['students']:>8}  {mean_of(r):>11}  {r['inputs']}"
        )
    return "\n".join(lines)


def mean_of(row: dict) -> str:
    """``71.00/100``: a run's mean with the total it is out of."""
    return f"{row['mean']}/{row['out_of']}" if row["mean"] and row["out_of"] else row["mean"]


def runs_csv(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, RUN_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def compare_runs(
    history: History,
    assignment: str,
    from_run: int | None = None,
    to_run: int | None = None,
    students: list[str] | None = None,
) -> Comparison:
    """The class after run ``from_run`` against after ``to_run`` (default: the last two runs)."""
    ids = [r.id for r in recorded_runs(history, assignment)]
    for given in (from_run, to_run):
        if given is not None:
            history.run(assignment, given)  # a run that is not recorded is named
    if to_run is None:
        to_run = ids[-1]
    if from_run is None:
        earlier = [i for i in ids if i < to_run]
        if not earlier:
            raise HistoryError(
                f"run {to_run} is the first recorded run of {assignment!r}: nothing to compare it "
                "with (give --from and --to)"
            )
        from_run = earlier[-1]
    before = history.grades_as_of(assignment, from_run)
    after = history.grades_as_of(assignment, to_run)
    return compare_grades(
        before, after, history.run(assignment, from_run).label, history.run(assignment, to_run).label, students
    )


def changed_since(history: History, assignment: str, run_id: int) -> list[str]:
    """Students whose score differs between the class after run ``run_id`` and after the latest run."""
    latest = recorded_runs(history, assignment)[-1].id
    comparison = compare_runs(history, assignment, run_id, latest)
    return [c.student for c in comparison.students if c.delta != 0 or c.before is None]


def run_changes(db_url: str, assignment: str, run_id: int) -> Comparison | None:
    """What run ``run_id`` changed, if it regraded students graded before (None if it did not)."""
    with History(db_url) as history:
        earlier = [r for r in history.runs(assignment) if r.id < run_id]
        if not earlier:
            return None
        before = history.grades_as_of(assignment, earlier[-1].id)
        after = history.grades_as_of(assignment, run_id)
        regraded = [s for s, grade in after.items() if grade.run_id == run_id and s in before]
        if not regraded:
            return None
        comparison = compare_grades(before, after, earlier[-1].label, history.run(assignment, run_id).label)
    comparison.regraded = len(regraded)
    return comparison
