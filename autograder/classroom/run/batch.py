"""Bulk grading: every submission of an assignment, in worker processes, resumable and idempotent.

The unit of work is :func:`autograder.grading.grade.grade_student` (assignment + student + gradebook
URL), so the pool here can be swapped for any engine that runs Python functions in processes.
A finished student leaves a small state file under ``.kit/<assignment>/`` holding the fingerprint of
the submission it graded, every other grading input it was graded on (:mod:`..history.inputs`: the source
notebooks' graded cells, the kit, the course's grading options, the versions) and the result; a later run
skips a student only when the submission and every input are what they were, and a run that was killed
simply regrades whoever has no state file yet.  nbgrader's autograde
replaces a student's earlier grades, so regrading never duplicates them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from ... import timing
from ...config import HUNG_GRACE, KIT_DEATH_RETRIES, GradingOptions, grading_options  # noqa: F401 - HUNG_GRACE: the default, named here too
from ...course import Assignment
from ...grading.faults import disk_full, exception_fault, from_driver
from ...grading.results import Status, StudentResult
from ..history.inputs import changes as input_changes
from ..history.inputs import grading_inputs, same_inputs
from .beside import Gate, untouched
from .gradebook_guard import log_error
from .progress import Progress
from .retries import HUNG_TWICE, KILLED_TWICE, WORKER_DEATHS, worker_pids, worker_pool


class GradingError(Exception):
    """Grading cannot start at all (bad course directory, unknown assignment, unusable gradebook)."""


def fingerprint(folder: Path) -> str:
    """A hash of every file of a submission folder: names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def load_state(assignment: Assignment, student: str) -> dict | None:
    try:
        return json.loads(assignment.state_file(student).read_text())
    except (OSError, ValueError):
        return None


def save_state(assignment: Assignment, result: StudentResult, key: dict) -> None:
    """``key``: what the student was graded on (``fingerprint``: the submission's, ``inputs``: every other)."""
    folder = assignment.state_folder
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{result.student}.json.tmp"
    tmp.write_text(json.dumps({**key, "result": result.to_dict()}, indent=1))
    os.replace(tmp, assignment.state_file(result.student))  # atomic: a killed run leaves no half state


def submissions(assignment: Assignment, only: list[str] | None = None) -> dict[str, Path]:
    found = assignment.students("submitted")
    if only:
        missing = [s for s in only if s not in found]
        if missing:
            root = assignment.course.step_root("submitted")
            raise GradingError(f"no submission of {assignment.name!r} under {root} for: {', '.join(missing)}")
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
    worker_deadline: float | None = None  # seconds a worker may take for one student (None: from the budgets)
    wait: bool = False  # another run holds the assignment's lock: wait for it (else stop, saying who holds it)

    def grading(self, config) -> GradingOptions:
        """What every grader of the run is handed: the course's options (``config``: its nbgrader config)
        with these flags written over them."""
        return grading_options(
            config,
            jobs=self.jobs,
            notebook_budget=self.notebook_budget,
            cell_timeout=self.cell_timeout,
            feedback=self.feedback,
        )


@dataclass
class BatchOutcome:
    results: list[StudentResult] = field(default_factory=list)
    graded: int = 0
    skipped: int = 0
    failed: int = 0
    errors: int = 0  # students the kit's own side failed on: not graded, graded again next run
    stopped: str = ""  # why the run stopped before the class was done (the disk is full), if it did
    seconds: float = 0.0


def _grade_on_dask(
    assignment: Assignment,
    db_url: str,
    todo: dict[str, dict],
    options: BatchOptions,
    grading: GradingOptions,
    progress: Progress,
    done: dict[str, StudentResult],
    on_graded=None,
) -> None:
    """The same batch on a Dask cluster (see :mod:`.dask_pool`); state files are written here, as results arrive."""
    from .dask_pool import ClusterError, grade_on_cluster

    def on_result(student: str, result: StudentResult, final: bool) -> None:
        if final or result.status is Status.ERROR:
            result = record_grade(assignment, db_url, todo[student], result, on_graded)
        done[student] = result
        progress.advance(result)

    try:
        grade_on_cluster(
            options.scheduler,
            assignment,
            db_url,
            list(todo),
            grading,
            on_result=on_result,
            out=lambda line: print(line, flush=True),
            deadline=options.worker_deadline or student_deadline(assignment, grading),
            silence=silence_allowed(grading),
            forget=lambda student: forget_grading(assignment, student, db_url),
        )
    except ClusterError as e:
        raise GradingError(str(e)) from None


def silence_allowed(grading: GradingOptions) -> float:
    """Seconds a grading may make no progress (:func:`autograder.timing.beat`: a finished cell, a kernel that
    answered, a step of grading) before it is presumed hung: the cell timeout, the tightest bound the kit enforces
    on any one step, and a grace (``c.KitConfig.hung_grace``, :data:`HUNG_GRACE` by default)."""
    return grading.cell_timeout + grading.hung_grace


WATCH_EVERY = 1.0  # seconds between two looks of the local pool's watch for hung workers (:meth:`LocalPool.watching`)
GRADEBOOK_FAULT = "the gradebook could not be"  # the start of faults.kit_fault's and exception_fault's words for it
DEADLINE_GRACE = 120.0  # seconds of a student's grading outside its notebooks (kernels' starts, gradebook, feedback)


def student_deadline(assignment: Assignment, grading: GradingOptions) -> float:
    """Seconds a worker may take for one student before it is presumed hung: every notebook's budget, for
    each time a notebook may run (its kernel killed on the kit's side), and a grace for the rest."""
    try:
        notebooks = max(1, len(assignment.notebooks()))
    except Exception:  # noqa: BLE001 - the deadline only needs a count
        notebooks = 10
    return DEADLINE_GRACE + notebooks * grading.notebook_budget * (1 + KIT_DEATH_RETRIES)


def forget_grading(assignment: Assignment, student: str, db_url: str) -> None:
    """Remove whatever a grading of ``student`` that did not finish wrote (its autograded and feedback
    folders, its staged copy, the kit's records of it, its submission in the gradebook), so that a
    grade is there whole or not at all.  Files first: on a full disk they free the space the gradebook
    needs to change."""
    from nbgrader.api import Gradebook, MissingEntry

    for folder in (assignment.autograded(student), assignment.feedback(student), assignment.staged(student)):
        shutil.rmtree(folder, ignore_errors=True)
    for record in (
        assignment.state_file(student),
        assignment.verdict_record(student),
        assignment.in_flight_note(student),
    ):
        record.unlink(missing_ok=True)
    try:
        with Gradebook(db_url) as gb:
            gb.remove_submission(assignment.name, student)
    except MissingEntry:
        pass
    except Exception as e:  # noqa: BLE001 - the gradebook is down: the student has no state file, so the next
        # run grades them again and nbgrader's autograde replaces what this grading left; this run's export leaves
        # them out (status error)
        log_error(assignment.course.root, f"removing the unfinished grading of {student} from {db_url}", e)


def record_grade(assignment: Assignment, db_url: str, key: dict, result: StudentResult, on_graded) -> StudentResult:
    """A finished grading made whole: its history (``on_graded`` sees the final result first) and its state file
    written; where either cannot be (a full disk, the gradebook down), the grade is taken back as the kit's error.
    A kit's error leaves nothing of the grading behind: no grade, no state, graded again next run."""
    if result.status is not Status.ERROR:
        try:
            if on_graded:
                on_graded(result)
            save_state(assignment, result, key)
        except Exception as e:  # noqa: BLE001 - a grade without its history and state is not whole: take it back
            if not (isinstance(e, OSError) or from_driver(e)):
                raise
            result = StudentResult(result.student, Status.ERROR, exception_fault(e))
    if result.status is Status.ERROR:
        forget_grading(assignment, result.student, db_url)
    return result


def grade_in_worker(assignment: Assignment, student: str, db_url: str, grading: GradingOptions) -> StudentResult:
    """``grade_student`` in a pool worker, leaving the in-flight note (the worker's process id) while it runs.  (The
    worker's fork server imported the grading, ``retries.PRELOAD``; ``grade``'s own process never does.)"""
    from ...grading.grade import grade_student

    timing.started("worker start-up, imports")
    note = assignment.in_flight_note(student)
    try:
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(str(os.getpid()))
    except OSError:
        pass  # only a note: grading goes on without it
    timing.beat_into(note)  # each step of the grading moves the note's time: the pool sees it is not hung
    try:
        return grade_student(assignment, student, db_url, grading)
    finally:
        timing.beat_into(None)
        note.unlink(missing_ok=True)


@contextmanager
def interrupting_workers():
    """On Ctrl-C or SIGTERM in ``grade``'s own process, its workers are stopped too (SIGTERM: they end their student's
    grading at once, :func:`.retries.quiet_interrupts`, even where Ctrl-C is ignored), so that the pool's shutdown
    does not wait for them."""
    try:
        yield
    except KeyboardInterrupt:
        for pid in worker_pids():
            with suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        raise


class LocalPool:
    """The class on local worker processes, at most ``jobs`` students in flight at a time.

    A worker that dies (the OOM killer, an administrator) costs a retry, never another student: the
    students in flight on it have what their grading wrote removed and are graded again, each alone,
    so that a second death is charged to the one submission that caused it (failed, with that reason);
    students not yet started are simply graded.  A fault of the kit's own side (status ``error``) leaves
    no grade; a full disk stops the run, since every later student would meet it too.

    A thread of its own watches for hung workers (:meth:`watching`), so that no step of the run's loop that blocks
    (the canary waited for, the run history opened on a gradebook another program holds locked) stalls the watch.
    """

    def __init__(
        self,
        assignment: Assignment,
        db_url: str,
        todo: dict[str, dict],
        grading: GradingOptions,
        progress: Progress,
        done: dict[str, StudentResult],
        on_graded=None,
        deadline: float | None = None,
        gate: Gate | None = None,
    ):
        self.assignment, self.db_url, self.todo = assignment, db_url, todo
        self.gate = gate  # the canary, while undecided: results are held, not recorded (:mod:`.beside`)
        self.held: dict[str, StudentResult] = {}
        self.canary_failed: BaseException | None = None
        self.grading, self.progress, self.done, self.on_graded = grading, progress, done, on_graded
        self.deadline = deadline or student_deadline(assignment, grading)
        self.silence = silence_allowed(grading)
        self.pending = list(todo)
        self.deaths: dict[str, int] = {}
        self.hung: dict[str, int] = {}  # students whose worker was stopped past its deadline, how often
        self.hung_now: set[str] = set()  # ... and whose stopped worker's end is yet to come
        self.in_flight: dict = {}  # the round's students in flight: future -> (student, when it was handed out)
        self.guard = threading.Lock()  # in_flight and hung_now: the run's loop changes them, the watch reads them
        self.gradebook_retried: set[str] = set()  # students graded again after their gradebook writes failed
        self.stop = ""

    def run(self, pool: ProcessPoolExecutor | None = None) -> None:
        """``pool``: the run's worker processes (:func:`worker_pool`, at most ``jobs``), for the first round; shut
        down at its end.  After a worker's death, each round has a pool of its own, and the students it may be
        charged to are graded one by one."""
        first = pool
        with self.watching():
            while self.pending and not self.stop:
                self.settle()  # the canary decided since the last round: the results held recorded, or the run stopped
                waiting = [s for s in self.pending if s not in self.held]
                if self.stop or not waiting:
                    self.settle(block=True)  # (every student left is held: only the canary is waited for)
                    continue
                suspects = [s for s in waiting if self.deaths.get(s)]
                queue = suspects[:1] or waiting
                workers = 1 if suspects else max(1, min(self.grading.jobs, len(queue)))
                given, first = (first if not suspects else None), None
                self.round(given or worker_pool(workers), queue, workers)
            self.settle(block=True)  # the canary decided, whatever the class
        if self.canary_failed is not None:  # nothing recorded: grade_all takes back what was graded meanwhile
            raise self.canary_failed
        for student in list(self.pending):  # the run stopped before them
            self.record(student, StudentResult(student, Status.ERROR, f"the run stopped before it: {self.stop}"))

    def round(self, pool: ProcessPoolExecutor, queue: list[str], workers: int) -> None:
        """Grade ``queue`` on ``pool``, ``workers`` students in flight at a time, until it is done or the run stops
        (the students in flight then finish).  A worker's death ends the round: the students in flight on the pool
        are charged with it (:meth:`worker_died`)."""
        in_flight = self.in_flight  # future -> (student, when it was handed out); changed under self.guard
        try:
            with pool, interrupting_workers():
                while in_flight or (queue and not self.stop) or (self.held and self.undecided()):
                    self.settle()
                    while queue and len(in_flight) < workers and not self.stop:
                        if self.gate is None:
                            student = queue.pop(0)
                        else:  # the canary undecided: only a student whose grading can be taken back exactly
                            student = next((s for s in queue if self.gate.may_start(s, workers)), None)
                            if student is None:
                                break
                            queue.remove(student)
                            self.gate.started.append(student)
                        future = pool.submit(grade_in_worker, self.assignment, student, self.db_url, self.grading)
                        with self.guard:
                            in_flight[future] = (student, time.monotonic())
                    gate = [self.gate.future] if self.undecided() else []
                    finished, _ = wait(list(in_flight) + gate, timeout=1.0, return_when=FIRST_COMPLETED)
                    for future in finished:
                        if future in in_flight:
                            self.collect(future, in_flight)
        except BrokenProcessPool:
            with self.guard:
                lost = [student for student, _ in in_flight.values()]
                in_flight.clear()
            for student in lost:
                self.worker_died(student)

    def collect(self, future, in_flight: dict) -> None:
        """A finished student's result; a raise of the kit's own code is its error, not the student's.  A broken pool
        is raised again with the student still in flight."""
        student, _ = in_flight[future]
        try:
            result = future.result()
        except BrokenProcessPool:
            raise
        except Exception as e:  # noqa: BLE001 - the kit's own code raised: not the student's
            result = StudentResult(student, Status.ERROR, exception_fault(e))
        with self.guard:
            del in_flight[future]
        self.finish(student, result)

    @contextmanager
    def watching(self):
        """While the block runs, a thread of its own looks for hung workers (:meth:`stop_hung`) every
        :data:`WATCH_EVERY` seconds: a step of the run's loop that blocks (the canary waited for, the run history
        opened on a gradebook another program holds locked, a slow write) never stalls it."""
        done = threading.Event()

        def watch() -> None:
            while not done.wait(WATCH_EVERY):
                try:
                    self.stop_hung()
                except Exception as e:  # noqa: BLE001 - one look that failed: said, and the next one looks again
                    print(f"the watch for hung workers: {exception_fault(e)}", flush=True)

        thread = threading.Thread(target=watch, name="hung-worker watch", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def stop_hung(self) -> None:
        """A worker whose grading made no progress for :func:`silence_allowed` seconds (stopped, stuck on a lock,
        waiting on a kernel that never answers), or past its student's deadline, is presumed hung: killed
        (SIGKILL, which ends a stopped process too), so that its student is graded again elsewhere and it holds
        no gradebook lock.  (In the watch's thread: :meth:`watching`.)"""
        now = time.monotonic()
        with self.guard:
            flights = [
                (f, student, out) for f, (student, out) in self.in_flight.items() if student not in self.hung_now
            ]
        for future, student, handed_out in flights:
            if future.done():
                continue
            note = self.assignment.in_flight_note(student)
            try:
                pid = int(note.read_text())
            except (OSError, ValueError):
                continue  # not started yet in its worker: its clock starts there
            last = timing.last_beat(note)
            quiet = time.time() - last if last is not None else 0.0
            if quiet < self.silence and now - handed_out < self.deadline:
                continue
            if pid not in worker_pids():  # a note of another run's worker, not one of ours
                continue
            with self.guard:
                if future not in self.in_flight:  # it finished meanwhile
                    continue
                self.hung_now.add(student)
            why = (
                f"made no progress for {quiet:.0f} s (the cell timeout and a {self.grading.hung_grace:g} s grace)"
                if quiet >= self.silence
                else f"passed its {self.deadline:g} s deadline"
            )
            print(f"{student}: its grading worker (pid {pid}) {why}: stopped", flush=True)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def worker_died(self, student: str) -> None:
        forget_grading(self.assignment, student, self.db_url)
        with self.guard:
            hung = student in self.hung_now
            self.hung_now.discard(student)
        if hung:  # the kit's side hung, not the student: retried; twice, not graded
            self.hung[student] = self.hung.get(student, 0) + 1
            if self.hung[student] >= WORKER_DEATHS:
                self.finish(student, StudentResult(student, Status.ERROR, HUNG_TWICE))
                return
        self.deaths[student] = self.deaths.get(student, 0) + 1
        if self.deaths[student] >= WORKER_DEATHS and student in self.pending:
            # not graded, as a hung one: a worker is killed from outside (the OOM killer, an administrator) as well
            # as by a grading, so the student is graded again by the next run, never scored on it
            self.finish(student, StudentResult(student, Status.ERROR, KILLED_TWICE))

    def undecided(self) -> bool:
        return self.gate is not None and not self.gate.decided()

    def settle(self, block: bool = False) -> None:
        """Once the canary is decided (``block``: wait for it): passed, the results held are recorded; failed, the
        run stops and :exc:`CanaryFailed` (or what the canary's grading raised) is raised once no student is in
        flight (:func:`grade_all` then takes back what their grading wrote)."""
        if self.gate is None or not (block or self.gate.decided()):
            return
        if self.gate.future.exception() is not None:  # (waits, when blocking)
            self.stop = self.stop or "the canary failed"
            self.canary_failed = self.gate.future.exception()
            return
        gate, self.gate = self.gate, None
        gate.passed()  # (and what must come before a student is recorded: the run's history opened)
        for student, result in list(self.held.items()):
            del self.held[student]
            self.finish(student, result)

    def finish(self, student: str, result: StudentResult) -> None:
        if self.gate is not None:  # the canary undecided: nothing of the student is recorded yet
            self.held[student] = result
            return
        result = record_grade(self.assignment, self.db_url, self.todo[student], result, self.on_graded)
        if result.status is Status.ERROR:
            if disk_full(result.reason):
                self.stop = result.reason
            elif result.reason.startswith(GRADEBOOK_FAULT) and student not in self.gradebook_retried:
                # its transaction was cut (a PostgreSQL server restarted, a lock held past the busy timeout):
                # graded again once, in the next round, on a fresh connection
                self.gradebook_retried.add(student)
                print(f"  {student}: {result.reason}; graded again", flush=True)
                return
        self.record(student, result)

    def record(self, student: str, result: StudentResult) -> None:
        self.done[student] = result
        self.pending.remove(student)
        self.progress.advance(result)


def grade_all(
    assignment: Assignment,
    db_url: str,
    students: dict[str, Path],
    options: BatchOptions,
    progress: Progress | None = None,
    grading: GradingOptions | None = None,
    on_graded=None,
    pool: ProcessPoolExecutor | None = None,
    say=print,
    canary=None,
    after_canary=None,
) -> BatchOutcome:
    """Grade ``students`` (id -> submission folder); results come back in student order.  ``grading``:
    the run's options, by default ``options.grading`` of the course's config; ``pool``: the run's local worker
    processes (:func:`worker_pool`), by default started here.

    ``canary(beside)``: the canary's grading, to be passed before anything of a student is recorded (it raises
    :exc:`~autograder.grading.canary.CanaryFailed` if not); on local processes it runs beside the first students
    (:mod:`.beside`), whose grading is taken back exactly if it fails, or if anything stops the run before it
    passed; on a cluster, for more students than workers (its own process would cost more CPU than its wait
    costs the class) or with ``c.KitConfig.canary_beside = False``, it runs first.  ``after_canary()``: what must be
    done once it passed, before a student is recorded.

    ``on_graded(result)`` sees each student's final result before their state file is written (the run
    history records it there), so a student the state calls graded was always recorded."""
    start = time.monotonic()
    grading = grading or options.grading(assignment.course.config)
    outcome = BatchOutcome()
    done: dict[str, StudentResult] = {}
    todo: dict[str, dict] = {}
    inputs = grading_inputs(assignment, grading)
    moved: dict[str, list[str]] = {}  # what changed -> the students regraded for it
    for student, folder in students.items():
        key = {"fingerprint": fingerprint(folder), "inputs": inputs}
        state = load_state(assignment, student)
        if not options.force and state and state.get("fingerprint") == key["fingerprint"]:
            if same_inputs(state.get("inputs"), inputs):
                result = StudentResult.from_dict(state["result"])
                result.status = Status.SKIPPED if result.status is Status.GRADED else result.status
                done[student] = result
                outcome.skipped += 1
                continue
            why = "; ".join(input_changes(state.get("inputs"), inputs)) or "grading inputs not recorded before"
            moved.setdefault(why, []).append(student)
        todo[student] = key
    for why, regraded in moved.items():
        say(f"regrading {len(regraded)} unchanged submission(s): changed since their last grading: {why}")
    progress = progress or Progress(total=len(todo), quiet=True)
    progress.start(len(todo), skipped=outcome.skipped)

    gate = None
    alone = options.scheduler or not grading.canary_beside or len(todo) > max(1, grading.jobs)
    if canary is not None and not todo:  # nobody to grade (all unchanged): no grade for the canary to guard
        if after_canary is not None:
            after_canary()
    elif canary is not None and alone:  # before any student (more students than workers: a process fewer is worth
        canary(False)  # more than the canary's wait)
        if after_canary is not None:
            after_canary()
    elif canary is not None:
        gate = Gate(lambda: canary(True), untouched(assignment, list(todo), db_url) if todo else {}, after_canary)
    if options.scheduler:
        _grade_on_dask(assignment, db_url, todo, options, grading, progress, done, on_graded)
    else:
        try:
            LocalPool(assignment, db_url, todo, grading, progress, done, on_graded, options.worker_deadline, gate).run(
                pool
            )
        except BaseException:
            if gate is not None and not gate.released:  # nothing of a student recorded: what was graded, undone
                undone = gate.undo_started(assignment, db_url)
                if undone:
                    say(f"taken back: the grading of {', '.join(undone)}, begun beside the canary")
            raise
    progress.finish()
    outcome.results = [done[s] for s in students]
    outcome.graded = sum(r.status is Status.GRADED for r in outcome.results)
    outcome.failed = sum(r.status is Status.FAILED for r in outcome.results)
    outcome.errors = sum(r.status is Status.ERROR for r in outcome.results)
    outcome.stopped = next((r.reason for r in outcome.results if r.status is Status.ERROR and disk_full(r.reason)), "")
    outcome.seconds = time.monotonic() - start
    return outcome
