"""The run's first worker process, started as ``grade`` starts: a fresh Python (spawned) that imports the grading
(:func:`warm_up`) while the command itself imports, checks the course and reads the gradebook, instead of
after.  It is the first process of the run's pool (:func:`take`), which
grades the canary's reference, then the class, as before.

This module imports only the standard library and the kit's light modules: ``grade`` imports it before the rest.
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import ProcessPoolExecutor
from contextlib import suppress
from pathlib import Path

from ... import timing
from .retries import worker_pids, worker_pool

_early: dict[int, ProcessPoolExecutor] = {}  # jobs -> the pool started for them, until the run takes it
_started: dict[int, set[int]] = {}  # jobs -> the process ids of that pool's workers started here


def start(root: Path, *, jobs: int | None, notebook_budget: float | None, cell_timeout: int | None) -> None:
    """Start the pool of the run ``grade`` is about to make for the course at ``root``
    (its jobs as the run will count them: the course's config and the flags), its first worker warming up.
    Nothing is started when the run may not be local (a Dask scheduler configured) or the folder has no course
    config that reads (the run says what is wrong)."""
    if any(k.startswith("DASK_") for k in os.environ) or Path("~/.config/dask").expanduser().exists():
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
    pool = worker_pool(workers)
    before = worker_pids()
    pool.submit(warm_up)  # starts the pool's first worker
    _early[workers] = pool
    _started[workers] = worker_pids() - before


def take(jobs: int) -> ProcessPoolExecutor | None:
    """The pool started for ``jobs`` workers, if one was (then it is the caller's to shut down)."""
    _started.pop(max(1, jobs), None)
    return _early.pop(max(1, jobs), None)


def discard() -> None:
    """End the pools no run took (the run stopped before grading): their workers are killed, not waited for."""
    while _early:
        jobs, pool = _early.popitem()
        for pid in _started.pop(jobs, set()):
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        pool.shutdown(wait=False, cancel_futures=True)


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
