"""The canary: before a class is graded, the course's own reference solution is graded the same way.

A fault on the kit's side (a kernel that cannot import the kit's public package, a broken mount, a
kernelspec that does not start, a package missing in the kernel) fails every test of every student
alike, and would be recorded as their scores.  So every grader (``grade`` on local processes or Dask,
the Gradescope runner, ``check --thorough``) first grades the reference notebooks (the source
notebooks' solutions, filled into the student copy; ``grade`` those of the notebooks its submissions
hold, ``check --thorough`` the student's one) through ``grade_student`` in a process of its own
(``grade``'s: one of the run's own workers, before it grades the class), in a scratch course: the same
sandbox, limits, channel and checks.  Its gradebook is a copy of the run's own SQLite gradebook, where
the assignment is registered as the students are graded, or (no such copy: PostgreSQL, ``check
--thorough``) a new one it registers the assignment in.  If that is not full marks, :class:`CanaryFailed`
says why in one line, and nobody's grade is touched.

A passing canary is remembered under the course's ``.kit/canary/``, keyed by a hash of what could
change its outcome (the kit's package files and where they were imported from, the Python that runs
them and the packages installed for it, the source notebooks, the course's configuration and the
grading options), so a repeated run of an unchanged course skips it.  ``AUTOGRADER_CANARY_CACHE``
names another folder to remember them in, shared by courses (the kit's test suite grades many
identical scratch courses).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import sqlite3
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import asdict, replace
from pathlib import Path

import nbformat

from .. import timing
from ..cells import grade_id, solution_sources
from ..config import CONFIG_FILE, GradingOptions
from ..course import Assignment, Course, sqlite_file, sqlite_url
from ..sandbox import PACKAGE_DIR
from ..scratch import temporary_folder
from .faults import KitFault
from .results import Status, StudentResult

CANARY = "kit-canary"  # the student id the reference is graded as, in the canary's own gradebook


class CanaryFailed(KitFault):
    """The reference solution did not score full marks: the kit, not the students, is at fault."""


CACHE_ENV = "AUTOGRADER_CANARY_CACHE"


def cache_folder(course: Course) -> Path:
    return Path(os.environ.get(CACHE_ENV) or course.canary_records)


def fingerprint(assignment: Assignment, notebooks: list[str] | None, options: dict) -> str:
    """A hash of everything a canary's outcome depends on."""
    digest = hashlib.sha256(str(PACKAGE_DIR).encode() + b"\0")
    course_dir = assignment.root
    files = sorted(PACKAGE_DIR.rglob("*.py")) + [course_dir / CONFIG_FILE]
    files += [p for p in assignment.source_notebooks() if notebooks is None or p.stem in notebooks]
    digest_files(digest, files, course_dir)
    inputs = [sys.executable, sys.prefix, installed_distributions(), options]
    digest.update(json.dumps(inputs, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def installed_distributions() -> list[str]:
    """The packages installed for this Python, as the names of their metadata folders on ``sys.path``
    (``numpy-2.1.0.dist-info``: name and version), where importlib.metadata finds them: a package installed,
    removed or changed in version changes the list.  Listing the folders costs a millisecond; reading every
    package's METADATA, as ``importlib.metadata.distributions()`` does, half a second on a cold disk."""
    names = []
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                names += [f"{entry}/{e.name}" for e in found if e.name.endswith((".dist-info", ".egg-info"))]
        except OSError:  # not a folder (a zip), or gone
            continue
    return sorted(names)


def digest_files(digest, files: list[Path], root: Path) -> None:
    """Into ``digest``, each file's name (within the kit's package, else within ``root``) and the hash of its
    bytes, ``-`` for a file that is not there."""
    for path in files:
        name = path.relative_to(PACKAGE_DIR if path.is_relative_to(PACKAGE_DIR) else root)
        digest.update(str(name).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest() if path.exists() else b"-")


def reference_submission(scratch: Assignment, notebooks: list[Path]) -> None:
    """The student copy that registering the assignment made in the ``scratch`` course, solved by the source
    notebooks."""
    target = scratch.submitted(CANARY)
    target.mkdir(parents=True, exist_ok=True)
    for source in notebooks:
        answers = solution_sources(nbformat.read(str(source), as_version=4))
        release = nbformat.read(str(scratch.registered_release / source.name), as_version=4)
        for cell in release.cells:
            if grade_id(cell) in answers:
                cell.source = answers[grade_id(cell)]
        nbformat.write(release, str(target / source.name))


def run_gradebook_copy(
    assignment: Assignment, gradebook: str | None, scratch: Assignment, sources: list[Path]
) -> str | None:
    """The run's own SQLite gradebook (``gradebook``, where the assignment is registered as its students are graded),
    copied into the ``scratch`` course with the student copy its registration wrote: what grades the reference
    instead of a new gradebook and a second registration (an nbgrader process of its own).  None when it cannot
    stand in: no gradebook given, not SQLite, not there, or a student copy missing or older than its source."""
    path = sqlite_file(gradebook) if gradebook else None
    release = assignment.registered_release
    if path is None or not path.is_file():
        return None
    for source in sources:
        copy = release / source.name
        if not copy.is_file() or copy.stat().st_mtime < source.stat().st_mtime:
            return None
    target = scratch.course.gradebook
    try:
        with closing(sqlite3.connect(path)) as db, closing(sqlite3.connect(target)) as copy:
            db.backup(copy)  # a consistent copy, whatever the file's journal holds
    except sqlite3.Error:
        target.unlink(missing_ok=True)
        return None  # a gradebook of its own, then
    shutil.copytree(release, scratch.registered_release)
    return sqlite_url(target)


def grade_reference_here(
    assignment: Assignment,
    notebooks: list[str] | None,
    options: GradingOptions,
    gradebook: str | None = None,
    registered: tuple[Assignment, str] | None = None,
) -> StudentResult:
    """Grade the reference in this process: in ``registered`` (a scratch course already registered, and its
    gradebook's URL), or in a scratch copy of the course (config and source notebooks only) against a copy of
    ``gradebook`` (:func:`run_gradebook_copy`) or, without one, a gradebook of its own."""
    from .grade import grade_student

    timing.started("worker start-up, imports")
    sources = [p for p in assignment.source_notebooks() if notebooks is None or p.stem in notebooks]
    with temporary_folder("canary") as folder:
        if registered is None:
            with timing.phase("canary, its scratch course"):
                root = Path(folder) / "course"
                root.mkdir()
                shutil.copy(assignment.root / CONFIG_FILE, root / CONFIG_FILE)
                scratch = assignment.in_course(root)  # laid out as the course's own config says
                scratch.source.mkdir(parents=True)
                for path in sources:
                    shutil.copy(path, scratch.source / path.name)
                db_url = run_gradebook_copy(assignment, gradebook, scratch, sources)
                if db_url is None:
                    db_url = sqlite_url(scratch.course.gradebook)
                    scratch.register(db_url)
                reference_submission(scratch, sources)
        else:  # its reference written by the caller (grade_reference)
            scratch, db_url = registered
        return grade_student(scratch, CANARY, db_url, replace(options, feedback=False))


def grade_reference(
    assignment: Assignment,
    notebooks: list[str] | None,
    options: GradingOptions,
    registered: tuple[Assignment, str] | None = None,
    meanwhile=None,
    *,
    gradebook: str | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> tuple[StudentResult, object]:
    """Grade the reference (:func:`grade_reference_here`) in a process of its own, as a worker grades a student:
    whatever the grading leaves behind goes with it.  ``pool``: the run's own worker processes, which grade the
    class after it (one process started and one nbgrader imported fewer); by default a process started for it.
    ``meanwhile()`` runs here while the reference is graded.  (The reference's result, what ``meanwhile``
    returned.)"""

    if registered is not None:  # in place before ``meanwhile`` runs
        sources = [p for p in assignment.source_notebooks() if notebooks is None or p.stem in notebooks]
        reference_submission(registered[0], sources)

    def graded_in(pool):
        graded = pool.submit(grade_reference_here, assignment, notebooks, options, gradebook, registered)
        done = meanwhile() if meanwhile is not None else None
        return graded.result(), done

    if pool is not None:
        return graded_in(pool)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as own:
        return graded_in(own)


def of_notebooks(result: StudentResult, notebooks: list[str] | None) -> StudentResult:
    """The reference's result on ``notebooks`` alone: the run's gradebook a canary grades in a copy of knows every
    notebook of the assignment, and those it was not asked to grade are not graded there (nor its to pass)."""
    if notebooks is None or result.status is not Status.GRADED:
        return result
    tests = [t for t in result.tests if t.notebook in notebooks]
    return replace(result, tests=tests, score=sum(t.points for t in tests), max_score=sum(t.max_points for t in tests))


def cause(result: StudentResult) -> str:
    """One line: why the reference lost points, and what to do."""
    if result.status is not Status.GRADED:
        return (
            f"the reference solution could not be graded ({result.reason or result.status}); fix that first: "
            "every student's grading would fail the same way"
        )
    lost = [t for t in result.tests if t.points < t.max_points]
    text = " ".join(f"{t.diagnosis} {t.message}" for t in lost)
    where = f"this grading process imported the kit's `autograder` from {PACKAGE_DIR}, with {sys.executable}"
    if "No module named" in text and "autograder" in text:
        return (
            f"the grading kernel cannot import the kit's public package `autograder` ({where}, but the kernel "
            "does not find it there). Grade with the Python environment the kit was installed into for this "
            "course (its own `.venv/bin/python -m autograder`), or install it into this one with "
            "`pip install -e` on the course's folder"
        )
    if "ModuleNotFoundError" in text or "ImportError" in text:
        first = next(t for t in lost if "Error" in f"{t.diagnosis}{t.message}")
        return (
            f"the grading kernel cannot import what the notebooks need ({first.notebook}/{first.test}: "
            f"{first.message}); install it into the kernel's Python environment ({sys.prefix})"
        )
    first = lost[0] if lost else None
    detail = f"; first: {first.notebook}/{first.test} [{first.diagnosis}] {first.message}" if first else ""
    return (
        f"the reference solution scored {result.score:g}/{result.max_score:g}, not full marks ({len(lost)} test(s) "
        f"lost points{detail}); {where}. Fix the kit or the course before grading students"
    )


def passed_before(record: Path) -> bool:
    """Whether the canary's record is there; a cache this user may not read (another user's folder, say) is
    no record, so the reference is graded again rather than the run failing."""
    try:
        return record.exists()
    except OSError:
        return False


def run_canary(
    assignment: Assignment,
    options: GradingOptions,
    *,
    notebooks: list[str] | None = None,
    cache_root: Path | None = None,
    out=print,
    registered: tuple[Assignment, str] | None = None,
    meanwhile=None,
    gradebook: str | None = None,
    pool: ProcessPoolExecutor | None = None,
    then: str = "grading the class",
):
    """Grade the course's reference solution; raise CanaryFailed (one line: the cause and what to do) unless it
    scores full marks.  Skipped when nothing it depends on changed since it last passed here (under
    ``cache_root``'s ``.kit/canary``, by default the course's).

    ``registered``: a scratch course of the course's config and source notebooks, already registered, and its
    gradebook's URL, to grade the reference in (``check --thorough``'s own) instead of making another.
    ``meanwhile``: work to do while the reference is graded (``check --thorough`` grades the student's
    notebook); its value is returned once the canary passed, and thrown away when it fails.
    ``gradebook``: the run's, where the assignment is registered, copied for the reference when it is SQLite;
    ``pool``: the run's worker processes, one of which grades the reference (:func:`grade_reference`).
    ``then``: what the line of a pass says comes next, in the words of whoever reads it."""
    # the run's options, but for how many students at once and whether feedback is written
    with timing.phase("canary, its fingerprint"):
        key = fingerprint(assignment, notebooks, asdict(replace(options, jobs=0, feedback=False)))
    record = assignment.canary_record(key, cache_folder(Course(cache_root) if cache_root else assignment.course))
    if passed_before(record):
        out("canary: the reference solution passed with this kit and course before; not graded again")
        return meanwhile() if meanwhile is not None else None
    meanwhile = _kept_apart(meanwhile) if meanwhile is not None else None
    try:
        result, done = grade_reference(
            assignment, notebooks, options, registered, meanwhile, gradebook=gradebook, pool=pool
        )
    except BrokenProcessPool:
        raise CanaryFailed(
            "the process grading the reference solution died (killed, or out of memory); "
            "no student was graded. Look at the machine's memory and the kernel's log"
        ) from None
    except (OSError, RuntimeError) as e:
        raise CanaryFailed(f"the reference solution could not be graded: {str(e).splitlines()[0][:300]}") from None
    result = of_notebooks(result, notebooks)
    if result.status is not Status.GRADED or result.max_score <= 0 or result.score < result.max_score:
        raise CanaryFailed(cause(result))
    out(
        f"canary: the reference solution scored {result.score:g}/{result.max_score:g} in {result.seconds:.1f}s "
        f"through the same grading; {then}"
    )
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(f"{result.score:g}/{result.max_score:g} in {result.seconds:.1f}s\n")
    except OSError:
        pass  # no record: the next run grades the reference again
    if isinstance(done, _Raised):
        raise done.error
    return done


class _Raised:
    def __init__(self, error: Exception):
        self.error = error


def _kept_apart(meanwhile):
    """``meanwhile``, with what it raises returned instead: its error is its own, never the canary's, and is
    raised only once the canary passed."""

    def run():
        try:
            return meanwhile()
        except Exception as e:  # noqa: BLE001 - raised again by run_canary
            return _Raised(e)

    return run
