"""bubblewrap's arguments for the resource limits (``limits``): the cgroup it starts in, the size-capped
scratch tmpfs, the per-process rlimits; and the descriptor it reads the system-call filter from."""

from __future__ import annotations

from pathlib import Path

from .cgroups import Cgroup
from .limits import SCRATCH, SOCKETS, SOCKETS_BYTES, MiB, NotebookLimits

SUBMITTED = f"{SCRATCH}/.kit-submitted"  # inside the sandbox: the submission, read-only, copied into the working folder
SHM = f"{SCRATCH}/.kit-shm"  # inside the sandbox: what /dev/shm links to
SECCOMP_FD = 9  # the descriptor outer_prefix opens the system-call filter on; bubblewrap reads and closes it
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def outer_prefix(cgroup: Cgroup | None, seccomp: Path) -> list[str]:
    """Open the system-call filter ``seccomp`` on SECCOMP_FD, for bubblewrap's ``--seccomp``, and put the
    sandbox (bubblewrap itself and so everything inside) into ``cgroup`` before it starts."""
    files = cgroup.procs_files() if cgroup is not None else []
    script = (
        f'exec {SECCOMP_FD}<"$1" || exit 96; shift; '
        'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 97; shift; done; shift; exec "$@"'
    )
    return ["/bin/sh", "-c", script, "kit-sandbox", str(seccomp), *files, "--"]


def scratch_args(limits: NotebookLimits, workdir: Path) -> tuple[list[str], str]:
    """bubblewrap arguments for the size-capped tmpfs mounts: the scratch one at /tmp with the working folder
    in it (a copy of ``workdir``, which is mounted read-only at SUBMITTED) and /dev/shm's folder (SHM), and the
    kernel's socket folder (SOCKETS); and the working folder's path."""
    inside = f"{SCRATCH}/{workdir.name or 'work'}"
    if inside == SUBMITTED:
        inside = f"{SCRATCH}/work"
    return [
        "--size",
        str(SOCKETS_BYTES),
        "--tmpfs",
        SOCKETS,
        "--size",
        str(limits.max_written_mb * MiB),
        "--tmpfs",
        SCRATCH,
        # /dev/shm (POSIX semaphores, shared memory) is a folder of the scratch tmpfs: its bytes and its files count
        # against the notebook's limits with the rest (a tmpfs of its own capped bytes, not names)
        "--dir",
        SHM,
        "--symlink",
        SHM,
        "/dev/shm",
        "--remount-ro",
        "/dev",
        "--dir",
        inside,
        "--ro-bind",
        str(workdir),
        SUBMITTED,
    ], inside


def inner_prefix(limits: NotebookLimits, workdir: Path) -> list[str]:
    """Inside the sandbox: the per-process rlimits, then copy the submission into the working folder."""
    rlimits = [
        "prlimit",
        f"--nproc={limits.max_processes}",
        f"--nofile={limits.max_open_files}",
        f"--fsize={limits.max_written_mb * MiB}",
        "--core=0",  # no core dump: a crash's memory is not written anywhere (the machine's core_pattern may be a pipe)
        "--",
    ]
    copy = 'cp -R -- "$1"/. . 2>/dev/null; shift; exec "$@"'
    return rlimits + ["/bin/sh", "-c", copy, "kit-scratch", SUBMITTED]
