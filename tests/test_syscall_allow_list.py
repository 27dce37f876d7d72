"""The system-call filter is an allow list measured from traces (``autograder/sandbox/syscalls.txt``), and a
fresh trace agrees with it.

The list has three parts.  *honest*: what kernels call while the reference solutions and the stubs are graded;
here they are graded again under ``strace -f`` (``tests/syscall_trace.py``), on the forked path and on the
ordinary one, and the test fails on a call needed outside the list (it would be refused: a grading broken) and on
an *honest* call no longer traced (the list has gone stale: a call allowed that nothing needs).  *hostile*: what the
attack notebooks of ``tests/test_hostile.py`` call besides and is not refused (their refused calls, ``add_key``,
``mount``, ``ptrace``..., stay refused); a full trace of them takes minutes under strace, so it is run by hand
(``python -m tests.syscall_trace``, see its docstring) and here only the part of it the honest grading also makes is
checked.  *not traced*: a few calls no measured kernel happened to make whose refusal would hang or break a kernel
(``exit``: a thread's end, which glibc retries for ever), each with its reason.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from autograder.sandbox import seccomp

from .conftest import sandbox_or_skip
from .syscall_trace import course_to_trace, needed, trace_grading

# calls that Docker's default profile or the kit's former deny list refused: none may be on the allow list
FORMERLY_DENIED = (
    "add_key request_key keyctl mount umount2 fsopen fsconfig fsmount fspick move_mount open_tree mount_setattr "
    "pivot_root chroot name_to_handle_at open_by_handle_at quotactl swapon swapoff acct unshare setns ptrace "
    "process_vm_readv process_vm_writev process_madvise pidfd_getfd kcmp bpf perf_event_open userfaultfd "
    "io_uring_setup io_uring_enter io_uring_register fanotify_init syslog init_module finit_module delete_module "
    "kexec_load kexec_file_load reboot settimeofday clock_settime ioperm iopl sethostname setdomainname vhangup "
    "mbind set_mempolicy personality mknod mknodat socketcall memfd_create"
).split()


# calls an honest kernel tries and gets refused, and goes on without: refused under the deny list of before too
HANDLED = {"mbind": "OpenBLAS's NUMA placement hint"}


def twins() -> dict[str, str]:
    """The twins' part: {call: the measured call it stands for}."""
    text = seccomp.LIST.read_text().split("## twins", 1)[1].split("\n## ", 1)[0]
    return {line.split("#")[0].strip(): line.split("#")[1].strip() for line in text.splitlines()[1:] if "#" in line}


def test_every_twin_stands_for_a_measured_call():
    parts = sections()
    measured = parts["honest"] | parts["hostile"]
    assert twins() and set(twins()) == parts["twins"], (twins(), parts["twins"])
    assert set(twins().values()) <= measured, set(twins().values()) - measured


def sections() -> dict[str, set[str]]:
    found, part = {}, None
    for line in seccomp.LIST.read_text().splitlines():
        if line.startswith("## "):
            part = line[3:].split()[0].rstrip(":")
            found[part] = set()
        elif line.split("#", 1)[0].strip():
            found[part].add(line.split("#", 1)[0].strip())
    return found


def test_the_list_has_its_parts_and_nothing_formerly_denied():
    parts = sections()
    assert set(parts) == {"honest", "hostile", "twins", "not"}, set(parts)
    assert set(seccomp.allowed()) == set().union(*parts.values())
    assert len(parts["not"]) <= 8, "a call nobody measured is the exception, with its reason"
    assert not set(seccomp.allowed()) & set(FORMERLY_DENIED), set(seccomp.allowed()) & set(FORMERLY_DENIED)


@pytest.fixture(scope="module")
def honest_trace(tmp_path_factory):
    """The two traced gradings, built once for the module (conftest's ONE_WORKER keeps its tests on one worker)
    and run side by side: strace stops every traced process at each of its calls, so one grading under it waits
    mostly on its tracer, and two tracers share the machine's cores."""
    sandbox_or_skip()
    courses = {
        fork: course_to_trace(tmp_path_factory.mktemp(f"trace-{fork}"), fork, cases=()) for fork in (True, False)
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        running = {fork: pool.submit(trace_grading, course) for fork, course in courses.items()}
        traces = {fork: job.result() for fork, job in running.items()}
    for fork, trace in traces.items():
        # the reference solutions were graded (by the canary, in this run, traced) and scored full marks
        assert "canary: the reference solution scored 100/100" in trace["stdout"], (fork, trace["stdout"][-3000:])
        scores = {row.split(",")[3]: row.split(",")[7] for row in trace["grades"].splitlines()[1:]}
        assert scores == {"stubs": "0.0"}, (fork, scores)
    return traces


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "started"])
def test_a_fresh_trace_needs_nothing_outside_the_list(honest_trace, fork):
    """Every call the kernels made is on the list, or refused and gone on without (HANDLED), or clone3 (ENOSYS, so
    that glibc uses clone).  Under the allow list a missing call shows as a refused one: each is listed here."""
    made = set(honest_trace[fork]["calls"])
    outside = made - set(seccomp.allowed()) - set(seccomp.WITH_RULES) - set(seccomp.ENOSYS) - set(HANDLED)
    assert not outside, f"made, not on the allow list: {sorted(outside)}"


def test_every_honest_call_of_the_list_is_still_traced(honest_trace):
    """The list's honest part is what the two fresh traces made together: a listed call no longer made is stale."""
    traced = needed(honest_trace[True]) | needed(honest_trace[False])
    stale = sections()["honest"] - traced
    assert not stale, f"on the list as honest, no longer traced: {sorted(stale)}"


def test_the_traced_kernels_made_only_the_measured_families_options_and_requests(honest_trace):
    """The argument rules' lists are the measured ones: socket families, prctl options, ioctl requests."""
    rules = {"prctl": set(seccomp.PRCTL_OPTIONS.values()), "ioctl": set(seccomp.IOCTL_REQUESTS.values())}
    for fork, trace in honest_trace.items():
        assert trace["families"] <= set(seccomp.SOCKET_FAMILIES.values()), (fork, trace["families"])
        for call, values in trace["options"].items():
            assert values <= rules[call], (fork, call, sorted(map(hex, values - rules[call])))
