"""The kit's private temporary folders, each named after the process that made it, and the sweep of those whose
process has ended.

A grading process makes folders of its own under the temporary directory (the seccomp filter's, the public
package's, the checker's socket, each kernel's runtime and files, the bind stage, Hypothesis's home) and removes them
when it ends or when their kernel ends.  A process killed never does: a hung worker the run killed, a worker killed
by the system, a kernel's grading stopped mid-way.  So every such folder's name says who made it,
``kit-<kind>-<maker>-<random>``, the maker being the process's pid namespace, its pid and its start time (a pid used
again by a later process is not taken for the maker), and :func:`sweep` removes the folders of this user whose maker
has ended; ``grade`` sweeps as it starts and as it ends, so a run leaves nothing of its killed workers behind.

What a killed grading process leaves running (its sandboxes) is ended by ``autograder.sandbox.leftovers``, which
reads the makers of the folders and cgroups a sandbox was built with here.

The standard library only: the sandbox, the channel and the grading all make their folders here.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

# kit-<kind>-<pid namespace>.<pid>.<start time in clock ticks>-<mkdtemp's random part>
NAME = re.compile(r"^kit-.+-(\d+)\.(\d+)\.(\d+)-[a-z0-9_]+$")
FIXED = Path("/tmp")  # where the kit makes a folder that must not move with TMPDIR (sockets, the bind stage)


def places() -> tuple[Path, ...]:
    """Where the kit makes its folders: the temporary directory and :data:`FIXED`."""
    return tuple(dict.fromkeys((Path(tempfile.gettempdir()), FIXED)))


def _started(pid: int | str) -> int | None:
    """The start time of process ``pid`` (field 22 of its stat, clock ticks since boot), None if there is none or
    it has ended (a zombie: dead, not yet reaped)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else int(fields[19])


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    return _started(pid) is not None


def _namespace() -> int | None:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None


def maker() -> str:
    """This process as folder names carry it: pid namespace, pid, start time."""
    return f"{_namespace() or 0}.{os.getpid()}.{_started('self') or 0}"


def private_folder(kind: str, folder: str | Path | None = None) -> Path:
    """A new folder (mode 0700) ``kit-<kind>-<maker>-...`` in ``folder`` (the temporary directory by default)."""
    return Path(tempfile.mkdtemp(prefix=f"kit-{kind}-{maker()}-", dir=folder))


@contextlib.contextmanager
def temporary_folder(kind: str, folder: str | Path | None = None) -> Iterator[Path]:
    """:func:`private_folder`, removed when the block ends (as ``tempfile.TemporaryDirectory``); if its process is
    killed first, :func:`sweep` removes it."""
    made = private_folder(kind, folder)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def ended(name: str) -> bool:
    """Whether the folder named ``name`` was made by a process of this pid namespace that has ended.  A name of
    another namespace, or that is not one of these, is never taken for ended."""
    found = NAME.match(name)
    namespace = _namespace()
    if not found or namespace is None or int(found.group(1)) != namespace:
        return False
    return _started(found.group(2)) != int(found.group(3))


def sweep(*folders: str | Path) -> list[Path]:
    """Remove the kit's folders (in ``folders``: by default the temporary directory and /tmp) that belong to this
    user and whose maker has ended; what was removed.  Nothing else is touched: another user's folder, a link, a
    file, a folder of a live process or of another pid namespace."""
    removed = []
    for where in dict.fromkeys(Path(f) for f in (folders or places())):
        try:
            names = [n for n in os.listdir(where) if n.startswith("kit-")]
        except OSError:
            continue
        for name in names:
            path = where / name
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and ended(name):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed
