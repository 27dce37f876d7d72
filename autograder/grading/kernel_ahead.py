"""The next notebook's kernel, started while the current one starts and runs.

A sandboxed kernel takes a moment to come up (bubblewrap builds its sandbox, the kernel is forked into
it and starts ipykernel: about 0.15 s of wall time; most of a second when it is started anew), while
the grading process waits.  nbgrader grades a student's notebooks one after another, from one folder
(the staged submission, every kernel's working folder), so once the executor has launched the kernel of one
notebook it launches, in a sandbox of its own, the kernel the next notebook of that folder will
run in: the two start side by side, and the next notebook finds its kernel up.

Nothing is shared: each kernel is a fresh process in a fresh sandbox with its own limits, its own
checker channel and its own copy of the submission's files (which nbgrader has put in place before
the first notebook runs), and runs exactly one notebook.  A kernel started ahead is only ever handed
to a notebook of the same folder, kernel and grading settings; one that nothing takes (the next
notebook was skipped, the process moves on) is stopped.
"""

from __future__ import annotations

import atexit
import json
import threading
from dataclasses import dataclass
from pathlib import Path

from jupyter_core.utils import run_sync

from .checker import Checker


@dataclass(frozen=True, eq=False)  # each one is itself: a set holds it by identity
class KernelAhead:
    key: tuple
    km: object  # a started kernel manager (the executor's class), not yet connected to
    checker: Checker | None  # the channel whose socket the kernel was told at start, if checks run outside


_local = threading.local()  # one kernel ahead per grading thread
_pending: set[KernelAhead] = set()  # every kernel ahead not yet taken, to stop at exit
_lock = threading.Lock()


def ahead_key(folder: str, kernel_name: str, config) -> tuple:
    """What a kernel started ahead must match to be used: the working folder, the kernel, the settings."""
    return str(Path(folder).resolve()), kernel_name, json.dumps(config, sort_keys=True, default=repr)


def has_later_notebook(folder: str, notebook: str) -> bool:
    """Whether nbgrader will run another notebook of ``folder`` (the submission it grades) after ``notebook``
    (it runs them in name order)."""
    try:
        return any(path.stem > notebook for path in Path(folder).glob("*.ipynb"))
    except OSError:
        return False


def keep(ahead: KernelAhead) -> None:
    """Hold ``ahead`` for the next notebook of this thread (stopping one held before, if any)."""
    previous = getattr(_local, "ahead", None)
    _local.ahead = ahead
    with _lock:
        _pending.add(ahead)
    if previous is not None:
        stop(previous)


def take(key: tuple) -> KernelAhead | None:
    """The kernel started ahead for ``key``, alive and never used; None (and any other one stopped) if none."""
    ahead = getattr(_local, "ahead", None)
    _local.ahead = None
    if ahead is None:
        return None
    with _lock:
        _pending.discard(ahead)
    if ahead.key == key and _alive(ahead):
        return ahead
    stop(ahead)
    return None


def stop(ahead: KernelAhead) -> None:
    """Stop a kernel started ahead that no notebook will run in, and free what it held."""
    with _lock:
        _pending.discard(ahead)
    try:
        run_sync(ahead.km.shutdown_kernel)(now=True)
    except Exception:  # already gone: its resources are freed below all the same
        pass
    try:
        run_sync(ahead.km.cleanup_resources)()
    except Exception:
        pass
    if ahead.checker is not None:
        ahead.checker.close()


def _alive(ahead: KernelAhead) -> bool:
    try:
        return bool(run_sync(ahead.km.is_alive)())
    except Exception:
        return False


@atexit.register
def _stop_pending() -> None:
    with _lock:
        left = list(_pending)
    for ahead in left:
        stop(ahead)
