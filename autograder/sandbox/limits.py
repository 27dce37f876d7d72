"""Resource limits of one graded notebook: its kernel and everything the kernel starts.

A submission must not be able to take the grading machine down.  Each graded notebook gets, besides its time budget:

- **processes and threads** (``max_processes``): a cgroup ``pids`` limit where the kit can create
  cgroups (v1 ``pids``, or a delegated v2 subtree), otherwise ``RLIMIT_NPROC`` set inside
  bubblewrap's user namespace, where it counts only the sandbox's own tasks;
- **memory of all its processes together** (``memory_limit``, a size such as ``"2GiB"``): a cgroup ``memory`` limit, otherwise
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

The limits are options of the course like every other, declared once in ``autograder/config.py``
(``ResourceLimits``, set in ``nbgrader_config.py`` as ``c.ResourceLimits.<name>``) and decided once per run into
``GradingOptions.limits`` (a ``NotebookLimits``, with their words), which the kernel manager reads back from the
config the run hands nbgrader.  This module holds where they apply inside the sandbox; ``cgroups`` creates and
reads the cgroups, ``arguments`` builds bubblewrap's arguments for them, and ``watchdog`` watches a running sandbox.
"""

from __future__ import annotations

from ..config import MiB, NotebookLimits, ResourceLimits

__all__ = ["MiB", "NotebookLimits", "ResourceLimits", "LimitUnavailable", "SCRATCH", "SOCKETS", "SOCKETS_BYTES"]

SCRATCH = "/tmp"  # inside the sandbox: the size-capped tmpfs that holds the working folder and temporary files
SOCKETS = "/run/kit"  # inside the sandbox: the size-capped tmpfs the kernel binds its ZMQ sockets in
SOCKETS_BYTES = MiB  # room for sockets (which take none), not for data


class LimitUnavailable(RuntimeError):
    pass
