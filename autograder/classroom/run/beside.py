"""The first students graded beside the canary, and recorded only once it passed (issue 45).

On a course whose canary must be graded (never graded, or the kit or the course changed), ``grade`` grades the
reference (:mod:`autograder.grading.canary`) in a process of its own while the run's workers grade the first
students: one each, and only students nothing was recorded of before (:func:`untouched`: no gradebook submission
of the assignment, no autograded or feedback folder, no staged copy, no state or verdict record), so that what
their grading writes can be taken back exactly.  Nothing of them is recorded (no state file, no run history, no
line of progress, no export) until the canary passed; if it fails, :func:`undo` removes exactly what their grading
wrote: their gradebook submission (and their student row, when the gradebook had none), the folders it made,
the kit's records of them; nothing else.

It is on by default; a course turns it off with ``c.KitConfig.canary_beside = False`` (then the canary is graded
before any student).  The run's watch of silent workers goes on while the canary is undecided (a thread of its own,
:meth:`~autograder.classroom.run.batch.LocalPool.watching`), so a gradebook another program holds locked meanwhile is
found as it is without the canary beside (tests/test_faults.py's lock case).
"""

from __future__ import annotations

import os
import shutil
import threading
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from ...course import Assignment


@dataclass
class Untouched:
    """What was not there before a student's grading began: what :func:`undo` removes."""

    student: str
    in_gradebook: bool  # the student's row was in the gradebook (then only their submission is removed)
    absent: list[Path] = field(default_factory=list)  # folders and files the grading may make, none there before


def _written_by_grading(assignment: Assignment, student: str) -> list[Path]:
    """Every folder and file a student's grading writes, as the course lays them out."""
    return [
        assignment.staged(student),
        assignment.autograded(student),
        assignment.feedback(student),
        assignment.state_file(student),
        assignment.verdict_record(student),
        assignment.in_flight_note(student),
    ]


def untouched(assignment: Assignment, students: list[str], db_url: str) -> dict[str, Untouched]:
    """The ``students`` nothing was recorded of: no gradebook submission of the assignment, none of the folders
    and records a grading writes.  For each, the folders above those paths that are not there either (the grading
    makes them: ``autograded/<student>``, ``autograded/`` on a new course), so that undo removes them too."""
    from nbgrader.api import Gradebook, MissingEntry

    root = assignment.course.root
    candidates = {}
    for student in students:
        paths = _written_by_grading(assignment, student)
        if any(os.path.lexists(p) for p in paths):
            continue
        absent: set[Path] = set()
        for path in paths:
            absent.add(path)
            for parent in path.parents:
                if parent == root or not parent.is_relative_to(root) or parent.exists():
                    break
                absent.add(parent)
        candidates[student] = sorted(absent, key=lambda p: len(p.parts), reverse=True)  # deepest first
    if not candidates:
        return {}
    with Gradebook(db_url) as gb:
        try:
            submitted = {s.student.id for s in gb.find_assignment(assignment.name).submissions}
        except MissingEntry:
            submitted = set()
        known = {s.id for s in gb.students}
    return {
        student: Untouched(student, student in known, absent)
        for student, absent in candidates.items()
        if student not in submitted
    }


def undo(assignment: Assignment, db_url: str, before: Untouched) -> None:
    """Remove exactly what a grading of ``before.student`` wrote on top of ``before``: their submission of the
    assignment in the gradebook (and their student row, if the gradebook had none), the files and folders that
    were not there (a folder above them only when it is empty: another student's grading may share it)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        with suppress(MissingEntry):
            gb.remove_submission(assignment.name, before.student)
        if not before.in_gradebook:
            with suppress(MissingEntry):
                if not gb.find_student(before.student).submissions:
                    gb.remove_student(before.student)
    own = set(_written_by_grading(assignment, before.student))
    for path in before.absent:  # deepest first
        if path in own:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with suppress(FileNotFoundError):
                    path.unlink()
        else:
            with suppress(OSError):  # not there, or holding what another grading wrote
                path.rmdir()


class Gate:
    """The canary, graded in a thread of the command (the reference itself in a process of its own), that the
    class's recording waits on.  ``beside``: the students that may be graded before it is decided (one per worker),
    with what was there before each; ``started``: those handed out before it was decided."""

    def __init__(self, run, beside: dict[str, Untouched], then=None):
        self.beside, self.then = beside, then
        self.started: list[str] = []
        self.released = False  # it passed, and what came next too: from here on the students are recorded
        self.future: Future = Future()

        def canary() -> None:
            try:
                self.future.set_result(run())
            except BaseException as e:  # noqa: BLE001 - the canary's failure, or the kit's, is the gate's outcome
                self.future.set_exception(e)

        threading.Thread(target=canary, name="canary", daemon=True).start()

    def passed(self) -> None:
        """(The canary passed) ``then()``, what must be done before a student is recorded (the run's history
        opened); from here on the students are recorded."""
        self.future.result()
        if self.then is not None:
            self.then()
        self.released = True

    def decided(self) -> bool:
        return self.future.done()

    def may_start(self, student: str, workers: int) -> bool:
        """Whether ``student`` may be graded while the canary is undecided: untouched before, and a worker of the
        ``workers`` has had none yet."""
        return student in self.beside and student not in self.started and len(self.started) < workers

    def undo_started(self, assignment: Assignment, db_url: str) -> list[str]:
        """Take back the grading of every student started before the canary was decided; who they were."""
        for student in self.started:
            undo(assignment, db_url, self.beside[student])
        return list(self.started)
