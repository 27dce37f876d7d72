"""Grading on a Dask cluster: each student is one Dask task that carries its files and returns its results.

No shared file system: a task is a :class:`Parcel` with the course's ``nbgrader_config.py``, its source
notebooks and the student's submitted files (as bytes); the worker grades it in a scratch course of
its own, with the same :func:`~autograder.grading.grade.grade_student` and the same bubblewrap sandbox
as a local run, and returns a :class:`Returned`: the result and the student's autograded and feedback
files, which the instructor's side writes where a local run would.  The gradebook is the one
PostgreSQL database every worker reaches (``--db-url``); a SQLite gradebook is refused.

A worker grades each task in a child process (Autograde changes the working directory, which threads
of one process share), one per Dask thread, started on the first task and kept warm as the local
pool's processes are: ``dask worker --nthreads N`` grades N students at once and pays a grader's
start-up and imports once, not once per student.  (A Dask worker is a daemonic process, which
``multiprocessing`` forbids to have children, so these are plain subprocesses fed over a pipe; one
leaves when its pipe closes, so none outlives its worker.)

Faults: a worker that dies mid-student loses nothing; the scheduler gives its task to another worker,
and nbgrader's autograde replaces the student's grades, so the gradebook holds them once.  A task
whose grading process passes the student's deadline (the local pool's, :func:`.batch.student_deadline`
or ``--worker-deadline``) has that process killed by its worker, which still answers its heartbeat
and so would never lose the task; the instructor's side removes what the grading wrote
(:func:`.batch.forget_grading`) and sends the student to another worker once, then calls it
``error``.  A cluster-wide
lock per student keeps two gradings of one student from overlapping (a killed instructor's tasks may
still run when the next run starts).  A worker
with another version of the kit, or one that cannot sandbox, refuses: before any task runs (checked on
every worker with ``Client.run``), and again inside each task (for workers that join later).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ... import timing
from ...config import CONFIG_FILE, GradingOptions
from ...course import Assignment, Course
from ...grading.results import Status, StudentResult
from ...scratch import private_folder

SCHEDULER_KEY = "scheduler-address"  # Dask's own config key; DASK_SCHEDULER_ADDRESS sets it


class ClusterError(Exception):
    """The cluster cannot grade this run (unreachable, SQLite gradebook, workers of another kit version)."""


class WorkerRefused(RuntimeError):
    """A worker will not grade: it cannot sandbox, or it runs another version of the kit."""


def default_scheduler() -> str | None:
    """The scheduler address from Dask's own configuration (``DASK_SCHEDULER_ADDRESS``, dask.yaml), if any."""
    from .retries import dask_configured

    if not dask_configured():
        return None  # nothing configured: don't even import dask
    import dask.config

    return dask.config.get(SCHEDULER_KEY, None) or None


def kit_version() -> str:
    """The kit's version and a hash of every module of the package: workers must match the instructor's."""
    from importlib.metadata import PackageNotFoundError, version

    package = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    try:
        number = version("embeddings-autograder")
    except PackageNotFoundError:
        number = "unknown"
    return f"{number}+{digest.hexdigest()[:12]}"


def worker_status(sandbox: bool) -> dict:
    """What a worker says about itself before any task runs: its kit version and whether it can sandbox."""
    from ...sandbox import SandboxUnavailable, check_sandbox

    refused = None
    if sandbox:
        try:
            check_sandbox()
        except SandboxUnavailable as e:
            refused = f"cannot sandbox: {e}"
    return {"version": kit_version(), "host": socket.gethostname(), "refused": refused}


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``: path relative to it -> bytes (empty when the folder is missing)."""
    if not folder.is_dir():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _write_files(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = (folder / name).resolve()
        if folder.resolve() not in path.parents:
            raise ValueError(f"refusing to write {name!r} outside {folder}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@dataclass
class Parcel:
    """Everything a worker needs to grade one student, as bytes."""

    assignment: str
    student: str
    db_url: str
    config: bytes  # the course's nbgrader_config.py
    source: dict[str, bytes]  # the assignment's source folder
    submitted: dict[str, bytes]  # the student's submitted folder
    overrides: bytes | None  # the kit's record of cells it zeroed for this student last time
    options: GradingOptions  # the run's options, decided once by the instructor's side
    version: str
    deadline: float = 0.0  # seconds the grading process may take before it is presumed hung and killed (0: none)
    silence: float = 0.0  # seconds it may go without progress (timing.beat) before it is presumed hung (0: no watch)


@dataclass
class Returned:
    """What the instructor keeps of one student's grading."""

    result: dict
    autograded: dict[str, bytes] = field(default_factory=dict)
    feedback: dict[str, bytes] = field(default_factory=dict)
    overrides: bytes | None = None
    worker: str = ""
    hung: bool = False  # the grading process passed the deadline and was killed: nothing of it is kept
    address: str = ""  # the Dask worker's address (to retry a hung student on another)
    why: str = ""  # why it was presumed hung: no progress for N s, or past its deadline


def make_parcel(
    assignment: Assignment,
    student: str,
    db_url: str,
    options: GradingOptions,
    version: str,
    deadline: float = 0.0,
    silence: float = 0.0,
) -> Parcel:
    record = assignment.verdict_record(student)
    config = assignment.root / CONFIG_FILE
    return Parcel(
        assignment.name,
        student,
        db_url,
        config.read_bytes() if config.exists() else b"",
        _files(assignment.source),
        _files(assignment.submitted(student)),
        record.read_bytes() if record.exists() else None,
        options,
        version,
        deadline,
        silence,
    )


def grade_parcel(parcel: Parcel) -> Returned:
    """The Dask task: grade one student in a scratch course of this worker's own, in a child process."""
    if parcel.version != kit_version():
        raise WorkerRefused(
            f"worker {socket.gethostname()} runs kit {kit_version()}, the instructor {parcel.version}: "
            "install the same version of the kit on every worker"
        )
    status = worker_status(parcel.options.sandbox)
    if status["refused"]:
        raise WorkerRefused(f"worker {status['host']} {status['refused']}")
    with one_at_a_time(f"kit-grade-{parcel.assignment}-{parcel.student}"):
        return _grade_in_scratch(parcel)


def one_at_a_time(name: str):
    """A cluster-wide lock: one student is never graded twice at once (say a task of an instructor's run
    that was killed still runs when the next run submits the same student).  The lease of a worker that
    dies is released by the scheduler."""
    from contextlib import nullcontext

    from distributed import Lock, get_worker

    try:
        get_worker()
    except ValueError:  # not inside a Dask worker (called directly)
        return nullcontext()
    return Lock(name)


def parcel_assignment(scratch: Path, parcel: Parcel) -> Assignment:
    """A task's assignment, in the worker's scratch course laid out as the parcel's nbgrader_config.py says."""
    return Assignment(Course(scratch), parcel.assignment)


def _grade_in_scratch(parcel: Parcel) -> Returned:
    from ...sandbox.leftovers import sweep

    sweep()  # what the grading processes killed on this machine before left: sandboxes, cgroups, folders
    scratch = private_folder(parcel.student)
    try:
        (scratch / CONFIG_FILE).write_bytes(parcel.config)
        assignment = parcel_assignment(scratch, parcel)
        course = assignment.course
        _write_files(assignment.source, parcel.source)
        _write_files(assignment.submitted(parcel.student), parcel.submitted)
        record = assignment.verdict_record(parcel.student)
        if parcel.overrides is not None:
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_bytes(parcel.overrides)
        course.task_file.parent.mkdir(parents=True, exist_ok=True)
        course.task_file.write_bytes(pickle.dumps(parcel))
        out = course.result_file
        grader = _Grader.take()
        finished = grader.grade(scratch, parcel.deadline, parcel.silence)
        if grader.hung:
            grader.stop()
            return Returned(
                StudentResult(parcel.student, Status.ERROR, grader.hung).to_dict(),
                worker=socket.gethostname(),
                hung=True,
                address=_worker_address(),
                why=grader.hung,
            )
        if finished and out.exists():
            grader.give_back()
            result = json.loads(out.read_text())
        else:
            result = StudentResult(
                parcel.student, Status.ERROR, f"grading crashed on worker {socket.gethostname()}: {grader.last_words()}"
            ).to_dict()
            grader.stop()
        return Returned(
            result,
            _files(assignment.autograded(parcel.student)),
            _files(assignment.feedback(parcel.student)),
            record.read_bytes() if record.exists() else None,
            socket.gethostname(),
            address=_worker_address(),
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _worker_address() -> str:
    from distributed import get_worker

    try:
        return get_worker().address
    except ValueError:  # not inside a Dask worker (called directly)
        return ""


class _Grader:
    """A grading process of this worker, kept between tasks: it reads a scratch course's path per line on
    its stdin, grades the task there and answers ``done``; it leaves when its stdin closes.  One that has
    not answered by the task's deadline, or has made no progress (:func:`autograder.timing.beat`, into the scratch
    course's progress file) for the task's ``silence``, is killed (SIGKILL, which ends a stopped process too; its
    sandboxed kernels die with it, as bubblewrap's --die-with-parent): ``hung`` says why."""

    _idle: list[_Grader] = []
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.hung = ""

    @classmethod
    def take(cls) -> _Grader:
        with cls._lock:
            while cls._idle:
                grader = cls._idle.pop()
                if grader.process.poll() is None:
                    return grader
        return cls()

    def give_back(self) -> None:
        with self._lock:
            self._idle.append(self)

    def grade(self, scratch: Path, deadline: float = 0.0, silence: float = 0.0) -> bool:
        """Whether the process graded ``scratch`` (answered ``done``); past ``deadline`` seconds, or ``silence``
        seconds without progress (0: none), it is killed and ``hung`` set, without waiting for it to end (a process
        stuck on a dead mount may not)."""
        self.log.seek(0)
        self.log.truncate()  # the log holds this task's words only (the process shares the file's offset)
        try:
            self.process.stdin.write(f"{scratch}\n")
            self.process.stdin.flush()
            return self._answer(deadline, silence, progress_file(scratch)) == "done"
        except (BrokenPipeError, OSError):
            return False

    def _answer(self, deadline: float, silence: float = 0.0, progress: Path | None = None) -> str:
        """The process's answer line; it writes nothing between tasks, so nothing of it waits in the buffer
        while the pipe is not readable."""
        if deadline > 0 or silence > 0:
            begun = time.monotonic()
            while not select.select([self.process.stdout], [], [], 1.0)[0]:
                last = timing.last_beat(progress) if progress is not None else None
                quiet = time.time() - last if last is not None else time.monotonic() - begun
                if silence > 0 and quiet >= silence:
                    self.hung = f"made no progress for {quiet:.0f} s (the cell timeout and a grace)"
                elif deadline > 0 and time.monotonic() - begun >= deadline:
                    self.hung = f"passed its {deadline:g} s deadline"
                else:
                    continue
                self.process.kill()
                return ""
        return self.process.stdout.readline().strip()

    def last_words(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace").strip()[-500:] or f"exit code {self.process.poll()}"

    def stop(self) -> None:
        self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # stuck in the kernel (a dead mount): it ends when the kernel lets it
            pass


def progress_file(scratch: Path) -> Path:
    """The file whose modification time a task's grading process moves as it makes progress."""
    return Path(scratch) / ".kit-progress"


def _serve() -> None:
    """A grading process (``python -m autograder.classroom.run.dask_pool``): grade each scratch course named on stdin."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever grading prints goes to the log, not into the answers
    for line in sys.stdin:
        try:
            _grade_in_child(Path(line.strip()))
        except Exception:  # noqa: BLE001 - the traceback goes to the log; the missing result says it failed
            import traceback

            traceback.print_exc()
        answers.write("done\n")
        answers.flush()


def _grade_in_child(scratch: Path) -> None:
    """In a grading process: the same grade_student as a local run, in the task's scratch course."""
    from ...grading.grade import grade_student

    course = Course(scratch)
    parcel: Parcel = pickle.loads(course.task_file.read_bytes())
    os.chdir(scratch)
    timing.beat_into(progress_file(scratch))  # each step of the grading tells the worker it is not hung
    try:
        result = grade_student(parcel_assignment(scratch, parcel), parcel.student, parcel.db_url, parcel.options)
    finally:
        timing.beat_into(None)
    course.result_file.write_text(json.dumps(result.to_dict()))
    os.chdir(tempfile.gettempdir())  # the scratch course is removed after the task


def keep(assignment: Assignment, student: str, returned: Returned) -> StudentResult:
    """Write what a worker returned where a local run would have left it; the student's result."""
    for folder, files in (
        (assignment.autograded(student), returned.autograded),
        (assignment.feedback(student), returned.feedback),
    ):
        shutil.rmtree(folder, ignore_errors=True)  # as nbgrader's own --force: nothing of an earlier grading lingers
        if files:
            folder.mkdir(parents=True, exist_ok=True)
            _write_files(folder, files)
    if returned.overrides is not None:
        record = assignment.verdict_record(student)
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_bytes(returned.overrides)
    return StudentResult.from_dict(returned.result)


def check_workers(client, sandbox: bool) -> list[str]:
    """Ask every worker for its kit version and sandbox before any task runs; refuse a mismatch."""
    version = kit_version()
    statuses = client.run(worker_status, sandbox)
    if not statuses:
        raise ClusterError(f"the Dask scheduler {client.scheduler.address} has no workers")
    problems = []
    for address, status in sorted(statuses.items()):
        if status["version"] != version:
            problems.append(f"worker {address} ({status['host']}) runs kit {status['version']}, this machine {version}")
        elif status["refused"]:
            problems.append(f"worker {address} ({status['host']}) {status['refused']}")
    if problems:
        raise ClusterError(
            "refusing to grade on this cluster:\n  "
            + "\n  ".join(problems)
            + "\nEvery worker needs the same version of the kit and a working bubblewrap (see docs/dask.md)."
        )
    return sorted(statuses)


def connect(scheduler: str):
    """A Dask client: ``tcp://HOST:PORT`` (or any address Dask takes), or ``gateway://CLUSTER`` for a
    cluster of JupyterHub's Dask Gateway (its TLS credentials come from the gateway; needs dask-gateway)."""
    from distributed import Client

    if scheduler.startswith("gateway://"):
        try:
            from dask_gateway import Gateway
        except ImportError:
            raise ClusterError(
                f"--scheduler {scheduler} names a Dask Gateway cluster: install dask-gateway "
                "(pip install dask-gateway), as JupyterHub images with Dask Gateway have it"
            ) from None
        return Gateway().connect(scheduler.removeprefix("gateway://")).get_client()
    return Client(scheduler, timeout="20s")


def refuse_local_gradebook(db_url: str) -> None:
    """A Dask run needs a gradebook every worker reaches: raise ClusterError for a SQLite file of this machine."""
    if db_url.startswith("sqlite"):
        raise ClusterError(
            f"a Dask run needs a gradebook every worker reaches, and {db_url} is a file on this "
            "machine: give a PostgreSQL gradebook with --db-url postgresql://USER@HOST/DB "
            "(docs/dask.md)"
        )


def grade_on_cluster(
    scheduler: str,
    assignment: Assignment,
    db_url: str,
    students: list[str],
    options: GradingOptions,
    *,
    on_result: Callable[[str, StudentResult, bool], None],
    out=print,
    deadline: float = 0.0,
    silence: float = 0.0,
    forget: Callable[[str], None] = lambda student: None,
) -> None:
    """Grade ``students`` on the Dask cluster at ``scheduler``; ``on_result`` gets each as it finishes, and
    whether the result is final (False: a refusal or a lost worker, to be graded again by the next run).

    ``deadline``: seconds a student's grading process may take on its worker (0: no limit); ``silence``: seconds
    it may go without progress (0: no limit).  A student whose grading passed either has what it wrote removed
    (``forget``) and is graded again, on another worker where there is one; past it twice, the student is
    ``error`` (:data:`.retries.HUNG_TWICE`)."""
    from distributed import as_completed
    from distributed.client import FutureCancelledError

    from .retries import HUNG_TWICE, WORKER_DEATHS

    refuse_local_gradebook(db_url)
    try:
        client = connect(scheduler)
    except OSError as e:
        raise ClusterError(f"cannot reach the Dask scheduler {scheduler}: {e}") from None
    try:
        workers = check_workers(client, options.sandbox)
        out(f"Dask scheduler {scheduler}: {len(workers)} worker(s); dashboard {client.dashboard_link}")
        version = kit_version()
        futures, hung = {}, {}

        def submit(student: str, avoid: str = ""):
            parcel = make_parcel(assignment, student, db_url, options, version, deadline, silence)
            key = f"grade-{assignment.name}-{student}-{os.urandom(4).hex()}"
            others = [w for w in client.scheduler_info()["workers"] if w != avoid] if avoid else []
            # others: a must while there are others (the scheduler would otherwise give a retry back to the worker whose
            # host may hold the dead mount, whenever the others are busy); with no other, the same worker's fresh process
            where = {"workers": others, "allow_other_workers": False} if others else {}
            future = client.submit(grade_parcel, parcel, key=key, pure=False, **where)
            futures[future] = student
            return future

        running = as_completed([submit(student) for student in students])
        for future in running:
            student = futures.pop(future)
            final = True
            try:
                returned = future.result()
                if returned.hung:
                    hung[student] = hung.get(student, 0) + 1
                    out(
                        f"{student}: its grading on worker {returned.address or returned.worker} "
                        f"{returned.why or f'passed its {deadline:g} s deadline'}: stopped"
                    )
                    forget(student)  # before the retry writes anything
                    if hung[student] < WORKER_DEATHS:
                        running.add(submit(student, avoid=returned.address))
                        continue
                    result, final = StudentResult(student, Status.ERROR, HUNG_TWICE), False
                else:
                    result = keep(assignment, student, returned)
            except WorkerRefused as e:
                result, final = StudentResult(student, Status.ERROR, f"refused: {e}"), False
            except (FutureCancelledError, Exception) as e:  # noqa: BLE001 - the cluster's fault: not graded
                result = StudentResult(student, Status.ERROR, f"grading failed on the cluster: {type(e).__name__}: {e}")
                final = "KilledWorker" not in type(e).__name__
            on_result(student, result, final)
    finally:
        client.close()


if __name__ == "__main__":
    _serve()
