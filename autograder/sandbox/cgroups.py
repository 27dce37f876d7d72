"""cgroups for the resource limits (``limits``): one per graded kernel, where the kit may create them."""

from __future__ import annotations

import itertools
import os
import signal
import time
import uuid
from pathlib import Path

from ..scratch import ended, maker
from .limits import LimitUnavailable, NotebookLimits


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _counter(path: Path, key: str) -> int:
    for line in _read(path).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            try:
                return int(parts[1])
            except ValueError:
                return 0
    return 0


def _mounts() -> tuple[dict[str, Path], Path | None]:
    """(v1 controller -> mount point, the cgroup2 mount at /sys/fs/cgroup or None)."""
    v1, v2 = {}, None
    for line in _read(Path("/proc/self/mountinfo")).splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        point = Path(fields[4])
        if tail[0] == "cgroup":
            for option in tail[2].split(","):
                if option in ("pids", "memory"):
                    v1.setdefault(option, point)
        elif tail[0] == "cgroup2" and str(point) == "/sys/fs/cgroup":
            v2 = point
    return v1, v2


def _own_paths() -> tuple[dict[str, str], str | None]:
    v1, v2 = {}, None
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        hier, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hier == "0" and controllers == "":
            v2 = path
        for c in controllers.split(","):
            v1[c] = path
    return v1, v2


_names = itertools.count()


class Cgroup:
    """One cgroup per graded kernel (v1: one folder per controller; v2: one folder)."""

    def __init__(self, version: int, folders: dict[str, Path], limits: NotebookLimits):
        self.version, self.folders, self.limits = version, folders, limits

    @classmethod
    def create(cls, limits: NotebookLimits) -> Cgroup:
        """A new cgroup with the limits written, or raise LimitUnavailable saying why not."""
        name = f"kit-cgroup-{maker()}-{next(_names)}{uuid.uuid4().hex[:6]}"  # its maker named (autograder.scratch)
        v1_mounts, v2_mount = _mounts()
        v1_own, v2_own = _own_paths()
        if v2_mount is not None:
            parent = _v2_parent(v2_mount / (v2_own or "/").lstrip("/"))
            folder = parent / name
            try:
                folder.mkdir()
                (folder / "pids.max").write_text(str(limits.max_processes))
                (folder / "memory.max").write_text(str(limits.memory_limit))
            except OSError as e:
                _rmdir(folder)
                raise LimitUnavailable(f"cgroup v2: cannot create {folder} ({e.strerror})") from None
            try:
                (folder / "memory.swap.max").write_text("0")
            except OSError:
                pass
            return cls(2, {"pids": folder, "memory": folder}, limits)
        if not {"pids", "memory"} <= set(v1_mounts):
            raise LimitUnavailable(
                "no cgroup v1 pids and memory controllers are mounted, and /sys/fs/cgroup is not cgroup2"
            )
        folders = {}
        try:
            for controller in ("pids", "memory"):
                folder = v1_mounts[controller] / v1_own.get(controller, "/").lstrip("/") / name
                folder.mkdir()
                folders[controller] = folder
            (folders["pids"] / "pids.max").write_text(str(limits.max_processes))
            (folders["memory"] / "memory.limit_in_bytes").write_text(str(limits.memory_limit))
        except OSError as e:
            for folder in folders.values():
                _rmdir(folder)
            raise LimitUnavailable(f"cgroup v1: cannot create {e.filename} ({e.strerror})") from None
        try:  # no swapping around the memory limit, where swap is accounted
            (folders["memory"] / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_limit))
        except OSError:
            pass
        return cls(1, folders, limits)

    def procs_files(self) -> list[str]:
        return sorted({str(f / "cgroup.procs") for f in self.folders.values()})

    def breach(self) -> str | None:
        pids, memory = self.folders["pids"], self.folders["memory"]
        if _counter(pids / "pids.events", "max") > 0:
            return self.limits.reason_processes()
        events = memory / ("memory.events" if self.version == 2 else "memory.oom_control")
        if _counter(events, "oom_kill") > 0:
            return self.limits.reason_memory()
        return None

    def pids(self) -> set[int]:
        found = set()
        for f in self.folders.values():
            found.update(int(p) for p in _read(f / "cgroup.procs").split() if p.isdigit())
        return found

    def kill(self) -> None:
        if self.version == 2 and (self.folders["pids"] / "cgroup.kill").exists():
            try:
                (self.folders["pids"] / "cgroup.kill").write_text("1")
                return
            except OSError:
                pass
        for _ in range(20):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.05)

    def remove(self) -> None:
        self.kill()
        for folder in self.folders.values():
            for _ in range(40):
                if _rmdir(folder):
                    break
                time.sleep(0.05)


SUPERVISOR = "kit-grader"  # cgroup v2: the leaf the grader moves itself into, so that its cgroup may have children


def _v2_parent(own: Path) -> Path:
    """The cgroup v2 folder new sandboxes go under: the grader's own (delegated) cgroup, with the pids and
    memory controllers enabled for its children.  cgroup v2 lets a cgroup with processes have no such
    children, so the grader first moves itself into a leaf of its own (``kit-grader``); worker processes
    started afterwards are born there.  Raise LimitUnavailable when this is not allowed."""
    parent = own.parent if own.name == SUPERVISOR else own
    control = parent / "cgroup.subtree_control"
    if {"pids", "memory"} <= set(_read(control).split()):
        return parent
    try:
        control.write_text("+pids +memory")
        return parent
    except OSError:
        pass
    try:
        (parent / SUPERVISOR).mkdir(exist_ok=True)
        (parent / SUPERVISOR / "cgroup.procs").write_text(str(os.getpid()))
        control.write_text("+pids +memory")
        return parent
    except OSError as e:
        raise LimitUnavailable(
            f"cgroup v2: cannot enable pids and memory for the children of {parent} ({e.strerror}); "
            f"run grade in a delegated cgroup of its own, e.g. `systemd-run --user --scope "
            f"-p Delegate=yes python -m autograder grade ...`"
        ) from None


def _parents() -> list[Path]:
    """The folders the kit makes its cgroups in (as :meth:`Cgroup.create` finds them, nothing changed)."""
    v1_mounts, v2_mount = _mounts()
    v1_own, v2_own = _own_paths()
    found = []
    if v2_mount is not None:
        own = v2_mount / (v2_own or "/").lstrip("/")
        found.append(own.parent if own.name == SUPERVISOR else own)
    for controller in ("pids", "memory"):
        if controller in v1_mounts:
            found.append(v1_mounts[controller] / v1_own.get(controller, "/").lstrip("/"))
    return found


def sweep() -> list[Path]:
    """End the cgroups made by grading processes that have ended (a killed one never removes its kernels'): what
    still runs in one is killed (what is left of a sandbox: ``leftovers``), then the cgroup is removed.  The ones
    removed."""
    removed = []
    for parent in _parents():
        if not os.access(parent, os.W_OK):  # (none of this user's there)
            continue
        try:
            names = [n for n in os.listdir(parent) if n.startswith("kit-") and ended(n)]
        except OSError:
            continue
        for name in names:
            folder = parent / name
            version = 2 if (folder / "cgroup.kill").exists() or (folder / "cgroup.type").exists() else 1
            Cgroup(version, {"pids": folder, "memory": folder}, None).remove()
            if not folder.exists():
                removed.append(folder)
    return removed


def _rmdir(folder: Path) -> bool:
    try:
        folder.rmdir()
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


_PROBE: dict[tuple, tuple[str, str | None]] = {}


def choose_mechanism(limits: NotebookLimits) -> tuple[str, str | None]:
    """("cgroup v1" | "cgroup v2" | "rlimit", why cgroups are not used or None); tried once per process."""
    key = (limits.mechanism,)
    if key not in _PROBE:
        if limits.mechanism == "rlimit":
            _PROBE[key] = ("rlimit", "ResourceLimits.mechanism = 'rlimit'")
        else:
            try:
                group = Cgroup.create(limits)
                group.remove()
                _PROBE[key] = (f"cgroup v{group.version}", None)
            except LimitUnavailable as e:
                if limits.mechanism == "cgroup":
                    raise
                _PROBE[key] = ("rlimit", str(e))
    return _PROBE[key]


def new_cgroup(limits: NotebookLimits) -> Cgroup | None:
    """A cgroup for one sandbox, or None when the rlimit mechanism is in force."""
    mechanism, _ = choose_mechanism(limits)
    if mechanism == "rlimit":
        return None
    try:
        return Cgroup.create(limits)
    except LimitUnavailable:
        if limits.mechanism == "cgroup":
            raise
        return None
