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

from ..grading.grade import DEFAULT_CELL_TIMEOUT, DEFAULT_NOTEBOOK_BUDGET, grade_student
from .progress import Progress
from ..grading.results import StudentResult


class GradingError(Exception):
    """Grading cannot start at all (bad course directory, unknown assignment, unusable gradebook)."""


def fingerprint(folder: Path) -> str:
    """A hash of every file of a submission folder: names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def state_dir(course_dir: Path, assignment: str) -> Path:
    return Path(course_dir) / ".kit" / assignment


def load_state(course_dir: Path, assignment: str, student: str) -> dict | None:
    path = state_dir(course_dir, assignment) / f"{student}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def save_state(course_dir: Path, assignment: str, result: StudentResult, digest: str) -> None:
    folder = state_dir(course_dir, assignment)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{result.student}.json.tmp"
    tmp.write_text(json.dumps({"fingerprint": digest, "result": result.to_dict()}, indent=1))
    os.replace(tmp, folder / f"{result.student}.json")  # atomic: a killed run leaves no half state


def submissions(course_dir: Path, assignment: str, only: list[str] | None = None) -> dict[str, Path]:
    root = Path(course_dir) / "submitted"
    found = {p.parent.name: p for p in sorted(root.glob(f"*/{assignment}")) if p.is_dir()}
    if only:
        missing = [s for s in only if s not in found]
        if missing:
            raise GradingError(f"no submission of {assignment!r} under {root} for: {', '.join(missing)}")
        found = {s: found[s] for s in only}
    return found


@dataclass
class BatchOptions:
    jobs: int = os.cpu_count() or 1
    force: bool = False
    notebook_budget: float = DEFAULT_NOTEBOOK_BUDGET
    cell_timeout: int = DEFAULT_CELL_TIMEOUT
    feedback: bool = True


@dataclass
class BatchOutcome:
    results: list[StudentResult] = field(default_factory=list)
    graded: int = 0
    skipped: int = 0
    failed: int = 0
    seconds: float = 0.0


def grade_all(course_dir: Path, assignment: str, db_url: str, students: dict[str, Path], options: BatchOptions,
              progress: Progress | None = None) -> BatchOutcome:
    """Grade ``students`` (id -> submission folder); results come back in student order."""
    start = time.monotonic()
    outcome = BatchOutcome()
    done: dict[str, StudentResult] = {}
    todo: dict[str, str] = {}
    for student, folder in students.items():
        digest = fingerprint(folder)
        state = load_state(course_dir, assignment, student)
        if not options.force and state and state.get("fingerprint") == digest:
            result = StudentResult.from_dict(state["result"])
            result.status = "skipped" if result.status == "graded" else result.status
            done[student] = result
            outcome.skipped += 1
        else:
            todo[student] = digest
    progress = progress or Progress(total=len(todo), quiet=True)
    progress.start(len(todo), skipped=outcome.skipped)

    pending = list(todo)
    ctx = multiprocessing.get_context("spawn")
    while pending:
        try:
            with ProcessPoolExecutor(max_workers=max(1, min(options.jobs, len(pending))), mp_context=ctx) as pool:
                futures = {pool.submit(grade_student, course_dir, assignment, s, db_url,
                                       notebook_budget=options.notebook_budget, cell_timeout=options.cell_timeout,
                                       feedback=options.feedback): s for s in pending}
                while futures:
                    finished, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in finished:
                        student = futures.pop(future)
                        try:
                            result = future.result()
                        except BrokenProcessPool:
                            raise
                        except Exception as e:  # noqa: BLE001 - the batch goes on; the reason is recorded
                            result = StudentResult(student, "failed", f"grading crashed: {type(e).__name__}: {e}")
                        save_state(course_dir, assignment, result, todo[student])
                        done[student] = result
                        pending.remove(student)
                        progress.advance(result)
        except BrokenProcessPool:
            # a worker process died (e.g. killed by the OS); record the students it had and go on
            for student in list(pending):
                if student in done:
                    continue
                result = StudentResult(student, "failed", "the grading worker process died")
                done[student] = result
            pending = [s for s in pending if s not in done]
    progress.finish()
    outcome.results = [done[s] for s in students]
    outcome.graded = sum(r.status == "graded" for r in outcome.results)
    outcome.failed = sum(r.status == "failed" for r in outcome.results)
    outcome.seconds = time.monotonic() - start
    return outcome
