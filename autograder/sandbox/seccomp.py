"""The system-call filter of every grading kernel: one definition, built with libseccomp, used by every path.

A kernel has no capability and cannot gain one (``no_new_privs``), so most of what a container runtime
forbids would fail in it anyway.  Some calls need no capability at all and reach what the sandbox's
namespaces do not isolate: the kernel keyrings (a key added by one sandbox is found by the next one run by
the same user), new user namespaces (in which a process holds every capability again, and more of the
kernel's code is within reach), ``ptrace``, ``userfaultfd``, ``bpf``, ``perf_event_open``, ``io_uring``.
The filter denies these and what Docker's default profile denies, the anchor: mounts, ``pivot_root`` and
``chroot``, module and kexec loading, namespaces (``unshare``, ``setns``, ``clone`` with a namespace flag),
``personality`` changes other than the harmless ones, accounting, quotas, swap, reboot, the clock, the
kernel log, file handles, I/O ports, VSOCK sockets (which leave the network namespace).

It also refuses ``prlimit`` on the sandbox's PID 1 (a forked kernel's placeholder, whose death is the kit's):
Linux ignores every signal the kernel's code sends it, but would kill it itself at a CPU limit set that way.

Everything else is allowed, and a denied call fails with ``EPERM`` rather than killing the kernel: a
curious student gets an error in a cell, not a lost notebook.  ``clone3`` answers ``ENOSYS``, as under
Docker, so that glibc falls back to ``clone``, whose flags a filter can read (``clone3`` passes them in
memory, out of its sight).

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

DENIED = (
    # the kernel keyrings: not namespaced for root without a user namespace, shared by every sandbox of a user
    "add_key",
    "request_key",
    "keyctl",
    # file systems and the root: the sandbox's view is bubblewrap's to make
    "mount",
    "umount",
    "umount2",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "pivot_root",
    "chroot",
    "name_to_handle_at",
    "open_by_handle_at",
    "quotactl",
    "quotactl_fd",
    "swapon",
    "swapoff",
    "acct",
    # namespaces (clone's namespace flags are filtered below)
    "unshare",
    "setns",
    # other processes' memory and descriptors
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "pidfd_getfd",
    "kcmp",
    # the kernel's own machinery, within reach of an unprivileged process
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "fanotify_init",
    "lookup_dcookie",
    "syslog",
    # the machine: modules, kexec, reboot, clock, I/O ports, names
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "settimeofday",
    "stime",
    "clock_settime",
    "clock_settime64",
    "ioperm",
    "iopl",
    "sethostname",
    "setdomainname",
    "vhangup",
    "mbind",
    "set_mempolicy",
    "set_mempolicy_home_node",
    # the 32-bit ABI's multiplexed socket call (it would make VSOCK sockets out of the filter's sight)
    "socketcall",
    # obsolete calls no program of today makes
    "vm86",
    "vm86old",
    "nfsservctl",
    "uselib",
    "ustat",
    "sysfs",
    "_sysctl",
    "afs_syscall",
)
# clone's namespace flags (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET), each denied
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
# personality: PER_LINUX32 and UNAME26 are the flags Docker allows (alone or together); a value with any
# other of the 32 bits the kernel reads (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC...) is denied, the query
# 0xffffffff too, which nothing a kernel runs makes.  (A filter compares one argument once per rule,
# so each bit is a rule.)
HARMLESS_PERSONALITY = 0x8 | 0x20000
AF_VSOCK = 40
S_IFMT, DEVICES = 0o170000, (0o020000, 0o060000)  # mknod of a character or block device (fifos stay allowed)
# the compat ABIs of a native architecture: their system calls get the same rules (Docker's archMap)
COMPAT = {"X86_64": ("X86", "X32"), "AARCH64": ("ARM",)}


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
    rules = sc.SyscallFilter(sc.ALLOW)
    native = os.uname().machine.upper().replace("-", "_")
    for arch in COMPAT.get(native, ()):
        try:
            rules.add_arch(getattr(sc.Arch, arch))
        except OSError:  # a compat ABI this libseccomp does not know: its calls meet the bad-arch action
            pass
    for name in DENIED:
        if sc.resolve_syscall(sc.Arch.NATIVE, name) != -1:  # a name this libseccomp does not know at all
            rules.add_rule(eperm, name)
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    rules.add_rule(eperm, "socket", sc.Arg(0, sc.EQ, AF_VSOCK))
    # no new resource limits for the sandbox's PID 1 (the kernel reads pid_t: the low 32 bits of the argument)
    rules.add_rule(eperm, "prlimit64", sc.Arg(0, sc.MASKED_EQ, 0xFFFFFFFF, 1), sc.Arg(2, sc.NE, 0))
    for kind in DEVICES:
        rules.add_rule(eperm, "mknod", sc.Arg(1, sc.MASKED_EQ, S_IFMT, kind))
        rules.add_rule(eperm, "mknodat", sc.Arg(2, sc.MASKED_EQ, S_IFMT, kind))
    for bit in (1 << n for n in range(32)):
        if not bit & HARMLESS_PERSONALITY:
            rules.add_rule(eperm, "personality", sc.Arg(0, sc.MASKED_EQ, bit, bit))
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
        folder = Path(tempfile.mkdtemp(prefix="kit-seccomp-"))
        path = folder / "filter.bpf"
        path.write_bytes(filter_bytes())
        owner = os.getpid()
        atexit.register(lambda: os.getpid() == owner and shutil.rmtree(folder, ignore_errors=True))
        _file = (owner, path)
    return _file[1]
