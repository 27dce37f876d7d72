"""One grading of an assignment at a time: two `grade` runs started together on one course, as two terminals or
a scheduled run meeting a manual one would.  One grades; the other says in one line who holds the assignment's
lock (process, machine, since when) and exits 2, having recorded nothing: no run in the history, no grade, no
grades.csv of its own.  `export` and `restore-gradebook` meanwhile are refused the same way; with `--wait`, a
second `grade` waits and then runs.  Real nbgrader, real kernels."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time

from autograder.classroom.history.history import History
from autograder.course import ASSIGNMENT
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import ENV, lingering, make_class

LESSON = "03_sinusoidal"


def start(course, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "autograder", *args, "--course-dir", str(course)],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_runs_started_together_one_grades_the_other_names_the_lock_and_records_nothing(tmp_path):
    course = tmp_path / "course"
    db_url = make_class(
        course, {s: {LESSON: persona_notebooks(p)[LESSON]} for s, p in (("ada", "reference"), ("ben", "stub"))}
    )
    runs = [start(course, "grade", ASSIGNMENT, "--jobs", "1", "--force") for _ in range(2)]
    pids = [run.pid for run in runs]
    outcomes = [run.communicate(timeout=600) for run in runs]
    codes = [run.returncode for run in runs]
    assert sorted(codes) == [0, 2], (codes, outcomes)
    winner, loser = (0, 1) if codes[0] == 0 else (1, 0)
    told = outcomes[loser][1].strip().splitlines()
    assert len(told) == 1, told
    assert re.fullmatch(
        rf"grade: 'embeddings' is being worked on by another run: `autograder grade embeddings`, process "
        rf"{pids[winner]} on {re.escape(socket.gethostname())}, since \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d UTC "
        r"\(lock file .*\); wait for it to end, or run again with --wait",
        told[0],
    ), told
    assert "grading" not in outcomes[loser][0], outcomes[loser][0]  # it stopped before anything
    with History(db_url) as history:
        recorded = history.runs(ASSIGNMENT)
    assert [r.students for r in recorded] == [2], recorded  # the winner's run alone
    assert (course / "grades.csv").read_text().count("\n") == 3  # its header and its two students

    # while a run holds the lock: export and restore-gradebook are refused too; grade --wait waits, then runs. The
    # holder lingers in ada's notebook (a right solution that sleeps 8 s), so that it still holds the lock when the
    # two commands, started together, ask for it, however fast the grading and however loaded the machine
    write_submission(course, "ada", lingering({LESSON: persona_notebooks("reference")[LESSON]}, seconds=8))
    holder = start(course, "grade", ASSIGNMENT, "--jobs", "1", "--force")
    lock = course / f".gradebook.db.{ASSIGNMENT}.lock"
    deadline = time.monotonic() + 120
    while str(holder.pid) not in (lock.read_text() if lock.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.1)
    waiting = start(course, "grade", ASSIGNMENT, "--jobs", "1", "--wait")
    asked = {"export": start(course, "export", ASSIGNMENT), "restore-gradebook": start(course, "restore-gradebook")}
    answers = {name: (run, run.communicate(timeout=120)[1]) for name, run in asked.items()}
    holder_out = holder.communicate(timeout=600)
    waiting_out = waiting.communicate(timeout=600)
    for name, (refused, told) in answers.items():
        assert refused.returncode == 2 and f"process {holder.pid}" in told, (name, told)
        assert told.startswith(f"{name}: ") and told.count("\n") == 1, told
    assert holder.returncode == 0, holder_out
    assert waiting.returncode == 0 and "skipping 2 submission(s)" in waiting_out[0], waiting_out
    with History(db_url) as history:
        assert [r.students for r in history.runs(ASSIGNMENT)] == [2, 2, 0]


def test_on_postgresql_the_lock_is_the_servers_and_names_its_holder(tmp_path, postgres):
    """With a PostgreSQL gradebook the lock is an advisory lock of the server's, so it holds across machines: held
    here (as another machine's run would hold it), `grade` and `export` say who holds it (from the kit's row
    beside the lock) and exit 2; once it is let go, the next taker has it at once."""
    from autograder.classroom.run.grading_lock import grading_lock

    from .conftest import scratch_course

    course = tmp_path / "course"
    scratch_course(course)
    with grading_lock(postgres, ASSIGNMENT, "autograder grade embeddings (elsewhere)"):
        for command in (["grade", ASSIGNMENT], ["export", ASSIGNMENT]):
            told = subprocess.run(
                [sys.executable, "-m", "autograder", *command, "--course-dir", str(course), "--db-url", postgres],
                env=ENV,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert told.returncode == 2 and told.stderr.count("\n") == 1, told.stderr
            assert f"`autograder grade embeddings (elsewhere)`, process {os.getpid()} on {socket.gethostname()}" in (
                told.stderr
            ), told.stderr
            assert "advisory lock" in told.stderr, told.stderr
    with grading_lock(postgres, ASSIGNMENT, "a second taker, once it is free"):
        pass
