"""Faults on the kit's own side cost a retry or a stopped run, never a student's grade.

A grading worker killed mid-batch (as the OOM killer or an administrator would), and a course disk that
fills up mid-run, each on a small class graded with the kit's real `grade` (local pool, real nbgrader,
real kernels).
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from autograder import scratch
from autograder.course import ASSIGNMENT, Course
from autograder.devtools.personas import write_submission
from autograder.sandbox import cgroups, leftovers

from .conftest import (
    ENV,
    kernels_of_server,
    lingering,
    new_course,
    per_test,
    read_only,
    reference_submission,
    scratch_course,
    small_file_system,
    stub_submission,
)


def grades(course: Path) -> dict[str, tuple[float, str]]:
    """student -> (score, timestamp) from grades.csv."""
    with open(course / "grades.csv", newline="") as f:
        return {r["student_id"]: (float(r["score"] or 0), r["timestamp"]) for r in csv.DictReader(f)}


def submitted(course: Path) -> set[str]:
    """The students with a submission in the gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {s.student.id for s in gb.find_assignment(ASSIGNMENT).submissions}


def has_a_notebook(folder: Path) -> bool:
    """Whether ``folder`` holds an autograded notebook; one the run removes while it is looked into (it does, as it
    grades a student anew) holds none yet."""
    try:
        return any(folder.glob("*.ipynb"))
    except OSError:
        return False


class WorkerKiller(threading.Thread):
    """Kills (SIGKILL) the grading worker process that grades ``victim``, once it has autograded a notebook
    (so that part of its grading is in the gradebook): once, or every time (``times``)."""

    def __init__(self, course: Path, victim: str, times: int):
        super().__init__(daemon=True)
        self.note = Course(course).in_flight_note(ASSIGNMENT, victim)
        self.autograded = Course(course).folder("autograded", ASSIGNMENT, victim)
        self.times, self.killed, self.stop = times, [], False

    def worker(self) -> int | None:
        try:
            pid = int(self.note.read_text())
        except (OSError, ValueError):
            return None
        return pid if pid not in self.killed else None

    def run(self):
        while not self.stop and len(self.killed) < self.times:
            pid = self.worker()
            if pid and has_a_notebook(self.autograded):
                os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)
            time.sleep(0.05)


def left_by(pids: list[int]) -> list:
    """What processes ``pids`` made that is still there: the kit's temporary folders and cgroups, and the processes
    whose command names one of those folders (a sandbox)."""

    def made_by_them(name: str) -> bool:
        return bool(found := scratch.NAME.match(name)) and int(found.group(2)) in pids

    folders = [folder / name for folder in {Path(tempfile.gettempdir()), scratch.FIXED} for name in os.listdir(folder)]
    folders += [parent / name for parent in cgroups._parents() if parent.is_dir() for name in os.listdir(parent)]
    processes = [
        (pid, command[:3])
        for pid, (_, command) in leftovers.processes().items()
        if any(made_by_them(part) for argument in command for part in argument.split("/"))
    ]
    return [folder for folder in folders if made_by_them(folder.name)] + processes


def grade(
    course: Path,
    *args: str,
    killer: WorkerKiller | None = None,
    command: str = "grade",
    timeout: float = 1200,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    if killer:
        killer.start()
    try:
        where = [ASSIGNMENT] if command == "grade" else []
        return subprocess.run(
            [sys.executable, "-m", "autograder", command, *where, "--course-dir", str(course), *args],
            env={**ENV, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        if killer:
            killer.stop = True
            killer.join(5)


def test_a_killed_worker_costs_a_retry_and_never_another_students_grade(tmp_path):
    """Each student hands in two lessons (40 points of the reference): the victim's worker is killed once a first
    notebook of theirs is graded, with the second still to grade; five lessons would show nothing more."""
    course = new_course(tmp_path / "course")
    two = list(reference_submission())[:2]
    write_submission(course, "alice", {k: v for k, v in reference_submission().items() if k in two})
    write_submission(course, "bob", {k: v for k, v in stub_submission().items() if k in two})
    write_submission(course, "victim", {k: v for k, v in reference_submission().items() if k in two})
    killer = WorkerKiller(course, "victim", times=1)
    result = grade(course, "--jobs", "2", killer=killer)
    assert len(killer.killed) == 1, result.stdout[-3000:]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert {s: score for s, (score, _) in grades(course).items()} == {"alice": 40, "bob": 0, "victim": 40}
    assert not left_by(killer.killed)  # its folders, sandboxes, cgroups: swept by the run
    assert "FAILED" not in result.stdout and "ERROR" not in result.stdout, result.stdout[-3000:]

    # a submission whose grading kills its worker every time: retried alone once, then not graded (error) with that
    # reason; the others are graded as before, and nothing of the victim's killed gradings is left as a score
    killer = WorkerKiller(course, "victim", times=5)
    result = grade(course, "--jobs", "2", "--force", killer=killer)
    assert len(killer.killed) == 2, result.stdout[-3000:]
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]  # a student in error: cron notices
    line = next(line for line in result.stdout.splitlines() if "ERROR victim" in line)
    assert "killed the grading worker process twice" in line, line
    assert not left_by(killer.killed)
    after = grades(course)
    assert after["alice"][0] == 40 and after["bob"][0] == 0
    assert after.get("victim", (0, ""))[0] == 0 and not after.get("victim", (0, ""))[1], after  # no score or submission
    assert "victim" not in submitted(course)
    assert not Course(course).folder("autograded", ASSIGNMENT, "victim").exists()
    # the kit cannot tell its grading from a kill from outside: the next run grades the student again
    again = grade(course, "--jobs", "2")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert grades(course)["victim"][0] == 40, again.stdout[-3000:]


def test_grade_killed_alone_leaves_nothing_running_and_the_next_run_sweeps_the_rest(tmp_path):
    """`grade` itself killed (SIGKILL, its process only: the OOM killer's way) in the middle of a student: every
    process it started (workers, fork servers, sandboxes, kernels) ends within seconds, and the next run grades the
    class and leaves nothing of the killed run behind."""
    course = new_course(tmp_path / "course")
    two = list(reference_submission())[:2]
    for student in ("alice", "bob"):
        write_submission(course, student, {k: v for k, v in reference_submission().items() if k in two})
    run = subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    autograded = Course(course).folder("autograded", ASSIGNMENT, "alice")
    deadline = time.monotonic() + 300
    while not has_a_notebook(autograded) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    started = leftovers.descendants({run.pid})
    assert run.poll() is None and started, "the run ended before it could be killed"
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 30
    while any(map(scratch.alive, started)) and time.monotonic() < deadline:
        time.sleep(0.1)
    running = {pid: leftovers.processes().get(pid, (0, ["?"]))[1][:3] for pid in started if scratch.alive(pid)}
    assert not running, running

    result = grade(course, "--jobs", "2")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert {s: score for s, (score, _) in grades(course).items()} == {"alice": 40, "bob": 40}
    assert not left_by([run.pid, *started])


def test_a_full_disk_stops_the_run_whole_and_a_rerun_goes_on(tmp_path):
    with small_file_system(tmp_path / "disk", 24) as disk:
        course = new_course(disk / "course")
        write_submission(course, "s1", reference_submission())
        write_submission(course, "s2", reference_submission())
        write_submission(course, "s3", stub_submission())
        ballast = disk / "ballast.bin"
        free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
        with open(ballast, "wb") as f:  # room for the gradebook copy (0.5 MiB) and one grading (2.3 MiB), not two
            f.write(b"\0" * (free - int(3.7 * 2**20)))
        result = grade(course, "--jobs", "1")
        out = result.stdout + result.stderr
        assert result.returncode == 1, out[-3000:]
        assert "STOPPED: the disk holding the course is full" in result.stdout, out[-3000:]
        assert "ERROR s2: not graded: the disk holding the course is full" in result.stdout, out[-3000:]
        assert "Traceback" not in out
        # s1 is whole; s2 (in flight) and s3 (not started) are not graded and left no trace
        assert submitted(course) == {"s1"}
        state = Course(course).root / ".kit" / ASSIGNMENT
        assert sorted(p.name for p in state.glob("*.json")) == ["s1.json"]
        if (course / "grades.csv").exists():
            assert {s: score for s, (score, _) in grades(course).items()} == {"s1": 100}
        assert not Course(course).folder("autograded", ASSIGNMENT, "s2").exists()

        ballast.unlink()
        result = grade(course, "--jobs", "1")
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        assert "skipping 1 submission(s)" in result.stdout
        assert {s: score for s, (score, _) in grades(course).items()} == {"s1": 100, "s2": 100, "s3": 0}


def one_line(result: subprocess.CompletedProcess, starts: str) -> str:
    """The one line ``grade`` (exit 2) printed for a fault of the gradebook or the course folder: no
    driver's text, no traceback, and the log it names holds the full error."""
    assert result.returncode == 2, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(starts), result.stderr[-3000:]
    for raw in ("[SQL", "[parameters", "sqlalche.me", "Traceback", "sqlite3."):
        assert raw not in result.stdout + result.stderr, result.stderr[-3000:]
    log = Path(lines[0].rsplit("(details: ", 1)[1].rstrip(")"))
    assert "Error" in log.read_text(), log
    return lines[0]


def test_a_damaged_gradebook_or_read_only_course_is_named_in_one_line_and_the_copy_restores_it(killed_server_course):
    """Before each run the gradebook is checked and copied (SQLite's online backup, the last few kept);
    damaged, it is named with the copy and the command that restores it; a read-only course folder is
    named. Neither records a grade or touches grades.csv. Cost: seconds (it goes on from the course graded above)."""
    from autograder.classroom.run.gradebook_guard import KEEP, back_up, backups

    course, result, _ = killed_server_course
    scores = {s: score for s, (score, _) in grades(course).items()}
    assert {"alice": 100, "bob": 100, "carl": 100}.items() <= scores.items(), (
        result.stdout[-3000:] + result.stderr[-3000:]
    )
    assert submitted(course) == {"alice", "bob", "carl"}  # victim's kernel killed on every try: no submission, no grade
    grades_csv = (course / "grades.csv").read_bytes()
    assert len(backups(course)) == 1

    with open(course / "gradebook.db", "r+b") as f:  # its header and first page overwritten
        f.write(os.urandom(4096))
    line = one_line(
        grade(course, "--jobs", "1", "--force"), f"grade: the gradebook {course / 'gradebook.db'} is damaged"
    )
    assert str(backups(course)[0]) in line and "python -m autograder restore-gradebook" in line, line
    assert (course / "grades.csv").read_bytes() == grades_csv
    restored = grade(course, command="restore-gradebook")
    assert restored.returncode == 0 and "restored" in restored.stdout, restored.stdout + restored.stderr
    assert submitted(course) == set()  # the copy made before alice's grading, readable again
    assert not Course(course).state_file(ASSIGNMENT, "alice").exists()  # so the next run grades her again

    with read_only(course):
        line = one_line(grade(course, "--jobs", "1", "--force"), f"grade: the course folder {course} is read-only")
    assert (course / "grades.csv").read_bytes() == grades_csv

    for _ in range(KEEP + 2):  # the copies are bounded in number
        back_up(course, f"sqlite:///{course / 'gradebook.db'}")
    assert len(backups(course)) == KEEP


class ServerKiller(WorkerKiller):
    """Kills (SIGKILL) the fork server of the grading worker that grades ``victim``, a moment after it has forked
    a kernel that runs the student's code, with the kernels it forked (they are its children, and carry its
    command line: what ``pkill -f forkserver.py`` kills), ``times`` times (each time the server started again)."""

    def server(self) -> int | None:
        try:
            worker = int(self.note.read_text())
            children = Path(f"/proc/{worker}/task/{worker}/children").read_text().split()
        except (OSError, ValueError):
            return None
        for pid in map(int, children):
            try:
                if b"forkserver.py" in Path(f"/proc/{pid}/cmdline").read_bytes() and pid not in self.killed:
                    return pid if kernels_of_server(pid) else None
            except OSError:
                continue
        return None

    def run(self):
        while not self.stop and len(self.killed) < self.times:
            pid = self.server()
            if pid:
                time.sleep(0.3)  # the kernel it forked is running a cell
                for victim in [pid, *kernels_of_server(pid)]:
                    with contextlib.suppress(OSError):
                        os.kill(victim, signal.SIGKILL)
                self.killed.append(pid)
            time.sleep(0.02)


class PlaceholderKiller(WorkerKiller):
    """Kills (SIGKILL) the sandbox's placeholder (the ``cat`` on the kernel's pipe, whose namespaces a forked
    kernel joins) of the notebook being graded for ``victim``, a moment after its kernel was forked, ``times``
    times: as the OOM killer or an administrator's ``kill`` would, from outside the sandbox."""

    def placeholder(self) -> int | None:
        from autograder.sandbox.forked import ALIVE, _descendants

        try:
            worker = int(self.note.read_text())
        except (OSError, ValueError):
            return None
        found, kernels = [], False
        for pid in _descendants(worker):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            kernels |= b"forkserver.py" in b" ".join(command) and bool(_descendants(pid))
            if len(command) == 3 and command[1].endswith(f"/{ALIVE}".encode()) and pid not in self.killed:
                found.append(pid)
        return min(found) if found and kernels else None  # the oldest: the notebook being run, not one started ahead

    def run(self):
        while not self.stop and len(self.killed) < self.times:
            pid = self.placeholder()
            if pid:
                time.sleep(0.3)  # its kernel is running a cell
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)
            time.sleep(0.02)


class BubblewrapKiller(PlaceholderKiller):
    """Kills (SIGKILL) the bubblewrap process around the placeholder of the notebook being graded for ``victim``,
    ``times`` times: the sandbox's process outside it, which the kernel's code can neither see nor signal."""

    def run(self):
        while not self.stop and len(self.killed) < self.times:
            pid = self.placeholder()
            if pid:
                time.sleep(0.3)  # its kernel is running a cell
                with contextlib.suppress(OSError, ValueError, IndexError):
                    os.kill(int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]), signal.SIGKILL)
                self.killed.append(pid)
            time.sleep(0.02)


@pytest.fixture(scope="module")
def killed_server_course(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess, dict[str, WorkerKiller]]:
    """Four correct submissions graded in one run (shared: the damaged-gradebook test goes on from this course):
    alice's worker's fork server killed with the kernels it forked, twice, mid-notebook; bob's sandbox placeholder
    killed twice mid-notebook, carl's sandbox's bubblewrap twice; victim's fork server killed three times in a row
    (one notebook's first try and both of its reruns: that notebook lingers 4 s in each, as a slow solution would,
    so no kill lands elsewhere)."""
    course = new_course(tmp_path_factory.mktemp("killed-server") / "course")
    for student in ("alice", "bob", "carl"):
        write_submission(course, student, reference_submission())
    write_submission(course, "victim", lingering(reference_submission(), seconds=4))
    killers = {
        "alice": ServerKiller(course, "alice", times=2),
        "bob": PlaceholderKiller(course, "bob", times=2),
        "carl": BubblewrapKiller(course, "carl", times=2),
        "victim": ServerKiller(course, "victim", times=3),
    }
    for other in ("bob", "carl", "victim"):
        killers[other].start()
    try:
        result = grade(course, "--jobs", "1", killer=killers["alice"])
    finally:
        for other in ("bob", "carl", "victim"):
            killers[other].stop = True
            killers[other].join(5)
    return course, result, killers


def test_a_killed_fork_server_or_placeholder_never_costs_a_student_points(killed_server_course):
    """The fork server killed with the kernels it forked while they run (alice), a sandbox's placeholder killed
    (bob; the kernel that joined it dies with it), or its bubblewrap (carl), twice: those deaths are the kit's, so
    each notebook hit is graded again on a fresh kernel (a fresh server), and a correct submission keeps full marks.
    Killed three times on one notebook (victim), the student is `error` with that reason: no grade, no submission
    recorded, the others graded. Cost: one rerun of the notebook per kill."""
    course, result, killers = killed_server_course
    out = result.stdout[-3000:] + result.stderr[-3000:]
    assert {s: len(k.killed) for s, k in killers.items()} == {"alice": 2, "bob": 2, "carl": 2, "victim": 3}, out
    assert "kernel died" not in result.stdout, out
    line = next((line for line in result.stdout.splitlines() if "ERROR victim" in line), "")
    assert "killed on the kit's side" in line, out
    # (the damaged-gradebook test, which runs first, saw that victim has no submission in the gradebook)
    scores = {s: score for s, (score, _) in grades(course).items()}
    full = {"alice": 100, "bob": 100, "carl": 100}
    assert {**full, "victim": 0}.items() >= scores.items() >= full.items()
    assert scores.get("victim", 0) == 0, out


class WorkerStopper(WorkerKiller):
    """Stops (SIGSTOP) the grading worker that grades ``victim`` once it has autograded a notebook, as a
    process stuck on a lock or a dead network mount is; it is never continued."""

    def run(self):
        while not self.stop and not self.killed:
            pid = self.worker()
            if pid and has_a_notebook(self.autograded):
                os.kill(pid, signal.SIGSTOP)
                self.killed.append(pid)
            time.sleep(0.05)


class GradebookLocker(WorkerKiller):
    """Holds the gradebook locked (SQLite's BEGIN EXCLUSIVE, as another program's long transaction) for ``hold``
    seconds, from the moment ``victim``'s grading has autograded a notebook: every grading that writes to the
    gradebook meanwhile is stuck on the lock, making no progress."""

    def __init__(self, course: Path, victim: str, hold: float):
        super().__init__(course, victim, times=1)
        self.db, self.hold = Course(course).gradebook, hold

    def run(self):
        while not self.stop and not self.killed:
            if self.worker() and has_a_notebook(self.autograded):
                con = sqlite3.connect(self.db, timeout=60, isolation_level=None)
                con.execute("BEGIN EXCLUSIVE")
                self.killed.append(0)
                time.sleep(self.hold)
                con.execute("ROLLBACK")
                con.close()
            time.sleep(0.05)


def child_processes(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


class KernelStopper(WorkerKiller):
    """Stops (SIGSTOP) every kernel that the fork server of ``victim``'s first grading worker forks, for as long as
    that worker lives: kernels that never answer again.  A kernel is a child of the fork server in a PID namespace
    of its own (a sandbox's); the server's other children are its handlers, each waiting for the next request, and
    are left alone.  (Stopping once, whatever children the server had at that moment, stopped at times only the
    waiting handler after the worker's last request: nothing hung, and the test failed on a run with no fault.)
    The worker that grades the victim anew, after the watch killed the first, is not touched."""

    def run(self):
        worker = None
        while not self.stop:
            worker = worker or self.worker()
            for server in child_processes(worker) if worker else []:
                with contextlib.suppress(OSError):
                    if b"forkserver" not in Path(f"/proc/{server}/cmdline").read_bytes():
                        continue
                    own = os.readlink(f"/proc/{server}/ns/pid")
                    for kernel in child_processes(server):
                        if kernel not in self.killed and os.readlink(f"/proc/{kernel}/ns/pid") != own:
                            os.kill(kernel, signal.SIGSTOP)
                            self.killed.append(kernel)
            time.sleep(0.05)


CELL_TIMEOUT = 10  # so a grading is presumed hung after 10 s + the grace without progress
GRACE = 10  # the course's c.KitConfig.hung_grace (the kit's default, HUNG_GRACE, is 30 s): what the tests wait out


@pytest.mark.parametrize("fault", ["stopped", "lock", "kernel"])
def test_a_hung_worker_is_found_in_seconds_and_its_student_graded_elsewhere(tmp_path, fault):
    """A worker stopped mid-student (SIGSTOP), stuck on a gradebook another program holds locked, or waiting on
    kernels that never answer (its forked kernels stopped with SIGSTOP): once its
    grading has made no progress for the cell timeout and the course's grace (here 10 + 10 s, c.KitConfig.hung_grace;
    30 s by default), it is killed, its student is
    graded again on a fresh worker, and the other student is graded; nobody ends `error`. Cost: that silence,
    and a regrading of the students in flight. (With only the old deadline, 120 s + 3 x every notebook's
    budget, the stopped run had not ended after 300 s.)

    Both hand in the same two lessons: a grading of them takes a few seconds, so the silence is several times any
    step of an honest grading even on a loaded machine."""
    lessons = dict(list(reference_submission().items())[:2])
    course = new_course(tmp_path / "course")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write(f"\nc.KitConfig.hung_grace = {GRACE}\n")
    write_submission(course, "alice", lessons)
    write_submission(course, "victim", lessons)
    silence = CELL_TIMEOUT + GRACE
    if fault == "stopped":
        fault_thread = WorkerStopper(course, "victim", times=1)
    elif fault == "kernel":
        fault_thread = KernelStopper(course, "victim", times=1)
    else:
        fault_thread = GradebookLocker(course, "victim", hold=silence + 10)
    # on the lock, a canary of its own, never remembered: it is graded beside the two students and is undecided while
    # the lock is held (the run's loop then waits on the gradebook: the watch for hung workers must not wait with it)
    own_canary = {"AUTOGRADER_CANARY_CACHE": str(tmp_path / "canary")} if fault == "lock" else {}
    start = time.monotonic()
    try:
        result = grade(
            course,
            "--jobs",
            "2",
            "--cell-timeout",
            str(CELL_TIMEOUT),
            killer=fault_thread,
            timeout=400,
            env=own_canary,
        )
    finally:
        for pid in fault_thread.killed:  # (without the watch, nothing else would end it)
            if pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    took = time.monotonic() - start
    out = result.stdout[-3000:] + result.stderr[-3000:]
    assert len(fault_thread.killed) >= 1 if fault == "kernel" else len(fault_thread.killed) == 1, out
    assert result.returncode == 0, out
    # stopped: the victim's worker; on the lock, every worker that writes meanwhile is stuck (the first found is named)
    who = "(victim|alice)" if fault == "lock" else "victim"
    said = rf"{who}: its grading worker \(pid \d+\) made no progress for (?P<quiet>\d+) s \(the cell timeout and a "
    found = re.search(said + r"(?P<grace>\d+) s grace\)", result.stdout)
    assert found and int(found["grace"]) == GRACE, out
    assert silence <= int(found["quiet"]) < CELL_TIMEOUT + 30, out  # the course's grace waited out, not the default
    assert took < 240, f"the run took {took:.0f} s\n{out}"
    scores = {s: score for s, (score, _) in grades(course).items()}
    assert scores.keys() == {"alice", "victim"} and scores["victim"] == scores["alice"] > 0, scores
    rows = {(r["student"], r["notebook"], r["test"]): (float(r["points"]), float(r["max"])) for r in per_test(course)}
    handed_in = {key: value for key, value in rows.items() if key[1] in lessons}
    assert handed_in and all(points == top for points, top in handed_in.values()), handed_in  # full marks
    assert {k[1:]: v for k, v in handed_in.items() if k[0] == "victim"} == {
        k[1:]: v for k, v in handed_in.items() if k[0] == "alice"
    }


def test_a_gradebook_error_is_told_without_the_drivers_text(tmp_path):
    """Any gradebook error, at start or while a student is graded, is told in the kit's words: never the SQL,
    its parameters or the driver's link (the full error goes to the log the start-up message names)."""
    import sqlite3

    import sqlalchemy.exc

    from autograder.classroom.run.gradebook_guard import gradebook_fault
    from autograder.grading.faults import exception_fault

    raw = "INSERT INTO grade_run (assignment) VALUES (?)"
    locked = sqlalchemy.exc.OperationalError(raw, ("embeddings",), sqlite3.OperationalError("database is locked"))
    damaged = sqlalchemy.exc.DatabaseError(raw, ("embeddings",), sqlite3.DatabaseError("file is not a database"))
    read_only = sqlalchemy.exc.OperationalError(
        raw, (), sqlite3.OperationalError("attempt to write a readonly database")
    )
    for error in (locked, damaged, read_only):
        for told in (
            exception_fault(error),
            str(gradebook_fault(tmp_path, f"sqlite:///{tmp_path}/gradebook.db", "open", error)),
        ):
            assert "INSERT" not in told and "embeddings" not in told and "sqlalche.me" not in told, told
            assert "\n" not in told and "gradebook" in told, told
    assert "is damaged" in str(gradebook_fault(tmp_path, f"sqlite:///{tmp_path}/gradebook.db", "open", damaged))
    assert f"the course folder {tmp_path} is read-only" in str(
        gradebook_fault(tmp_path, f"sqlite:///{tmp_path}/gradebook.db", "open", read_only)
    )


def test_a_damaged_gradebook_is_named_in_one_line_by_runs_diff_and_export(tmp_path):
    """``runs``, ``diff`` and ``export`` on a gradebook that is not a SQLite file: the line ``grade`` prints for it
    (the copy that restores it, the log holding the driver's error), exit 2, no driver's text.  (Before, each
    printed sqlite3's traceback with the SQL and a sqlalche.me link.)"""
    course = tmp_path / "course"
    scratch_course(course)
    (course / "gradebook.db").write_bytes(os.urandom(4096))
    for command in ("runs", "diff", "export"):
        line = one_line(grade(course, ASSIGNMENT, command=command), f"{command}: the gradebook ")
        assert f"{course / 'gradebook.db'} is damaged or is not a gradebook" in line, line
