"""Bulk grading: every submission of an assignment, in worker processes, resumable and idempotent.

The unit of work is :func:`autograder.grading.grade.grade_student` (course directory + student + gradebook
URL), so the pool here can be swapped for any engine that runs Python functions in processes.
A finished student leaves a small state file under ``.kit/<assignment>/`` holding the fingerprint of
the submission it graded and the result; a later run skips students whose submission is unchanged,
and a run that was killed simply regrades whoever has no state file yet.  nbgrader's autograde
replaces a student's earlier grades, so regrading never duplicates them.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from ..config import GradingOptions, grading_options
from ..course import Course
from ..grading.grade import grade_student
from ..grading.results import Status, StudentResult
from .progress import Progress


class GradingError(Exception):
    """Grading cannot start at all (bad course directory, unknown assignment, unusable gradebook)."""


def fingerprint(folder: Path) -> str:
    """A hash of every file of a submission folder: names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def load_state(course: Course, assignment: str, student: str) -> dict | None:
    try:
        return json.loads(course.state_file(assignment, student).read_text())
    except (OSError, ValueError):
        return None


def save_state(course: Course, assignment: str, result: StudentResult, digest: str) -> None:
    folder = course.state_folder(assignment)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{result.student}.json.tmp"
    tmp.write_text(json.dumps({"fingerprint": digest, "result": result.to_dict()}, indent=1))
    os.replace(tmp, course.state_file(assignment, result.student))  # atomic: a killed run leaves no half state


def submissions(course_dir: Path, assignment: str, only: list[str] | None = None) -> dict[str, Path]:
    course = Course(course_dir)
    root = course.step_root("submitted")
    found = course.student_folders("submitted", assignment)
    if only:
        missing = [s for s in only if s not in found]
        if missing:
            raise GradingError(f"no submission of {assignment!r} under {root} for: {', '.join(missing)}")
        found = {s: found[s] for s in only}
    return found


@dataclass
class BatchOptions:
    """One grading run's command-line choices; None is the course's own (its nbgrader_config.py)."""

    jobs: int | None = None
    force: bool = False
    notebook_budget: float | None = None
    cell_timeout: int | None = None
    feedback: bool = True
    scheduler: str | None = None  # a Dask scheduler's address: grade there instead of in local processes

    def grading(self, config) -> GradingOptions:
        """What every grader of the run is handed: the course's options (``config``: its nbgrader config)
        with these flags written over them."""
        return grading_options(config, jobs=self.jobs, notebook_budget=self.notebook_budget,
                               cell_timeout=self.cell_timeout, feedback=self.feedback)


@dataclass
class BatchOutcome:
    results: list[StudentResult] = field(default_factory=list)
    graded: int = 0
    skipped: int = 0
    failed: int = 0
    seconds: float = 0.0


def _grade_on_dask(course: Course, assignment: str, db_url: str, todo: dict[str, str], options: BatchOptions,
                   grading: GradingOptions, progress: Progress, done: dict[str, StudentResult],
                   on_graded=None) -> None:
    """The same batch on a Dask cluster (see :mod:`.dask_pool`); state files are written here, as results arrive."""
    from .dask_pool import ClusterError, grade_on_cluster

    def on_result(student: str, result: StudentResult, final: bool) -> None:
        if final:
            if on_graded:
                on_graded(result)
            save_state(course, assignment, result, todo[student])
        done[student] = result
        progress.advance(result)

    try:
        grade_on_cluster(options.scheduler, course.root, assignment, db_url, list(todo), grading,
                         on_result=on_result, out=lambda line: print(line, flush=True))
    except ClusterError as e:
        raise GradingError(str(e)) from None


def grade_all(course_dir: Path, assignment: str, db_url: str, students: dict[str, Path], options: BatchOptions,
              progress: Progress | None = None, grading: GradingOptions | None = None,
              on_graded=None) -> BatchOutcome:
    """Grade ``students`` (id -> submission folder); results come back in student order.  ``grading``:
    the run's options, by default ``options.grading`` of the course's config.

    ``on_graded(result)`` sees each student's final result before their state file is written (the run
    history records it there), so a student the state calls graded was always recorded."""
    start = time.monotonic()
    course = Course(course_dir)
    grading = grading or options.grading(course.config)
    outcome = BatchOutcome()
    done: dict[str, StudentResult] = {}
    todo: dict[str, str] = {}
    for student, folder in students.items():
        digest = fingerprint(folder)
        state = load_state(course, assignment, student)
        if not options.force and state and state.get("fingerprint") == digest:
            result = StudentResult.from_dict(state["result"])
            result.status = Status.SKIPPED if result.status is Status.GRADED else result.status
            done[student] = result
            outcome.skipped += 1
        else:
            todo[student] = digest
    progress = progress or Progress(total=len(todo), quiet=True)
    progress.start(len(todo), skipped=outcome.skipped)

    pending = list(todo)
    if options.scheduler:
        _grade_on_dask(course, assignment, db_url, todo, options, grading, progress, done, on_graded)
        pending = []
    ctx = multiprocessing.get_context("spawn")
    while pending:
        try:
            with ProcessPoolExecutor(max_workers=max(1, min(grading.jobs, len(pending))), mp_context=ctx) as pool:
                futures = {pool.submit(grade_student, course_dir, assignment, s, db_url, grading): s for s in pending}
                while futures:
                    finished, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in finished:
                        student = futures.pop(future)
                        try:
                            result = future.result()
                        except BrokenProcessPool:
                            raise
                        except Exception as e:  # noqa: BLE001 - the batch goes on; the reason is recorded
                            result = StudentResult(student, Status.FAILED, f"grading crashed: {type(e).__name__}: {e}")
                        if on_graded:
                            on_graded(result)
                        save_state(course, assignment, result, todo[student])
                        done[student] = result
                        pending.remove(student)
                        progress.advance(result)
        except BrokenProcessPool:
            # a worker process died (e.g. killed by the OS); record the students it had and go on
            for student in list(pending):
                if student in done:
                    continue
                result = StudentResult(student, Status.FAILED, "the grading worker process died")
                done[student] = result
            pending = [s for s in pending if s not in done]
    progress.finish()
    outcome.results = [done[s] for s in students]
    outcome.graded = sum(r.status is Status.GRADED for r in outcome.results)
    outcome.failed = sum(r.status is Status.FAILED for r in outcome.results)
    outcome.seconds = time.monotonic() - start
    return outcome
