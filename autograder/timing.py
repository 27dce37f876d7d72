"""Where a run's time goes, for ``benchmarks/bench_small_jobs.py``: with ``AUTOGRADER_TIMINGS`` naming a file, each
process of the run (the command, its worker processes) appends one JSON line per phase it times: its name, the
process id, its start and end (``time.time()``), and the CPU this process spent in it (user + system seconds).
Without the variable nothing is written and a phase costs a dictionary look-up.

``started()`` records a process's own start-up (from its creation to the call: the interpreter and the imports).
No profiler, no kit package imported here but the standard library (the command line imports it before any
command's packages)."""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager

ENV = "AUTOGRADER_TIMINGS"
_started: set[int] = set()  # the processes whose start-up is recorded (a forked child is a process of its own)


def _write(name: str, start: float, end: float, cpu: float) -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    line = json.dumps({"name": name, "pid": os.getpid(), "start": start, "end": end, "cpu": round(cpu, 4)})
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # one write: whole lines, any process
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # only a measurement: the run goes on without it


# --- progress: how a grading process shows it is not hung --------------------------------------------------------
# A grading process names a file (beat_into); each step it finishes (a cell, a kernel started, a phase) sets the
# file's modification time (beat).  Whoever runs the process (the local pool, a Dask worker) presumes it hung when
# the file has not moved for the cell timeout and a grace: a stopped process, one stuck on a lock, a kernel that
# never answers all stop the beats, and no step of grading runs longer than a cell may without one.
_beats: list[str] = []


def beat_into(path: str | os.PathLike | None) -> None:
    """Make ``path`` (None: no file) this process's progress file, and beat once."""
    _beats[:] = [os.fspath(path)] if path is not None else []
    beat()


def beat() -> None:
    """One step of progress: the progress file's modification time is now (nothing without a progress file)."""
    if _beats:
        try:
            os.utime(_beats[0])
        except OSError:
            pass  # the file is gone (its grading was taken back): nothing to tell


def last_beat(path: str | os.PathLike) -> float | None:
    """When the process writing ``path`` last made progress (``time.time()``'s clock), None without the file."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


@contextmanager
def phase(name: str):
    """Time the block as the phase ``name`` of this process (wall and this process's CPU); its start and end are
    progress (:func:`beat`)."""
    beat()
    if not os.environ.get(ENV):
        try:
            yield
        finally:
            beat()
        return
    start, cpu = time.time(), time.process_time()
    try:
        yield
    finally:
        beat()
        _write(name, start, time.time(), time.process_time() - cpu)


def enabled() -> bool:
    """Whether this run records its phases (``AUTOGRADER_TIMINGS`` names a file)."""
    return bool(os.environ.get(ENV))


def record(name: str, start: float, end: float, cpu: float) -> None:
    """A phase timed by its caller: ``cpu`` may be another process's (a kernel's: :func:`process_cpu`)."""
    _write(name, start, end, cpu)


def process_cpu(pid: int | None) -> float | None:
    """User + system seconds process ``pid`` has spent so far (``/proc``), None if it cannot be read."""
    if not pid:
        return None
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15
    except (OSError, ValueError, IndexError):
        return None


def process_start() -> float | None:
    """When this process was created (``time.time()``'s clock, to the kernel's clock tick), None off Linux."""
    try:
        stat = open("/proc/self/stat").read()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, starttime, after the command name
        boot = time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def started(name: str = "start-up, imports") -> None:
    """Record, once per process, the phase from its creation until now; its CPU is all this process has spent."""
    if not os.environ.get(ENV) or os.getpid() in _started:
        return
    _started.add(os.getpid())
    now = time.time()
    _write(name, process_start() or now, now, time.process_time())
