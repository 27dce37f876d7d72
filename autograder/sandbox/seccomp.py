"""The system-call filter of every grading kernel: an allow list, built with libseccomp, used by every path.

The filter refuses with ``EPERM`` every call that is not on ``syscalls.txt``, the list of what the kernel,
ipykernel, NumPy and the kit's channel call while the reference solutions, the stubs and the hostile test
notebooks are graded, measured with ``strace`` (``tests/syscall_trace.py``; ``tests/test_syscall_allow_list.py``
fails when a fresh trace and the list disagree).  A call nobody measured is refused before anyone thinks of
it: the kernel keyrings, mounts, namespaces, ``ptrace``, ``bpf``, ``io_uring``, ``userfaultfd`` and the
hundreds of others no grading kernel makes.  A denied call fails with ``EPERM`` rather than killing the
kernel: a curious student gets an error in a cell, not a lost notebook.

Some allowed calls are allowed only with some arguments, each rule comparing exactly the bits the kernel
reads (an ``int`` argument: the low 32 bits, so that ``AF_VSOCK | 1 << 32`` is AF_VSOCK to the filter as to
the kernel): ``socket`` and ``socketpair`` in the measured families only (``SOCKET_FAMILIES``), ``prctl`` and
``ioctl`` with the measured options and requests only (``PRCTL_OPTIONS``, ``IOCTL_REQUESTS``); ``clone``
without a namespace flag; ``prlimit64`` on the calling process only, or as a query (never a limit for the
sandbox's PID 1, a forked kernel's placeholder, whose death is the kit's).  ``clone3`` answers ``ENOSYS``,
as under Docker, so that glibc falls back to ``clone``, whose flags a filter can read (``clone3`` passes them
in memory, out of its sight).  The machine's other ABIs (i386's ``int 0x80``, x32) are refused whole.

bubblewrap installs the filter for what it starts (``--seccomp``); a forked kernel installs the very same
bytes itself (``forkserver.install_filter``), after it has dropped its capabilities.
"""

from __future__ import annotations

import atexit
import errno
import functools
import os
import shutil
import tempfile
from pathlib import Path

from ..scratch import private_folder

LIST = Path(__file__).with_name("syscalls.txt")
# socket families a kernel may make, measured: Unix sockets (ZMQ's ipc transport, the checker's channel), IPv4
# (ZMQ and Python probe it; the network namespace has only a loopback), netlink (glibc's getifaddrs)
SOCKET_FAMILIES = {"AF_UNIX": 1, "AF_INET": 2, "AF_NETLINK": 16}
INT = 0xFFFFFFFF  # the bits of an int argument
# clone's namespace flags (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET): clone without any
NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# prctl's options and ioctl's requests the measured kernels made (both read as int by the kernel): naming a thread
# (ZMQ's); isatty, a terminal's size, non-blocking mode, and cp's reflink attempt.  No terminal control (TIOCSTI).
PRCTL_OPTIONS = {"PR_SET_NAME": 15}
IOCTL_REQUESTS = {"TCGETS": 0x5401, "TIOCGWINSZ": 0x5413, "FIONBIO": 0x5421, "FICLONE": 0x40049409}
# calls allowed only with the arguments their rules allow, and the one that answers ENOSYS
WITH_RULES = ("socket", "socketpair", "clone", "prlimit64", "prctl", "ioctl")
ENOSYS = ("clone3",)


def allowed() -> list[str]:
    """The calls of ``syscalls.txt`` (one a line; ``#`` comments)."""
    lines = (line.split("#", 1)[0].strip() for line in LIST.read_text().splitlines())
    return [line for line in lines if line]


class FilterUnavailable(RuntimeError):
    pass


@functools.cache
def filter_bytes() -> bytes:
    """The filter as the kernel's BPF program (``struct sock_filter`` records), built once per process."""
    try:
        import pyseccomp as sc
    except (ImportError, RuntimeError, OSError) as e:  # pyseccomp raises RuntimeError without libseccomp
        raise FilterUnavailable(f"libseccomp cannot be loaded ({e})") from None
    eperm = sc.ERRNO(errno.EPERM)
    rules = sc.SyscallFilter(eperm)
    rules.set_attr(sc.Attr.ACT_BADARCH, eperm)  # the machine's other ABIs (i386's int 0x80, x32): refused whole
    try:
        rules.set_attr(sc.Attr.CTL_OPTIMIZE, 2)  # a binary tree of the calls, not a list (libseccomp 2.5)
    except (OSError, ValueError):
        pass
    allow = sc.ALLOW
    for name in allowed():
        if name in WITH_RULES or name in ENOSYS:
            continue
        if sc.resolve_syscall(sc.Arch.NATIVE, name) >= 0:  # a call this machine does not have stays refused
            rules.add_rule(allow, name)
    for name in ENOSYS:
        rules.add_rule(sc.ERRNO(errno.ENOSYS), name)
    for family in SOCKET_FAMILIES.values():
        rules.add_rule(allow, "socket", sc.Arg(0, sc.MASKED_EQ, INT, family))
        rules.add_rule(allow, "socketpair", sc.Arg(0, sc.MASKED_EQ, INT, family))
    for option in PRCTL_OPTIONS.values():
        rules.add_rule(allow, "prctl", sc.Arg(0, sc.MASKED_EQ, INT, option))
    for request in IOCTL_REQUESTS.values():
        rules.add_rule(allow, "ioctl", sc.Arg(1, sc.MASKED_EQ, INT, request))
    rules.add_rule(allow, "clone", sc.Arg(0, sc.MASKED_EQ, NAMESPACE_FLAGS, 0))
    # prlimit64(pid_t pid, ...): on itself (pid 0), or a query (no new limit) of any process
    rules.add_rule(allow, "prlimit64", sc.Arg(0, sc.MASKED_EQ, INT, 0))
    rules.add_rule(allow, "prlimit64", sc.Arg(2, sc.EQ, 0))
    with tempfile.TemporaryFile() as f:
        rules.export_bpf(f)
        f.seek(0)
        program = f.read()
    if not program or len(program) % 8:
        raise FilterUnavailable(f"libseccomp exported {len(program)} bytes, not a BPF program")
    return program


_file: tuple[int, Path] | None = None  # (the process that wrote it, the file)


def filter_file() -> Path:
    """The filter as a file bubblewrap reads (``--seccomp``), written once per process into a private folder
    (0700) and removed when that process exits; a child of the process reads its parent's while it is there."""
    global _file
    if _file is None or not _file[1].exists():
        folder = private_folder("seccomp")
        path = folder / "filter.bpf"
        path.write_bytes(filter_bytes())
        owner = os.getpid()
        atexit.register(lambda: os.getpid() == owner and shutil.rmtree(folder, ignore_errors=True))
        _file = (owner, path)
    return _file[1]
