"""What a killed grading process leaves running of its sandboxes (autograder.sandbox.leftovers): a sandbox whose
bubblewrap outlived its maker, and a placeholder alone whose bubblewrap is gone too, are ended; a live maker's
sandbox is not.  Real bubblewrap sandboxes, real processes killed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from autograder.sandbox import leftovers
from autograder.scratch import alive

from .conftest import sandbox_or_skip

# a sandbox as a grading process starts a forked kernel's placeholder: `cat` on a pipe no kernel has opened yet,
# as the sandbox's PID 1; left without --die-with-parent, as bubblewrap is when its parent dies while it starts
SANDBOX = """
import os, subprocess, sys, time
from autograder.sandbox import bwrap_path
from autograder.scratch import private_folder
folder = private_folder("kernel", sys.argv[1])
os.mkfifo(folder / "alive")
sandbox = subprocess.Popen([bwrap_path(), "--unshare-user", "--unshare-pid", "--as-pid-1", "--dev-bind", "/", "/",
                            "cat", str(folder / "alive")], start_new_session=True)
print(sandbox.pid, flush=True)
time.sleep(3600)
"""


def descendants(pid: int) -> set[int]:
    return leftovers.descendants({pid})


def sandbox(folder: Path) -> tuple[subprocess.Popen, int, set[int]]:
    """A maker that started a sandbox: the maker, bubblewrap's pid, the processes under bubblewrap (the placeholder)."""
    maker = subprocess.Popen([sys.executable, "-c", SANDBOX, str(folder)], stdout=subprocess.PIPE, text=True)
    bubblewrap = int(maker.stdout.readline())
    deadline = time.monotonic() + 30
    while not descendants(bubblewrap) and time.monotonic() < deadline:
        time.sleep(0.05)  # the placeholder started in its sandbox
    inside = descendants(bubblewrap)
    assert inside, "the placeholder did not start"
    return maker, bubblewrap, inside


def test_what_is_left_of_a_killed_makers_sandboxes_is_ended_and_a_live_makers_is_not(tmp_path):
    sandbox_or_skip()
    makers, every = [], set()
    try:
        for _ in range(3):
            made = sandbox(tmp_path)
            makers.append(made)
            every |= {made[1], *made[2]}
        (left, left_bwrap, left_inside), (alone, alone_bwrap, alone_inside), (mine, mine_bwrap, mine_inside) = makers
        for maker in (left, alone):
            maker.kill()
            maker.wait()
        os.kill(alone_bwrap, signal.SIGKILL)  # bubblewrap gone too: the placeholder alone, reparented
        deadline = time.monotonic() + 10
        while alive(alone_bwrap) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive(left_bwrap) and all(map(alive, left_inside | alone_inside))  # outlived their makers

        killed = leftovers.end_leftovers(tmp_path)  # (the test's own folder: no other test's run sweeps it)

        ended = {left_bwrap, *left_inside, *alone_inside}
        assert ended <= set(killed), (killed, ended)
        assert not any(map(alive, ended))
        assert alive(mine_bwrap) and all(map(alive, mine_inside))  # its maker lives
        assert not set(killed) & {mine_bwrap, *mine_inside}
    finally:
        for maker, *_ in makers:
            maker.kill()
        for pid in every:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
