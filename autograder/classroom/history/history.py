"""Every grade run kept: the kit's own tables next to nbgrader's, in the same gradebook database.

nbgrader's tables hold one grade per student and test, so a regrade overwrites it.  Here each
``grade`` run gets a row in ``kit_runs`` (when it started and finished, the kit's version, a hash of
what decides grades), and each student it graded a row in ``kit_run_students`` with one row per test
in ``kit_run_tests``.  A student's rows are written in one transaction, so a killed run leaves whole
students or none; its run keeps ``finished`` empty and is listed as unfinished.

A student's grade *as of* a run is their record in the latest run up to and including it that graded
them (a run grades only new or changed submissions, unless forced), so every run has a full class.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlalchemy import (
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    func,
    inspect,
    select,
)

from ...config import GradingOptions
from ...course import Assignment, repo_root
from ...grading.results import Status, StudentResult

METADATA = MetaData()
RUNS = Table(
    "kit_runs",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("assignment", String(128), nullable=False, index=True),
    Column("started", DateTime, nullable=False),
    Column("finished", DateTime, nullable=True),  # empty: the run was killed (or is still going)
    Column("kit_version", String(64), nullable=False),
    Column("inputs_hash", String(64), nullable=False),
    Column("inputs", Text, nullable=False),  # JSON: the hash of each input, to say what changed
)
STUDENTS = Table(
    "kit_run_students",
    METADATA,
    Column("run_id", Integer, ForeignKey("kit_runs.id"), primary_key=True),
    Column("student", String(128), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("score", Float, nullable=False),
    Column("max_score", Float, nullable=False),
    Column("reason", Text, nullable=False),
)
TESTS = Table(
    "kit_run_tests",
    METADATA,
    Column("run_id", Integer, primary_key=True),
    Column("student", String(128), primary_key=True),
    Column("notebook", String(128), primary_key=True),
    Column("test", String(128), primary_key=True),
    Column("points", Float, nullable=False),
    Column("max_points", Float, nullable=False),
    Column("diagnosis", String(128)),
    Column("message", Text),
    ForeignKeyConstraint(["run_id", "student"], ["kit_run_students.run_id", "kit_run_students.student"]),
)
RECORDED = (Status.GRADED, Status.FAILED)  # a skipped student was recorded by the run that graded them


class HistoryError(ValueError):
    """A run that is not recorded, or a gradebook without history."""


@dataclass(frozen=True)
class Run:
    id: int
    assignment: str
    started: datetime
    finished: datetime | None
    kit_version: str
    inputs_hash: str
    inputs: dict
    students: int = 0  # students this run graded

    @property
    def label(self) -> str:
        return f"run {self.id} ({stamp(self.started)} UTC)"


@dataclass
class Grade:
    """One student's recorded grade: the run that gave it, the score and every test's points."""

    student: str
    run_id: int
    status: str
    score: float
    max_score: float
    reason: str = ""
    tests: dict[tuple[str, str], tuple[float, float, str | None]] = field(default_factory=dict)


def grade_of(result: StudentResult, run_id: int = 0) -> Grade:
    """A fresh result as the history would record it (a dry run compares these with the recorded ones)."""
    status = Status.GRADED if result.status is Status.SKIPPED else result.status
    return Grade(
        result.student,
        run_id,
        str(status),
        result.score,
        result.max_score,
        result.reason,
        {(t.notebook, t.test): (t.points, t.max_points, t.diagnosis) for t in result.tests},
    )


def stamp(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S") if moment else "unfinished"


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)  # UTC, as both databases store it


# --- what decides grades -----------------------------------------------------------------------------


def kit_version() -> str:
    """The installed kit's version, with its git commit when it runs from a clone."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("embeddings-autograder")
    except PackageNotFoundError:
        found = "unknown"
    try:
        commit = subprocess.run(
            ["git", "-C", str(repo_root()), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{found}+g{commit}" if commit else found


def grading_inputs(assignment: Assignment, grading: GradingOptions) -> dict:
    """What decides a grade besides the submission (:mod:`.inputs`): the record each run keeps."""
    from .inputs import grading_inputs as every_input

    return every_input(assignment, grading)


def inputs_hash(inputs: dict) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def what_changed(before: dict | None, after: dict, versions: tuple[str, str] | None = None) -> str:
    """The grading inputs that differ between two runs, in a few words."""
    from .inputs import what_changed as inputs_changed

    said = inputs_changed(before, after)
    if versions and versions[0] != versions[1] and "kit" not in after:  # a record older than the kit's digest
        said = f"kit {versions[0]} -> {versions[1]}" + ("" if said == "same inputs" else f"; {said}")
    return said


# --- the store -------------------------------------------------------------------------------------


class History:
    """The kit's run tables in the gradebook at ``db_url`` (SQLite or PostgreSQL)."""

    def __init__(self, db_url: str):
        self.db_url = db_url
        self.engine = create_engine(db_url, pool_pre_ping=True)  # a connection kept over a server restart is replaced

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc) -> None:
        self.engine.dispose()

    def exists(self) -> bool:
        return inspect(self.engine).has_table(RUNS.name)

    def create(self) -> None:
        METADATA.create_all(self.engine)  # only the tables that are missing

    # writing: one run at a time, one student per transaction

    def start_run(self, assignment: str, inputs: dict, version: str) -> int:
        self.create()
        with self.engine.begin() as db:
            return db.execute(
                RUNS.insert().values(
                    assignment=assignment,
                    started=_now(),
                    finished=None,
                    kit_version=version,
                    inputs_hash=inputs_hash(inputs),
                    inputs=json.dumps(inputs, sort_keys=True),
                )
            ).inserted_primary_key[0]

    def record(self, run_id: int, result: StudentResult) -> None:
        """The student's grade in this run: their row and every test's, all or nothing."""
        status = Status.GRADED if result.status is Status.SKIPPED else result.status
        with self.engine.begin() as db:
            db.execute(TESTS.delete().where(TESTS.c.run_id == run_id, TESTS.c.student == result.student))
            db.execute(STUDENTS.delete().where(STUDENTS.c.run_id == run_id, STUDENTS.c.student == result.student))
            db.execute(
                STUDENTS.insert().values(
                    run_id=run_id,
                    student=result.student,
                    status=str(status),
                    score=result.score,
                    max_score=result.max_score,
                    reason=result.reason,
                )
            )
            if result.tests:
                db.execute(
                    TESTS.insert(),
                    [
                        {
                            "run_id": run_id,
                            "student": result.student,
                            "notebook": t.notebook,
                            "test": t.test,
                            "points": t.points,
                            "max_points": t.max_points,
                            "diagnosis": t.diagnosis,
                            "message": (t.message or "")[:2000] or None,
                        }
                        for t in result.tests
                    ],
                )

    def finish_run(self, run_id: int) -> None:
        with self.engine.begin() as db:
            db.execute(RUNS.update().where(RUNS.c.id == run_id).values(finished=_now()))

    # reading

    def runs(self, assignment: str) -> list[Run]:
        """The assignment's runs, oldest first, each with the number of students it graded."""
        if not self.exists():
            return []
        counts = select(STUDENTS.c.run_id, func.count().label("n")).group_by(STUDENTS.c.run_id).subquery()
        query = (
            select(RUNS, func.coalesce(counts.c.n, 0))
            .outerjoin(counts, counts.c.run_id == RUNS.c.id)
            .where(RUNS.c.assignment == assignment)
            .order_by(RUNS.c.id)
        )
        with self.engine.connect() as db:
            return [
                Run(
                    r.id,
                    r.assignment,
                    r.started,
                    r.finished,
                    r.kit_version,
                    r.inputs_hash,
                    json.loads(r.inputs),
                    int(r[-1]),
                )
                for r in db.execute(query)
            ]

    def run(self, assignment: str, run_id: int) -> Run:
        for found in self.runs(assignment):
            if found.id == run_id:
                return found
        known = ", ".join(str(r.id) for r in self.runs(assignment)) or "none"
        raise HistoryError(f"no run {run_id} of {assignment!r} in {self.db_url} (recorded runs: {known})")

    def grades_as_of(self, assignment: str, run_id: int | None) -> dict[str, Grade]:
        """Every student's grade as the class stood after run ``run_id`` (None: before any run)."""
        if run_id is None or not self.exists():
            return {}
        with self.engine.connect() as db:
            rows = db.execute(
                select(STUDENTS)
                .join(RUNS, RUNS.c.id == STUDENTS.c.run_id)
                .where(RUNS.c.assignment == assignment, STUDENTS.c.run_id <= run_id)
                .order_by(STUDENTS.c.run_id)
            ).all()
            grades = {r.student: Grade(r.student, r.run_id, r.status, r.score, r.max_score, r.reason) for r in rows}
            wanted = {(g.run_id, g.student) for g in grades.values()}
            tests = db.execute(select(TESTS).where(TESTS.c.run_id.in_({g.run_id for g in grades.values()}))).all()
        for t in tests:
            if (t.run_id, t.student) in wanted:
                grades[t.student].tests[(t.notebook, t.test)] = (t.points, t.max_points, t.diagnosis)
        return dict(sorted(grades.items()))


class RunRecorder:
    """One ``grade`` run's record: opened before the first student, closed after the last."""

    def __init__(self, db_url: str, assignment: str, inputs: dict):
        self.history = History(db_url)
        self.assignment = assignment
        self.run_id = self.history.start_run(assignment, inputs, kit_version())
        self.recorded: set[str] = set()

    def record(self, result: StudentResult) -> None:
        if result.status in RECORDED:
            self.history.record(self.run_id, result)
            self.recorded.add(result.student)

    def finish(self, results: list[StudentResult]) -> None:
        """Close the run; a skipped student the history has never seen (graded before it was kept) is
        recorded from the kit's state file, so every graded student has a grade to compare with."""
        known = self.history.grades_as_of(self.assignment, self.run_id)
        for result in results:
            if result.status is Status.SKIPPED and result.student not in known:
                self.history.record(self.run_id, result)
                self.recorded.add(result.student)
        self.history.finish_run(self.run_id)
        self.history.engine.dispose()
