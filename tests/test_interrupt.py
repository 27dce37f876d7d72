"""Ctrl-C (SIGINT to the terminal's process group) or SIGTERM (to `grade` alone) ends a run in one line: how many
students it recorded, and that the next `grade` goes on; no traceback, no process left behind, and the next run
grades only the students not yet graded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from autograder.course import ASSIGNMENT
from autograder.devtools.demo import persona_notebooks

from .conftest import ENV, lingering, make_class, scores

CLASS = 8  # students, one lesson each


def interrupted_after_two(course, how: str, ctrl_c: object = signal.SIG_DFL):
    """Start `grade` of the class in ``course`` in a session of its own, its Ctrl-C disposition ``ctrl_c`` (by default
    that of a terminal's foreground job, whatever the suite was started by: a job put in the background of a shell
    ignores SIGINT, and its children inherit that), and send it ``how`` once it has said two students were graded.
    Returns the run, the number graded before the signal, the seconds from the signal to its end, its stdout and
    stderr after the signal, and all it printed, for a failure's message."""
    run = subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2"],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, ctrl_c),
    )
    said, graded = [], 0
    for line in run.stdout:
        said.append(line)
        graded += line.startswith("  graded ")
        if graded == 2:
            break
    stopped_at = time.monotonic()
    if how.startswith("SIGINT"):
        os.killpg(run.pid, signal.SIGINT)
    else:
        os.kill(run.pid, signal.SIGTERM)
    out, err = run.communicate(timeout=120)
    took = time.monotonic() - stopped_at
    # what the run printed, for a failure: which students it graded and how, before the signal and after, both streams
    shown = f"rc {run.returncode}\n{''.join(said)}---- stdout after the signal:\n{out}---- stderr:\n{err}"
    return run, graded, took, out, err, shown


def one_lesson_class(course, linger: float = 0) -> None:
    """CLASS students who hand in the reference's first lesson, its first solution cell waiting ``linger`` seconds."""
    lessons = {k: v for k, v in persona_notebooks("reference").items() if k.startswith("01")}  # one lesson each
    if linger:
        lessons = lingering(lessons, linger)
    make_class(course, {f"s{i}": lessons for i in range(CLASS)})


@pytest.mark.parametrize("how", ["SIGINT to the group", "SIGTERM to grade"])
def test_an_interrupted_run_says_what_it_recorded_in_one_line_and_the_next_goes_on(tmp_path, how):
    course = tmp_path / "course"
    # interrupted after the second is graded: CLASS - 2 still to grade, so that the run is still grading when the
    # signal comes even on a loaded machine (with four left, one CI-like run had finished all of them first: rc 0)
    one_lesson_class(course)
    run, graded, took, out, err, shown = interrupted_after_two(course, how)
    assert graded == 2, f"the run ended before it said two students were graded: {shown}"
    assert run.returncode == 130, shown
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, shown
    recorded = int(lines[0].split("stopped: ", 1)[1].split(" ")[0])
    assert recorded >= 2 and "kept as unfinished" in lines[0] and "goes on with the students not yet graded" in lines[0]
    assert took < 30, took
    gone_by = time.monotonic() + 15  # the pool's resource tracker and a kernel's sandbox take a moment to end
    while left := subprocess.run(["pgrep", "-s", str(run.pid)], capture_output=True, text=True).stdout.split():
        if time.monotonic() > gone_by:
            shown = subprocess.run(["ps", "-o", "pid,stat,cmd", "-p", ",".join(left)], capture_output=True, text=True)
            raise AssertionError(f"left behind:\n{shown.stdout}")
        time.sleep(0.5)

    again = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2"],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"skipping {recorded} submission(s)" in again.stdout, again.stdout[-2000:]
    assert len(scores(course)) == CLASS


def test_a_run_started_with_ctrl_c_ignored_goes_on_through_it_workers_too(tmp_path):
    """`nohup grade ...`, or `grade` in the background of a script, ignores Ctrl-C as Unix programs do: a SIGINT to
    its process group ends nothing, and no student is charged for it (a worker that ended on it had its student
    recorded as failed: nbgrader swallows the worker's exit)."""
    course = tmp_path / "course"
    one_lesson_class(course, linger=1.5)  # the signal finds both workers inside nbgrader, waiting on a cell
    run, graded, _, out, err, shown = interrupted_after_two(course, "SIGINT to the group", ctrl_c=signal.SIG_IGN)
    assert graded == 2 and run.returncode == 0, shown
    assert f"graded {CLASS}, skipped 0 (unchanged), failed 0" in out and "could not" not in out + err, shown
    assert len(scores(course)) == CLASS
