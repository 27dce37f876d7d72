"""Resource limits of one graded notebook: its kernel and everything the kernel starts.

A submission must not be able to take the grading machine down.  Each graded notebook gets, besides its time budget:

- **processes and threads** (``max_processes``): a cgroup ``pids`` limit where the kit can create
  cgroups (v1 ``pids``, or a delegated v2 subtree), otherwise ``RLIMIT_NPROC`` set inside
  bubblewrap's user namespace, where it counts only the sandbox's own tasks;
- **memory of all its processes together** (``max_memory_mb``): a cgroup ``memory`` limit, otherwise
  a watchdog that sums the proportional set size of every process in the sandbox (the per-process
  address-space cap of the sandbox stays in force in both cases);
- **bytes written** (``max_written_mb``): everything the graded code can write is one size-capped
  tmpfs, the sandbox's ``/tmp``, which also holds its working folder (``/tmp/<assignment>``, a copy of
  the submission made when the kernel starts).  Nothing written there reaches the course: only the
  notebook comes back.  The kernel's ZMQ sockets are in a 1 MiB tmpfs of their own (``SOCKETS``), which
  the grading process reaches through ``/proc/<pid>/root``; ``/dev/shm`` is a folder of the scratch tmpfs, and the
  sandbox's root and the empty folders that cover the course and the kit are read-only.  No host
  folder is writable.  ``RLIMIT_FSIZE`` caps any single file;
- **files** (``max_files``) on that tmpfs, and **open files** per process (``RLIMIT_NOFILE``).

A watchdog thread next to each kernel reads the counters (cgroup events, the tmpfs's ``statvfs``
through ``/proc/<pid>/root``, the sandbox's own ``/proc``) and, when a limit is reached, kills the
sandbox (its PID namespace ends with it) and records which limit, in words a person can read
("started more than 64 processes or threads").  The notebook then stops like one whose kernel died:
the cells before keep their points.

This module holds the limits themselves (``ResourceLimits``, set in ``nbgrader_config.py``) and their
words; ``cgroups`` creates and reads the cgroups, ``arguments`` builds bubblewrap's arguments for them,
and ``watchdog`` watches a running sandbox.
"""

from __future__ import annotations

from traitlets import Enum, Int
from traitlets.config import Configurable

MiB = 1024 * 1024
SCRATCH = "/tmp"  # inside the sandbox: the size-capped tmpfs that holds the working folder and temporary files
SOCKETS = "/run/kit"  # inside the sandbox: the size-capped tmpfs the kernel binds its ZMQ sockets in
SOCKETS_BYTES = MiB  # room for sockets (which take none), not for data


class LimitUnavailable(RuntimeError):
    pass


class ResourceLimits(Configurable):
    """Per graded notebook limits; set them in ``nbgrader_config.py`` as ``c.ResourceLimits.<name>``."""

    max_processes = Int(
        64,
        help="Processes and threads one graded notebook may run at once, its kernel's own "
        "(about 15) included. Reaching it stops the notebook.",
    ).tag(config=True)
    max_memory_mb = Int(
        2048,
        help="MiB of memory the kernel and every process it starts may use together "
        "(with cgroups, the tmpfs pages of its scratch folder count too). Reaching it stops the notebook. "
        "Each process is also capped at SandboxedKernelManager.memory_limit_mb of "
        "address space.",
    ).tag(config=True)
    max_written_mb = Int(
        256,
        help="MiB the graded code may write inside the sandbox, its working folder and /tmp "
        "together (one size-capped tmpfs). Filling it stops the notebook.",
    ).tag(config=True)
    max_files = Int(
        10000,
        help="Files and folders the graded code may create in its working folder and /tmp "
        "together. Reaching it stops the notebook.",
    ).tag(config=True)
    max_open_files = Int(256, help="Open files per process (RLIMIT_NOFILE).").tag(config=True)
    max_submitted_mb = Int(
        20,
        help="MiB of a student's submitted files other than the notebooks that are copied "
        "in for grading (and so into autograded/ and feedback/); the rest is left out "
        "with a note.",
    ).tag(config=True)
    max_submitted_files = Int(
        200,
        help="Number of submitted files other than the notebooks that are copied in; the rest is left out with a note.",
    ).tag(config=True)
    mechanism = Enum(
        ["auto", "cgroup", "rlimit"],
        "auto",
        help="How process and memory limits are enforced: 'cgroup' (cgroup v1 pids+memory or a "
        "delegated cgroup v2 subtree; refuse to grade without), 'rlimit' (RLIMIT_NPROC in "
        "bubblewrap's user namespace and a memory watchdog), or 'auto' (cgroups when the kit "
        "can create them, rlimits otherwise).",
    ).tag(config=True)

    # ---------------------------------------------------------------------------------------- words
    def reason_processes(self) -> str:
        return f"started more than {self.max_processes} processes or threads"

    def reason_memory(self) -> str:
        return f"used more than {self.max_memory_mb} MiB of memory"

    def reason_written(self) -> str:
        return f"wrote more than {self.max_written_mb} MiB"

    def reason_files(self) -> str:
        return f"created more than {self.max_files} files"
