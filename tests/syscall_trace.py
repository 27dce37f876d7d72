"""What grading kernels call, read from ``strace -f`` of a whole grading: the source of the filter's allow list.

A process counts from the moment it installs the kit's system-call filter (bubblewrap's
``prctl(PR_SET_SECCOMP, ...)`` before it runs the sandbox's command, the fork server's kernel before it runs
ipykernel), and so does every process it then starts: exactly the calls the filter sees.  A call counts as
needed when it ever returned anything but ``EPERM``/``ENOSYS`` (a refused call is refused on purpose:
``add_key``, ``mount``, ``ptrace``... of the attack notebooks), and every file it opened is recorded with it
(the file view's allow list is checked against those).

``python -m tests.syscall_trace grade <course> [grade's options]`` traces a grading and prints the calls;
``tests/test_syscall_allow_list.py`` compares a fresh trace with ``autograder/sandbox/syscalls.txt``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

LINE = re.compile(r"^(\d+)\s+(.*)$")
CALL = re.compile(r"^([a-z_0-9]+)\((.*)")
RESULT = re.compile(r"\)\s+=\s+(-?\d+|\?|0x[0-9a-f]+)(?: /\* (\d+) in strace's PID NS \*/)?(?:\s+([A-Z]+))?")
REFUSED = ("EPERM", "ENOSYS")


def trace_command(out: Path, cmd: list[str], strings: int = 0) -> list[str]:
    """``strings``: how much of each buffer read or written to print.  Nothing here reads them, and printing them
    costs strace about a third more per read (measured on a loop of 4 KiB preads); file names are printed whole
    whatever it is (strace's -s)."""
    strace = shutil.which("strace")
    if not strace:
        raise RuntimeError("strace is not installed")
    # --decode-pids=pidns: a pid returned inside the sandbox's PID namespace is also shown as strace sees it.
    # Not --seccomp-bpf (stops only at the calls traced): a call the kit's filter refuses returns SECCOMP_RET_ERRNO,
    # which wins over strace's SECCOMP_RET_TRACE, so a refused call would never reach the trace (tried: add_key,
    # refused, is missing from `strace -f --seccomp-bpf -e trace=add_key`), and a call outside the list would pass
    return [strace, "-f", "-qq", "-s", str(strings), "-X", "raw", "--decode-pids=pidns", "-o", str(out), *cmd]


def read_trace(path: Path) -> dict:
    """{"calls": {name: ever allowed?}, "files": paths opened, "families": socket families made, "options": the first
    argument of prctl and the second of ioctl, each value made and not refused}."""
    filtered: set[int] = set()
    pending: dict[int, str] = {}
    calls: dict[str, bool] = {}
    files: set[str] = set()
    families: set[int] = set()
    options: dict[str, set[int]] = {}
    for raw in path.read_text(errors="replace").splitlines():
        m = LINE.match(raw)
        if not m:
            continue
        pid, rest = int(m.group(1)), m.group(2)
        if "<unfinished ...>" in rest:
            pending[pid] = rest.split("<unfinished")[0]
            continue
        if rest.startswith("<... "):
            rest = pending.pop(pid, "") + rest.split("resumed>", 1)[-1]
        c = CALL.match(rest)
        if not c:
            continue
        name, args = c.group(1), c.group(2)
        r = RESULT.search(rest)
        value, err = (r.group(2) or r.group(1), r.group(3)) if r else ("?", None)
        if pid in filtered:
            calls[name] = calls.get(name, False) or err not in REFUSED
            if name in ("openat", "open") and err is None and '"' in args:
                files.add(args.split('"')[1])
            if name == "socket" and err is None:
                families.add(int(args.split(",")[0], 0))
            if name in ("prctl", "ioctl") and err not in REFUSED:
                options.setdefault(name, set()).add(int(args.split(",")[0 if name == "prctl" else 1].split()[0], 0))
        if name in ("clone", "clone3", "fork", "vfork") and pid in filtered and value.lstrip("-").isdigit():
            if int(value) > 0:
                filtered.add(int(value))
        # raw: prctl(0x16 = PR_SET_SECCOMP, 0x2 = SECCOMP_MODE_FILTER, ...); seccomp(0x1 = SET_MODE_FILTER, ...)
        if err is None and (
            (name == "prctl" and args.startswith(("0x16, 0x2", "22, 2")))
            or (name == "seccomp" and args.startswith(("0x1,", "1,")))
        ):
            filtered.add(pid)
    return {"calls": calls, "files": files, "families": families, "options": options}


def needed(trace: dict) -> set[str]:
    return {name for name, allowed in trace["calls"].items() if allowed}


if __name__ == "__main__":
    out = Path(sys.argv[1])
    done = subprocess.run(trace_command(out, [sys.executable, "-m", "autograder", *sys.argv[2:]], strings=256))
    found = read_trace(out)
    print(" ".join(sorted(needed(found))))
    print("refused:", " ".join(sorted(set(found["calls"]) - needed(found))))
    print("families:", sorted(found["families"]))
    sys.exit(done.returncode)


# the notebooks the list is measured on: the reference solutions (graded by the canary), the stubs as released, the
# sandbox audit's probe and the hostile notebooks that run to their end (the resource attacks stop at a limit, the
# hang at a timeout)
TRACED_CASES = (
    "custom-exc",
    "shadow-kit",
    "import-hook",
    "numpy-patch",
    "read-reference",
    "write-gradebook",
    "network",
    "search-kit",
    "fake-client",
    "rigged",
    "keyring-reader",
    "sandbox-probe",
    "sys-exit",
    "os-exit",
    "kill-kernel",
    "fork-bomb",
    "threads",
    "write-tmp",
    "many-files",
    "allocate",
)


def course_to_trace(root: Path, fork: bool = True, cases=TRACED_CASES) -> Path:
    """A scratch course under ``root`` with the stubs and ``cases`` handed in, its kernels forked or started
    (``fork``).  The reference solutions are not handed in: the canary grades them first, in the same run, through the
    same grading (its cache is emptied for the trace, ``trace_grading``), so a student of them would only trace the
    same kernels a second time."""
    from autograder.course import NOTEBOOKS
    from autograder.devtools.personas import filled_notebook, write_submission

    from .conftest import REPO, scratch_course
    from .test_hostile import CASES, LIMITS, ON_WRONG_CODE, write_files

    course = root / "course"
    scratch_course(course)
    config = "".join(f"\nc.ResourceLimits.{k} = {v!r}" for k, v in LIMITS.items())
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(config + f"\nc.SandboxedKernelManager.fork_kernels = {fork}\n")
    write_submission(course, "stubs", {n: filled_notebook(REPO, n, solve=False) for n in NOTEBOOKS})
    for student in cases:
        write_files(course, student, CASES[student])
    if cases:
        write_files(course, "kill-placeholder", ON_WRONG_CODE["kill-placeholder"])
    return course


def trace_grading(course: Path) -> dict:
    """``course`` graded under strace (its own strace, so gradings in other threads each have theirs), the canary
    included: its cache is a new folder, so it grades the reference solutions in this run whatever the session's
    cache holds.  The trace read, grades.csv, and what ``grade`` printed."""
    from autograder.course import ASSIGNMENT
    from autograder.grading.canary import CACHE_ENV

    from .conftest import ENV, REPO

    out = course.parent / "strace.out"
    env = dict(ENV, **{CACHE_ENV: str(course.parent / "canary-cache")})
    cmd = [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2"]
    done = subprocess.run(trace_command(out, cmd), env=env, cwd=REPO, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = read_trace(out)
    out.unlink()
    return found | {"grades": (course / "grades.csv").read_text(), "stdout": done.stdout}


def traced_grading(root: Path, fork: bool = True, cases=TRACED_CASES) -> dict:
    """A course graded under strace: the reference (the canary), the stubs and ``cases``; the trace read."""
    return trace_grading(course_to_trace(root, fork, cases))
