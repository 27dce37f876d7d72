"""The run's first worker process, started as ``grade`` starts: forked from multiprocessing's fork server once that
has imported the grading (``retries.worker_context``; :func:`warm_up` imports whatever it did not), while the
command itself imports, checks the course and reads the gradebook, instead of after.  It is the first process of
the run's pool (:func:`take`), which grades the canary's reference, then the class, as before.

This module imports only the standard library and the kit's light modules: ``grade`` imports it before the rest.
"""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import suppress
from pathlib import Path

from ... import timing
from .retries import dask_configured, worker_pids, worker_pool

_early: dict[int, ProcessPoolExecutor] = {}  # jobs -> the pool started for them, until the run takes it
_started: dict[int, set[int]] = {}  # jobs -> the process ids of that pool's workers started here
_starting: threading.Thread | None = None  # starting the pools' first workers (:func:`start`)
CANARY = 0  # the key in _early and _started of the canary's own process (:mod:`.beside`)
CACHE_ENV = "AUTOGRADER_CANARY_CACHE"  # autograder.grading.canary's (not imported here: it imports nbgrader)


def start(
    root: Path,
    *,
    jobs: int | None,
    notebook_budget: float | None,
    cell_timeout: int | None,
    assignment: str | None = None,
    students: list[str] | None = None,
) -> None:
    """Start the pool of the run ``grade`` is about to make for the course at ``root``
    (its jobs as the run will count them: the course's config and the flags), its first worker warming up.
    Nothing is started when the run may not be local (a Dask scheduler configured) or the folder has no course
    config that reads (the run says what is wrong)."""
    if dask_configured():
        return
    from ...config import CONFIG_FILE, grading_options, read_course_config

    root = Path(root).resolve()
    try:
        if not (root / CONFIG_FILE).is_file():
            return
        grading = grading_options(
            read_course_config(root), jobs=jobs, notebook_budget=notebook_budget, cell_timeout=cell_timeout
        )
    except Exception:  # noqa: BLE001 - the run itself reports a broken course
        return
    workers = max(1, grading.jobs)
    pools = {workers: worker_pool(workers)}
    count = len(students) if students else _submissions(root, assignment)
    if grading.canary_beside and count <= workers and not _canary_remembered(root):
        pools[CANARY] = worker_pool(1)  # a new course: its canary graded beside the students
    _early.update(pools)
    # the first worker of each pool is started in a thread of its own: a worker is forked once the fork server has
    # imported the grading (retries.worker_context), which the command does not wait for while it imports its own
    global _starting
    _starting = threading.Thread(target=_start_pools, args=(pools,), name="the first workers", daemon=True)
    _starting.start()


def _start_pools(pools: dict[int, ProcessPoolExecutor]) -> None:
    for key, pool in pools.items():
        before = worker_pids()
        with suppress(Exception):  # only a head start: the run's own use of the pool meets and reports a failure
            pool.submit(warm_up)  # starts the pool's first worker
        _started[key] = worker_pids() - before


def _started_pools() -> None:
    """Wait until the first workers are started (or failed to), so that their pools are the run's to use."""
    global _starting
    if _starting is not None:
        _starting.join()
        _starting = None


def _submissions(root: Path, assignment: str | None) -> int:
    """How many students handed ``assignment`` in, as nbgrader's default layout has them (0 if another)."""
    try:
        return sum(1 for folder in (root / "submitted").iterdir() if (folder / str(assignment)).is_dir())
    except OSError:
        return 0


def _canary_remembered(root: Path) -> bool:
    """Whether any canary passed before where this course's are remembered (then the run may not grade one: its
    process is started when it does)."""
    folder = Path(os.environ.get(CACHE_ENV) or root / ".kit" / "canary")
    try:
        return any(folder.iterdir())
    except OSError:
        return False


def take(jobs: int) -> ProcessPoolExecutor | None:
    """The pool started for ``jobs`` workers, if one was (then it is the caller's to shut down)."""
    _started_pools()
    _started.pop(max(1, jobs), None)
    return _early.pop(max(1, jobs), None)


def take_canary() -> ProcessPoolExecutor | None:
    """The canary's own process, if it was started (then it is the caller's to shut down)."""
    _started_pools()
    _started.pop(CANARY, None)
    return _early.pop(CANARY, None)


def discard() -> None:
    """End the pools no run took (the run stopped before grading): their workers are killed, not left to warm up,
    and each pool's own thread is waited for.  (That thread closes its wake-up pipe as it ends; Python's exit
    writes to the same pipe without a lock, so a thread still ending then made ``grade`` of an unknown assignment
    exit 1 with a "Bad file descriptor" traceback, about one run in twenty on a loaded machine.)"""
    _started_pools()
    while _early:
        jobs, pool = _early.popitem()
        for pid in _started.pop(jobs, set()):
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        pool.shutdown(wait=True, cancel_futures=True)


def warm_up() -> None:
    """(In the worker) import what grading a student imports; a failure here is left for the grading itself to
    meet and report."""
    timing.started("worker start-up, imports")
    with timing.phase("worker warm-up, the grading imported"):
        try:
            from ...grading import canary, grade  # noqa: F401 - what the canary and the students' grading import
            from . import batch  # noqa: F401
        except Exception:  # noqa: BLE001, S110 - only a head start
            pass
