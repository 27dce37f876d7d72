"""How `python -m autograder` ends (autograder.leave): as Python's own exit, the interpreter's teardown left out.
The non-daemon threads are waited for, the exit handlers run, the output is flushed and the status is sys.exit's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROGRAM = """
import atexit, sys, threading, time
from autograder.leave import leave
atexit.register(lambda: print("the exit handler ran", flush=False))
def late():
    time.sleep(0.3)
    print("the thread finished", end=" ")
threading.Thread(target=late).start()
print("buffered", end=" ")  # (a pipe: block-buffered, flushed only at the end)
leave({status})
"""


@pytest.mark.parametrize(
    ("status", "code", "stderr"),
    [("None", 0, ""), ("3", 3, ""), ("'grade: no such course'", 1, "grade: no such course")],
)
def test_leave_ends_as_sys_exit_does(status, code, stderr):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # the output held until the end
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(status=status)], capture_output=True, text=True, env=env
    )
    assert done.returncode == code, done.stderr
    assert done.stdout == "buffered the thread finished the exit handler ran\n"
    assert done.stderr.strip() == stderr


def test_a_pipe_closed_before_the_end_gives_pythons_own_status():
    """The output still buffered when its reader has gone (`| head`): the status is what Python's exit gives."""

    def status(end: str) -> int:
        program = f"import sys, time\nfrom autograder.leave import leave\nprint('x' * 100)\ntime.sleep(1)\n{end}\n"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # the output held until the end
        run = subprocess.Popen(
            [sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        run.stdout.close()  # the reader leaves before the program writes
        return run.wait(30)

    assert status("leave(0)") == status("sys.exit(0)") == 120


def test_a_failing_step_of_the_threads_shut_down_keeps_the_status_as_pythons_exit_does():
    """A process pool's own exit step raising (Python 3.11's pool can meet a pipe its thread closed as it ended):
    Python prints the error and keeps the status; so does leave, and the exit handlers still run."""

    def ending(end: str) -> subprocess.CompletedProcess:
        program = (
            "import atexit, sys, threading\nfrom autograder.leave import leave\n"
            "atexit.register(lambda: print('the exit handler ran'))\n"
            f"threading._register_atexit(lambda: 1 / 0)\n{end}\n"
        )
        return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)

    ours, pythons = ending("leave(2)"), ending("sys.exit(2)")
    assert ours.returncode == pythons.returncode == 2
    assert ours.stdout == pythons.stdout == "the exit handler ran\n"
    for done in (ours, pythons):
        assert "Exception ignored in: <module 'threading'" in done.stderr
        assert done.stderr.rstrip().endswith("ZeroDivisionError: division by zero")
