"""Grading on a real Dask cluster (`dask scheduler`, two `dask worker`s) against a PostgreSQL gradebook.

Each process of the cluster runs in an empty folder of its own, never the course folder: the course
reaches the workers only through the tasks.  The class is graded the same on the cluster as by the
local pool, a worker killed mid-student loses nothing, and a task whose grading process hangs inside a
live worker is stopped at its deadline and graded again elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course import ASSIGNMENT, Course
from autograder.devtools.demo import hung_in_backward, persona_notebooks

from .audit import LESSON, assert_audited, probe_notebook, report_of
from .conftest import BIN, ENV, kit, make_class, per_test, postgres_server, scores


def handed_in(persona, *notebooks: str) -> dict:
    """The notebooks of ``persona`` (as ``persona_notebooks`` takes it) that the student hands in, the others not."""
    made = persona_notebooks(persona)
    return {name: made[name] for name in notebooks}


# the student out of time sleeps in Embedding.backward: the demo's "hangs" spins a core in a busy loop until the
# cell timeout stops it; a sleep ends the same way (the timeout interrupts the kernel) and leaves the two cores to the
# other tests (the busy loop burned 60-90 s of CPU here, one cell timeout in the local run and one or two on the cluster)
ASLEEP = "        __import__('time').sleep(3600)\n"


# One student per way a student's grading can end, each of which crosses from a worker to the instructor
# differently: full marks, nothing implemented, a diagnosed mistake, a notebook out of time, an unreadable
# file. (More misconceptions would show the hidden checks again, which run the same on a worker.) Only ada hands
# in every lesson (full marks needs them all); the others hand in the lesson their way of ending is in (oz a
# readable one besides), as the count of reference notebooks graded around it proves nothing here.
CLASS = {
    "ada": "reference",
    "ben": handed_in("stub", "01_why_position"),
    "eli": handed_in(["scatter-overwrite"], "02_token_embeddings"),
    "max": {LESSON: hung_in_backward(ASLEEP)},
    "oz": handed_in("broken-file", "01_why_position", "04_learned_positions"),
    "pia": {LESSON: probe_notebook()},  # the sandbox audit's probe (tests/audit.py), in a Dask worker's kernel
}
BUDGET = ["--notebook-budget", "20", "--cell-timeout", "10"]  # the hanging student costs one short budget
# the hung-grading test's course's c.KitConfig.hung_grace (the kit's default is 30 s): what it waits out. Not 10 s, as
# test_faults' local pool has: a task's grading process on a worker is a fresh one, and at load 10-17 on the shared
# 2-core machine ada's honest grading went 20 s without a beat twice (imports before its first one) and ended `error`
GRACE = 20
# the class test's time limits: the hanging student (max) costs one cell timeout in the local run and one (or, caught
# by the killed first run, two) on the cluster, so it is paid two or three times. The slowest honest notebook is pia's,
# the sandbox audit's probe, which walks every file the sandbox shows: 1.1 s in a kernel on a quiet machine, and over
# 15 s in a CI run (cell timeouts of 8 s, then of 15 s at d82efd7, cut it short in the local run, in its walk of every
# file: 'NameError' locally against 'crashed' on the cluster, the comparison failed). The budget counts from before a
# notebook's kernel starts. The hung and killed tests keep BUDGET: the hung watch's silence is BUDGET's cell timeout
CLASS_BUDGET = ["--notebook-budget", "40", "--cell-timeout", "30"]


def on_cluster(course: Path, cluster, db_url: str, *more: str) -> list[str]:
    """``autograder grade``'s arguments for ``course`` graded on ``cluster`` into the gradebook at ``db_url``."""
    return ["grade", ASSIGNMENT, "--course-dir", str(course), "--scheduler", cluster.address, "--db-url", db_url, *more]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd: list[str], folder: Path, log: Path) -> subprocess.Popen:
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        cmd, cwd=folder, env=ENV, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )  # its own process group: killing it kills what it started


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


class Cluster:
    def __init__(self, root: Path):
        self.root = root
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.scheduler = start(
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                self.address.rsplit(":", 1)[1],
                "--no-dashboard",
            ],
            root / "scheduler",
            root / "scheduler.log",
        )
        self.workers: dict[str, subprocess.Popen] = {}
        for name in ("worker1", "worker2"):
            self.add_worker(name)
        self.client().wait_for_workers(2, timeout=120)

    def add_worker(self, name: str) -> None:
        port = free_port()
        self.workers[f"tcp://127.0.0.1:{port}"] = start(
            [
                str(BIN / "dask"),
                "worker",
                self.address,
                "--host",
                "127.0.0.1",
                "--worker-port",
                str(port),
                "--nthreads",
                "1",
                "--no-dashboard",
                "--name",
                name,
            ],
            self.root / name,
            self.root / f"{name}.log",
        )

    def client(self):
        from distributed import Client

        if not hasattr(self, "_client"):
            self._client = Client(self.address, timeout="30s")
        return self._client

    def close(self) -> None:
        if hasattr(self, "_client"):
            self._client.close()
        for process in [*self.workers.values(), self.scheduler]:
            stop(process)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("dask"))
    yield c
    c.close()


@pytest.fixture(scope="module")
def gradebooks():
    with postgres_server("dask", ("cluster", "killed", "hung", "refused")) as urls:
        yield urls


def per_test_rows(course: Path) -> list[tuple]:
    return sorted((r["student"], r["notebook"], r["test"], r["points"], r["diagnostic"]) for r in per_test(course))


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def gradebook_rows(db_url: str) -> list[tuple]:
    """(student, notebook, grade) for every grade of the assignment: duplicates would show twice."""
    with Gradebook(db_url) as gb:
        return sorted(
            (s.student.id, nb.name, g.name)
            for s in gb.assignment_submissions(ASSIGNMENT)
            for nb in s.notebooks
            for g in nb.grades
        )


def cluster_runs(remote: Path, cluster, db_url: str) -> tuple[list[str], int, subprocess.CompletedProcess]:
    """The class in ``remote`` graded on ``cluster``: a first run killed once two students are recorded, then the
    run that grades the rest.  Returns the command, how many the first run recorded, and the second run."""
    command = on_cluster(remote, cluster, db_url, *CLASS_BUDGET)
    # the instructor's process killed mid-run (its tasks still running on the cluster) ...
    first = subprocess.Popen(
        [sys.executable, "-m", "autograder", *command],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    state = remote / ".kit" / ASSIGNMENT
    deadline = time.monotonic() + 600
    while len(list(state.glob("*.json"))) < 2 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.2)
    first.kill()
    head = first.communicate()[0]
    assert f"Dask scheduler {cluster.address}: 2 worker(s); dashboard" in head
    kept = len(list(state.glob("*.json")))
    assert 2 <= kept < len(CLASS), head
    # ... the next run grades only whoever has no state file yet
    result = kit(*command)
    assert f"skipping {kept} submission(s)" in result.stdout
    return command, kept, result


def test_a_cluster_grades_a_class_as_the_local_pool_does(tmp_path, cluster, gradebooks):
    local, remote = tmp_path / "local" / "course", tmp_path / "remote" / "course"
    make_class(local, CLASS)
    make_class(remote, CLASS)
    # the local run goes on meanwhile, on one worker (its hanging student's cell timeout waited out beside the
    # cluster's, not after it); what it says goes to a file, read once it has ended
    local_log = tmp_path / "local-grade.log"
    with local_log.open("w") as log:
        alongside = subprocess.Popen(
            [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(local), "--jobs", "1"]
            + CLASS_BUDGET,
            env=ENV,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        command, kept, result = cluster_runs(remote, cluster, gradebooks["cluster"])
    except BaseException:
        alongside.kill()  # the test failed on the cluster's side: the local run is not waited for
        raise
    finally:
        alongside.wait(timeout=600)
    assert alongside.returncode == 0, local_log.read_text()[-3000:]
    assert sum(f"graded {s}:" in result.stdout or f"FAILED {s}:" in result.stdout for s in CLASS) == len(CLASS) - kept
    assert scores(remote) == scores(local)
    assert scores(remote)["ada"] == 100 and scores(remote)["ben"] == 0
    assert per_test_rows(remote) == per_test_rows(local)
    # the instructor keeps the same files, where a local run leaves them
    for step in ("autograded", "feedback"):
        assert files_under(remote / step) == files_under(local / step)
    assert (remote / "feedback" / "ada" / ASSIGNMENT / "01_why_position.html").exists()
    # the sandbox audit: a Dask worker's kernel gives the report the local pool's does, and every path's
    assert report_of(remote, "pia") == report_of(local, "pia")
    assert_audited(report_of(remote, "pia"))
    # the workers saw no course folder: nothing of the course was left in their working folders
    for name in ("worker1", "worker2"):
        assert not any((cluster.root / name).rglob("*.ipynb"))
    # a second run resumes from the state files: nothing is graded again
    again = kit(*command)
    assert f"skipping {len(CLASS)} submission(s)" in again.stdout
    assert len({row[0] for row in gradebook_rows(gradebooks["cluster"])}) == len(CLASS)


def test_sqlite_gradebook_is_refused_on_a_cluster(tmp_path, cluster):
    """Dask's own DASK_SCHEDULER_ADDRESS picks the cluster too; a SQLite gradebook cannot travel there."""
    course = tmp_path / "course"
    make_class(course, {"ada": "stub"})
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course)],
        env=dict(ENV, DASK_SCHEDULER_ADDRESS=cluster.address),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2
    assert f"--scheduler {cluster.address}: a Dask run needs a gradebook every worker reaches" in result.stderr
    assert "--db-url postgresql://" in result.stderr
    assert not (course / "autograded").exists()


GRADER = b"autograder.classroom.run.dask_pool"  # a worker's grading process: python -m <this>


class GraderStopper(threading.Thread):
    """Stops (SIGSTOP) the grading process that grades ``victim`` on the cluster, once it has autograded a
    notebook (part of its grading is in the gradebook): the worker's child, not the worker, whose heartbeat
    goes on, as a grading stuck on a lock or a dead mount. Never continued; ``times`` processes at most."""

    def __init__(self, cluster: Cluster, victim: str, times: int):
        super().__init__(daemon=True)
        self.cluster, self.victim, self.times = cluster, victim, times
        self.stopped: list[int] = []
        self.workers: list[int] = []  # the process group (the `dask worker`) of each one stopped
        self.stop = False

    def graders(self):
        """(pid, working folder, worker) of every grading process of this cluster's workers (their process groups).
        A grading process's own child, between its fork and its exec, bears the same command line and folder: it is
        not one (stopping it would stop the same grading twice)."""
        groups = {p.pid for p in self.cluster.workers.values()}
        for entry in Path("/proc").iterdir():
            try:
                if not entry.name.isdigit() or os.getpgid(int(entry.name)) not in groups:
                    continue
                parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                if (
                    GRADER in (entry / "cmdline").read_bytes()
                    and GRADER not in Path(f"/proc/{parent}/cmdline").read_bytes()
                ):
                    yield int(entry.name), Path(os.readlink(entry / "cwd")), os.getpgid(int(entry.name))
            except OSError:
                continue

    def run(self):
        while not self.stop and len(self.stopped) < self.times:
            for pid, cwd, worker in self.graders():
                if pid in self.stopped or not cwd.name.startswith(f"kit-{self.victim}-"):
                    continue  # the scratch course a task grades in is kit-<student>-...
                with_notebook = any(Course(cwd).folder("autograded", ASSIGNMENT, self.victim).glob("*.ipynb"))
                if with_notebook and len(self.stopped) < self.times:
                    os.kill(pid, signal.SIGSTOP)
                    self.stopped.append(pid)
                    self.workers.append(worker)
            time.sleep(0.05)


def test_a_grading_hung_inside_a_live_worker_is_found_without_progress_and_graded_elsewhere(
    tmp_path, cluster, gradebooks
):
    """vic's grading process stopped once, zed's every time, inside workers that still answer their heartbeat:
    once it has made no progress for the cell timeout and the course's grace (10 + 20 s: c.KitConfig.hung_grace, 30 s
    by default), each is killed, what it wrote removed and the student sent to the other worker; vic is
    graded there as ada (the same submission, never stopped), zed ends `error` with nothing of it recorded."""
    same = handed_in("reference", "01_why_position", "02_token_embeddings")
    students = {"vic": same, "zed": same, "ada": same, "ben": handed_in("stub", "01_why_position")}
    course = tmp_path / "course"
    make_class(course, students)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write(f"\nc.KitConfig.hung_grace = {GRACE}\n")
    silence = 10 + GRACE  # BUDGET's cell timeout and the grace: no step of an honest grading is that quiet
    stoppers = [GraderStopper(cluster, "vic", times=1), GraderStopper(cluster, "zed", times=2)]
    for stopper in stoppers:
        stopper.start()
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "autograder",
            *on_cluster(course, cluster, gradebooks["hung"], *BUDGET),
        ],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        started = time.monotonic()
        out, err = run.communicate(timeout=600)  # without the watch, it waits for the deadline (120 + 3 x 5 x 20 s)
        took = time.monotonic() - started
    finally:
        run.kill()
        for stopper in stoppers:
            stopper.stop = True
            stopper.join(5)
            for pid in stopper.stopped:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    assert [len(s.stopped) for s in stoppers] == [1, 2], out
    assert len(set(stoppers[1].workers)) == 2  # zed's retry went to the other worker
    assert run.returncode == 1, out + err  # zed is the kit's error
    for student, times in (("vic", 1), ("zed", 2)):
        assert out.count(f"{student}: its grading on worker tcp://") == times, out
    assert re.search(r"made no progress for (\d+) s \(the cell timeout and a grace\): stopped", out), out
    waited = [int(s) for s in re.findall(r"made no progress for (\d+) s", out)]
    assert all(silence <= s < 10 + 30 for s in waited), out  # the course's grace, not the kit's default of 30 s
    assert "ERROR zed: not graded: its grading worker hung twice" in out, out
    assert took < 300, took
    got = scores(course)
    assert "zed" not in got and got["vic"] == got["ada"] > 0 and got["ben"] == 0, got
    tests = per_test_rows(course)
    assert [r[1:] for r in tests if r[0] == "vic"] == [r[1:] for r in tests if r[0] == "ada"] != []
    assert files_under(course / "autograded" / "vic") == files_under(course / "autograded" / "ada")
    assert not (course / "autograded" / "zed").exists() and not (course / "feedback" / "zed").exists()
    rows = gradebook_rows(gradebooks["hung"])
    assert len(rows) == len(set(rows)) and {r[0] for r in rows} == {"vic", "ada", "ben"}
    assert sorted(r[1:] for r in rows if r[0] == "vic") == sorted(r[1:] for r in rows if r[0] == "ada")


def test_a_worker_killed_mid_student_loses_nothing(tmp_path, cluster, gradebooks):
    students = {
        "ada": "reference",  # the longest (every lesson): the worker grading it is the one killed
        "ben": handed_in("stub", "01_why_position"),
        "eli": handed_in(["scatter-overwrite"], "02_token_embeddings"),
        "pia": handed_in(["positions-by-token"], "05_embedding_layer"),
    }
    course = tmp_path / "course"
    make_class(course, students)
    run = subprocess.Popen(
        [sys.executable, "-m", "autograder", *on_cluster(course, cluster, gradebooks["killed"], *BUDGET)],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    client = cluster.client()
    deadline, victim = time.monotonic() + 120, None
    while victim is None and time.monotonic() < deadline:
        busy = [
            w for w, keys in client.processing().items() if w in cluster.workers and any("-ada-" in k for k in keys)
        ]
        if busy:
            time.sleep(3)  # well inside ada's grading (five lessons: several seconds each)
            victim = busy[0]
        else:
            time.sleep(0.2)
    assert victim, "no worker ever started grading"
    os.killpg(cluster.workers[victim].pid, signal.SIGKILL)
    cluster.workers.pop(victim).wait()
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    assert all(f"graded {s}:" in out for s in students), out
    assert sorted(scores(course)) == sorted(students)
    assert scores(course)["ada"] == 100 and scores(course)["ben"] == 0
    rows = gradebook_rows(gradebooks["killed"])
    assert len(rows) == len(set(rows)) and {r[0] for r in rows} == set(students)
    with Gradebook(gradebooks["killed"]) as gb:
        assert sorted(s.student.id for s in gb.assignment_submissions(ASSIGNMENT)) == sorted(students)
    assert victim not in client.scheduler_info()["workers"]  # the worker really died, and the class was finished


def test_workers_of_another_kit_version_or_without_a_sandbox_are_refused(tmp_path, cluster, gradebooks):
    import shutil

    from .conftest import REPO

    strange = tmp_path / "strange"
    shutil.copytree(REPO / "autograder", strange / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    with open(strange / "autograder" / "course.py", "a") as f:
        f.write("# a later version of the kit\n")
    before = set(cluster.client().scheduler_info()["workers"])
    strangers = {}
    for name, env in {
        "strange-version": dict(ENV, PYTHONPATH=str(strange)),
        "no-bwrap": dict(ENV, PATH=str(BIN)),
    }.items():
        port = free_port()
        strangers[name] = subprocess.Popen(
            [
                str(BIN / "dask"),
                "worker",
                cluster.address,
                "--host",
                "127.0.0.1",
                "--worker-port",
                str(port),
                "--nthreads",
                "1",
                "--no-dashboard",
                "--name",
                name,
            ],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        cluster.client().wait_for_workers(len(before) + 2, timeout=120)
        course = tmp_path / "course"
        make_class(course, {"ada": "reference"})
        result = kit(*on_cluster(course, cluster, gradebooks["refused"]), check=False)
        assert result.returncode == 2, result.stdout
        assert "refusing to grade on this cluster" in result.stderr
        assert "runs kit" in result.stderr and "cannot sandbox: bubblewrap (bwrap) is not installed" in result.stderr
        assert not (course / "autograded").exists()
    finally:
        for process in strangers.values():
            stop(process)
