"""How often a student's grading is tried again when its worker dies or hangs, and what the student is told after
the last try: the local pool's (:mod:`.batch`) and the Dask cluster's (:mod:`.dask_pool`) alike; how the run's
local worker processes are made and known (:mod:`.batch` and :mod:`.workers` alike), and how a worker ends when the
run is interrupted."""

import atexit
import multiprocessing
import os
import select
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import suppress
from pathlib import Path

WORKER_DEATHS = 2  # a submission in flight on this many dead (or hung) grading workers is not tried again
KILLED_TWICE = (
    "its grading killed the grading worker process twice (out of memory, or killed by the system); "
    "it was retried alone once and not graded"
)
HUNG_TWICE = (
    "its grading worker hung twice (no progress for the cell timeout and a grace, or past its deadline: stopped, "
    "stuck on a lock or a file system, or waiting on a kernel that never answered), was stopped each time, and the "
    "student was not graded"
)


def quiet_interrupts() -> None:
    """(In each worker, as it starts) Ctrl-C or SIGTERM ends the worker as a plain exit: its grading's cleanups run
    (kernels stopped), and no traceback of its own reaches the terminal; ``grade`` says what the run recorded.

    A ``grade`` started with Ctrl-C ignored (``nohup``, a job put in the background of a script) goes on through it,
    as Unix programs do, and so do its workers: they see the disposition ``grade`` had (multiprocessing's fork server
    hands it on), and keep it.  Were they to end on a SIGINT that ``grade`` goes on through, nbgrader would swallow
    their exit (its ``capture_log`` catches everything) and the run would record their students as failed."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _leave)
    signal.signal(signal.SIGTERM, _leave)


def _leave(signum, _frame) -> None:
    """Once: what the worker still says as it stops (its pipes closing, its kernel's death) is taken back with
    its grading, so its stderr goes to /dev/null; another Ctrl-C does not cut its cleanups short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 2)
        os.close(quiet)
    except OSError:
        pass
    raise SystemExit(128 + signum)


# What grading a student imports (nbgrader, nbconvert, the sandbox, the checks: about 1.5 s of CPU): imported once
# per run, in multiprocessing's fork server, and every worker of the run (the canary's own process too) is forked
# from it with all of it imported, instead of each spawned Python importing it again. The kernel manager (and with it
# jupyter_client) is named on its own: the grading imports it only as it starts a first kernel.
PRELOAD = [
    "autograder.grading.canary",
    "autograder.grading.grade",
    "autograder.classroom.run.batch",
    "autograder.sandbox.kernel_manager",
]


def worker_context():
    """multiprocessing's "forkserver": a fresh Python, started as a spawned one is (nothing of this process's state),
    that imports :data:`PRELOAD` and forks each worker; a worker gets this process's paths and working folder as a
    spawned one does, and its environment from :func:`start_worker`."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def start_worker(environ: dict[str, str], run: int | None = None) -> None:
    """(In each worker, as it starts) this run's environment, as a spawned worker would have it (the fork server's
    is that of when it started), quiet when interrupted, its exit handlers run when it ends (:func:`exit_handlers`),
    and ended when the process ``run`` that made its pool ends (:func:`end_with_the_run`)."""
    if dict(os.environ) != environ:
        os.environ.clear()
        os.environ.update(environ)
    quiet_interrupts()
    exit_handlers()
    if run is not None:
        end_with_the_run(run)


def end_with_the_run(run: int) -> None:
    """(In a worker) end once the process ``run`` (``grade``) or the fork server the worker was forked from has
    ended: as an interrupted worker does (SIGTERM: its kernels stopped, its folders removed), and killed if it has not
    ended :data:`END_GRACE` seconds later (a grading in progress may take the SIGTERM for its own).  A worker waits on
    its pool's pipes, which it holds both ends of itself, and keeps multiprocessing's fork server alive: with
    ``grade`` killed alone (SIGKILL, the OOM killer), the workers, their fork servers and kernels' sandboxes stayed for
    ever; with the fork server killed, the run took its workers for dead and graded their students again while they
    went on.  A thread waits on both processes' pidfds."""
    watched = []
    for pid in (run, os.getppid() if _forked_by_the_fork_server() else None):
        if pid is None:  # the fork server ended already
            os.kill(os.getpid(), signal.SIGTERM)
            return
        try:
            watched.append(os.pidfd_open(pid))
        except ProcessLookupError:  # ended already
            os.kill(os.getpid(), signal.SIGTERM)
            return
        except (AttributeError, OSError):  # no pidfd on this system: as before
            return

    def wait() -> None:
        select.select(watched, [], [])
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(END_GRACE)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=wait, name="kit-run-watch", daemon=True).start()


END_GRACE = 10.0  # seconds a worker whose run has ended has to end by itself


def exit_handlers() -> None:
    """A forked worker leaves by ``os._exit``, which skips ``atexit``; a spawned one ran it.  Its handlers stop the
    worker's sandbox fork server and wait for it (else that server, orphaned, and the kernels it reaped leave the
    run's process tree, their CPU with them) and remove the worker's temporary folders (the seccomp filter, the
    public package, the staging folder).  multiprocessing runs its finalizers as the worker ends: the last of them
    runs these."""
    from multiprocessing.util import Finalize

    Finalize(None, atexit._run_exitfuncs, exitpriority=-100)


def stop_fork_server() -> None:
    """End the fork server of the run's workers, once they have ended, and wait for it: so the workers' CPU counts
    in this process's children, as spawned workers' did (the fork server reaped them), and a later run in the same
    Python (a test's) forks from a fresh import of the kit.  (multiprocessing's own stop, which its tests use.)

    The server is told to end by SIGTERM first: it holds nothing to clean up (no child, no file of its own: its
    socket is removed here), and left to end at the end of its input it tore down everything the grading imported,
    about 0.25 s of CPU at the end of every run."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    stop = getattr(server, "_stop", None)
    if stop is None:
        return
    pid = getattr(server, "_forkserver_pid", None)
    if pid is not None:
        with suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    with suppress(OSError):
        stop()


def _forked_by_the_fork_server() -> bool:
    """Whether this process's parent is still multiprocessing's fork server."""
    try:
        return b"multiprocessing.forkserver" in Path(f"/proc/{os.getppid()}/cmdline").read_bytes()
    except OSError:
        return False


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """The run's worker processes: ``jobs`` at most, forked from a fresh Python that imported the grading
    (:func:`worker_context`), started as work is handed to them, each quiet when interrupted."""
    return ProcessPoolExecutor(
        max_workers=max(1, jobs),
        mp_context=worker_context(),
        initializer=start_worker,
        initargs=(dict(os.environ), os.getpid()),
    )


def dask_configured() -> bool:
    """Whether Dask may be configured here (a ``DASK_`` variable, or its configuration folder), so the run may not
    be local; a folder that cannot be looked at (a HOME this user may not enter) is taken for one, for Dask to read."""
    if any(k.startswith("DASK_") for k in os.environ):
        return True
    try:
        return Path("~/.config/dask").expanduser().exists()
    except OSError:
        return True


def worker_pids() -> set[int]:
    """The process ids of this process's live worker processes (multiprocessing's own, public, list of its
    children: the pool's workers are the only ones ``grade`` starts)."""
    return {p.pid for p in multiprocessing.active_children()}
