"""Kernels started ahead (grading.kernel_ahead): the next notebook's kernel comes up while the current one runs,
and still every notebook runs in a fresh process of its own, and nothing is left running or lying about."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.cells import is_solution_cell
from autograder.course import ASSIGNMENT, NOTEBOOKS, make_scratch_course
from autograder.devtools.personas import write_submission

from .conftest import ENV, kernel_starts, reference_submission, sandbox_or_skip, scores

LEAVE = "import builtins, numpy, sys\nbuiltins.kit_left_behind = True\nnumpy.kit_left_behind = True\n"
LOOK = (
    "import builtins, numpy, sys\n"
    "assert not hasattr(builtins, 'kit_left_behind') and not hasattr(numpy, 'kit_left_behind'), "
    "'an earlier notebook ran in this process'\n"
)


def marked_submission() -> dict:
    """The reference, where the first notebook marks its process and every later one loses its points if it
    finds that mark (its first solution cell fails, so nothing it defines exists)."""
    notebooks = reference_submission()
    for i, name in enumerate(NOTEBOOKS):
        cell = next(c for c in notebooks[name].cells if is_solution_cell(c))
        cell.source = (LEAVE if i == 0 else LOOK) + cell.source
    return notebooks


def test_every_notebook_of_a_student_runs_in_a_fresh_kernel_and_none_is_left(tmp_path, request):
    sandbox_or_skip()
    course = tmp_path / "course"
    make_scratch_course(course)
    write_submission(course, "marked", marked_submission())
    # the grader's temporary folders (the kernels' sockets, files and channels), short enough that the
    # sockets are made in it rather than under /tmp (channel.sockets), so that what is left shows here
    scratch = Path(tempfile.mkdtemp(prefix="kit-ahead-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    graded = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "1"],
        env=dict(ENV, TMPDIR=str(scratch)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr[-3000:]
    assert scores(course) == {"marked": 100.0}, "a later notebook found what the first one left in its process"
    assert set(kernel_starts(course, "marked").values()) == {"forked"}, kernel_starts(course, "marked")
    # every folder of the run's: the kernels', and each worker's own (its seccomp filter, public package), which
    # its exit handlers remove (a worker forked from the fork server leaves by os._exit, past atexit)
    left = sorted(p.name for p in scratch.iterdir() if p.name.startswith("kit-"))
    assert left == [], f"the grader's folders left after grading: {left}"
