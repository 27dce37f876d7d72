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
  notebook comes back.  ``RLIMIT_FSIZE`` caps any single file, also in the kernel's socket folder
  (the one writable host folder; the watchdog allows it 64 entries and 1 MiB).  ``/dev/shm`` is a
  1 MiB tmpfs, and the empty folders that cover the course and the kit are read-only;
- **files** (``max_files``) on that tmpfs, and **open files** per process (``RLIMIT_NOFILE``).

A watchdog thread next to each kernel reads the counters (cgroup events, the tmpfs's ``statvfs``
through ``/proc/<pid>/root``, the sandbox's own ``/proc``) and, when a limit is reached, kills the
sandbox (its PID namespace ends with it) and records which limit, in words a person can read
("started more than 64 processes or threads").  The notebook then stops like one whose kernel died:
the cells before keep their points.
"""
from __future__ import annotations

import itertools
import os
import signal
import threading
import time
import uuid
from pathlib import Path

from traitlets import Enum, Int
from traitlets.config import Configurable

MiB = 1024 * 1024
SCRATCH = "/tmp"  # inside the sandbox: the size-capped tmpfs that holds the working folder and temporary files


class LimitUnavailable(RuntimeError):
    pass


class ResourceLimits(Configurable):
    """Per graded notebook limits; set them in ``nbgrader_config.py`` as ``c.ResourceLimits.<name>``."""

    max_processes = Int(64, help="Processes and threads one graded notebook may run at once, its kernel's own "
                                 "(about 15) included. Reaching it stops the notebook.").tag(config=True)
    max_memory_mb = Int(2048, help="MiB of memory the kernel and every process it starts may use together "
                                   "(with cgroups, the tmpfs pages of its scratch folder count too). Reaching it stops the notebook. "
                                   "Each process is also capped at SandboxedKernelManager.memory_limit_mb of "
                                   "address space.").tag(config=True)
    max_written_mb = Int(256, help="MiB the graded code may write inside the sandbox, its working folder and /tmp "
                                   "together (one size-capped tmpfs). Filling it stops the notebook.").tag(config=True)
    max_files = Int(10000, help="Files and folders the graded code may create in its working folder and /tmp "
                                "together. Reaching it stops the notebook.").tag(config=True)
    max_open_files = Int(256, help="Open files per process (RLIMIT_NOFILE).").tag(config=True)
    max_submitted_mb = Int(20, help="MiB of a student's submitted files other than the notebooks that are copied "
                                    "in for grading (and so into autograded/ and feedback/); the rest is left out "
                                    "with a note.").tag(config=True)
    max_submitted_files = Int(200, help="Number of submitted files other than the notebooks that are copied in; "
                                        "the rest is left out with a note.").tag(config=True)
    mechanism = Enum(["auto", "cgroup", "rlimit"], "auto",
                     help="How process and memory limits are enforced: 'cgroup' (cgroup v1 pids+memory or a "
                          "delegated cgroup v2 subtree; refuse to grade without), 'rlimit' (RLIMIT_NPROC in "
                          "bubblewrap's user namespace and a memory watchdog), or 'auto' (cgroups when the kit "
                          "can create them, rlimits otherwise).").tag(config=True)

    # ---------------------------------------------------------------------------------------- words
    def reason_processes(self) -> str:
        return f"started more than {self.max_processes} processes or threads"

    def reason_memory(self) -> str:
        return f"used more than {self.max_memory_mb} MiB of memory"

    def reason_written(self) -> str:
        return f"wrote more than {self.max_written_mb} MiB"

    def reason_files(self) -> str:
        return f"created more than {self.max_files} files"


# ------------------------------------------------------------------------------------------ cgroups

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

    def __init__(self, version: int, folders: dict[str, Path], limits: ResourceLimits):
        self.version, self.folders, self.limits = version, folders, limits

    @classmethod
    def create(cls, limits: ResourceLimits) -> "Cgroup":
        """A new cgroup with the limits written, or raise LimitUnavailable saying why not."""
        name = f"kit-{os.getpid()}-{next(_names)}-{uuid.uuid4().hex[:6]}"
        v1_mounts, v2_mount = _mounts()
        v1_own, v2_own = _own_paths()
        if v2_mount is not None:
            parent = _v2_parent(v2_mount / (v2_own or "/").lstrip("/"))
            folder = parent / name
            try:
                folder.mkdir()
                (folder / "pids.max").write_text(str(limits.max_processes))
                (folder / "memory.max").write_text(str(limits.max_memory_mb * MiB))
            except OSError as e:
                _rmdir(folder)
                raise LimitUnavailable(f"cgroup v2: cannot create {folder} ({e.strerror})")
            try:
                (folder / "memory.swap.max").write_text("0")
            except OSError:
                pass
            return cls(2, {"pids": folder, "memory": folder}, limits)
        if not {"pids", "memory"} <= set(v1_mounts):
            raise LimitUnavailable("no cgroup v1 pids and memory controllers are mounted, and /sys/fs/cgroup is not cgroup2")
        folders = {}
        try:
            for controller in ("pids", "memory"):
                folder = v1_mounts[controller] / v1_own.get(controller, "/").lstrip("/") / name
                folder.mkdir()
                folders[controller] = folder
            (folders["pids"] / "pids.max").write_text(str(limits.max_processes))
            (folders["memory"] / "memory.limit_in_bytes").write_text(str(limits.max_memory_mb * MiB))
        except OSError as e:
            for folder in folders.values():
                _rmdir(folder)
            raise LimitUnavailable(f"cgroup v1: cannot create {e.filename} ({e.strerror})")
        try:  # no swapping around the memory limit, where swap is accounted
            (folders["memory"] / "memory.memsw.limit_in_bytes").write_text(str(limits.max_memory_mb * MiB))
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
        raise LimitUnavailable(f"cgroup v2: cannot enable pids and memory for the children of {parent} ({e.strerror}); "
                               f"run grade in a delegated cgroup of its own, e.g. `systemd-run --user --scope "
                               f"-p Delegate=yes python -m autograder grade ...`") from None


def _rmdir(folder: Path) -> bool:
    try:
        folder.rmdir()
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


_PROBE: dict[tuple, tuple[str, str | None]] = {}


def choose_mechanism(limits: ResourceLimits) -> tuple[str, str | None]:
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


def new_cgroup(limits: ResourceLimits) -> Cgroup | None:
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


def describe(limits: ResourceLimits, sandbox: bool, notebook_budget: float | None = None) -> str:
    """What `grade` prints at start: the limits of each graded notebook and how they are enforced."""
    budget = f", {notebook_budget:g} s of running time in all (--notebook-budget)" if notebook_budget else ""
    if not sandbox:
        return f"limits per notebook: time only{budget} (the sandbox is off, so no process, memory or disk limits)"
    mechanism, why = choose_mechanism(limits)
    what = (f"limits per notebook: {limits.max_processes} processes and threads, {limits.max_memory_mb} MiB of memory "
            f"(all processes together), {limits.max_written_mb} MiB written and {limits.max_files} files "
            f"(working folder and /tmp together), {limits.max_open_files} open files per process{budget}")
    if mechanism.startswith("cgroup"):
        how = (f"enforced by: {mechanism} (pids, memory), a size-capped tmpfs for the working folder and /tmp, "
               f"rlimits (nofile, fsize, address space)")
    else:
        how = (f"enforced by: rlimits in bubblewrap's user namespace (nproc, nofile, fsize, address space), "
               f"a size-capped tmpfs for the working folder and /tmp, a memory watchdog (no cgroups: {why})")
    return what + "\n" + how


# ------------------------------------------------------------------------------ the sandbox command

def outer_prefix(cgroup: Cgroup | None) -> list[str]:
    """Put the sandbox (bubblewrap itself and so everything inside) into ``cgroup`` before it starts."""
    if cgroup is None:
        return []
    script = 'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 97; shift; done; shift; exec "$@"'
    return ["/bin/sh", "-c", script, "kit-cgroup", *cgroup.procs_files(), "--"]


SUBMITTED = f"{SCRATCH}/.kit-submitted"  # inside the sandbox: the submission, read-only, copied into the working folder


def scratch_args(limits: ResourceLimits, workdir: Path) -> tuple[list[str], str]:
    """bubblewrap arguments for the size-capped scratch tmpfs at /tmp with the working folder in it (a copy
    of ``workdir``, which is mounted read-only at SUBMITTED), and the working folder's path."""
    inside = f"{SCRATCH}/{workdir.name or 'work'}"
    if inside == SUBMITTED:
        inside = f"{SCRATCH}/work"
    return ["--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
            "--size", str(limits.max_written_mb * MiB), "--tmpfs", SCRATCH, "--dir", inside,
            "--ro-bind", str(workdir), SUBMITTED], inside


SHM_BYTES = MiB  # /dev/shm: room for POSIX semaphores (multiprocessing locks), not for data


def inner_prefix(limits: ResourceLimits, workdir: Path) -> list[str]:
    """Inside the sandbox: the per-process rlimits, then copy the submission into the working folder."""
    rlimits = ["prlimit", f"--nproc={limits.max_processes}", f"--nofile={limits.max_open_files}",
               f"--fsize={limits.max_written_mb * MiB}", "--"]
    copy = 'cp -R -- "$1"/. . 2>/dev/null; shift; exec "$@"'
    return rlimits + ["/bin/sh", "-c", copy, "kit-scratch", SUBMITTED]


ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


# --------------------------------------------------------------------------------------- watchdog

class Watchdog(threading.Thread):
    """Polls one sandbox's counters; at the first limit reached, records it and kills the sandbox."""

    def __init__(self, launcher_pid: int, limits: ResourceLimits, cgroup: Cgroup | None,
                 runtime: Path | None = None, interval: float = 0.2):
        super().__init__(daemon=True, name=f"kit-watchdog-{launcher_pid}")
        self.launcher_pid, self.limits, self.cgroup, self.runtime = launcher_pid, limits, cgroup, runtime
        self.interval = interval
        self.breach: str | None = None
        self._halt = threading.Event()
        self._init: int | None = None

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        while not self._halt.is_set():
            if _gone(self.launcher_pid):
                return
            reason = self.check()
            if reason:
                self.breach = reason
                self.kill()
                return
            self._halt.wait(self.interval)

    def kill(self) -> None:
        # the sandbox's PID 1 first: its PID namespace ends with it; then bubblewrap outside, whose
        # --die-with-parent does not always reach into a user namespace
        for pid in ([self._init] if self._init else []) + [self.launcher_pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.cgroup is not None:
            self.cgroup.kill()

    # the sandbox's PID 1 (bubblewrap's child): its /proc/<pid>/root is the sandbox's file system
    def _sandbox_root(self) -> Path | None:
        if self._init is None:
            children = _read(Path(f"/proc/{self.launcher_pid}/task/{self.launcher_pid}/children")).split()
            if not children:
                return None
            self._init = int(children[0])
        return Path(f"/proc/{self._init}/root")

    def check(self) -> str | None:
        if self.cgroup is not None:
            reason = self.cgroup.breach()
            if reason:
                return reason
        root = self._sandbox_root()
        if root is not None and self._is_sandbox(root):
            reason = self._check_scratch(root)
            if reason:
                return reason
            if self.cgroup is None:
                reason = self._check_processes(root)
                if reason:
                    return reason
        return self._check_runtime()

    def _is_sandbox(self, root: Path) -> bool:
        """Whether ``root`` already is the sandbox's file system (bubblewrap may still be setting it up)."""
        try:
            st = os.statvfs(root / SCRATCH.lstrip("/"))
        except OSError:
            return False
        return abs(st.f_blocks * st.f_frsize - self.limits.max_written_mb * MiB) <= 64 * 1024

    def _check_scratch(self, root: Path) -> str | None:
        try:
            st = os.statvfs(root / SCRATCH.lstrip("/"))
        except OSError:
            return None
        if st.f_files - st.f_ffree > self.limits.max_files:
            return self.limits.reason_files()
        if st.f_bavail * st.f_frsize < 64 * 1024:
            return self.limits.reason_written()
        return None

    def _check_processes(self, root: Path) -> str | None:
        proc = root / "proc"
        tasks, pss = 0, 0
        try:
            entries = [e for e in os.listdir(proc) if e.isdigit()]
        except OSError:
            return None
        for pid in entries:
            status = _read(proc / pid / "status")
            tasks += _counter_colon(status, "Threads")
            pss += _counter_colon(_read(proc / pid / "smaps_rollup"), "Pss") * 1024
        if tasks >= self.limits.max_processes:
            return self.limits.reason_processes()
        if pss > self.limits.max_memory_mb * MiB:
            return self.limits.reason_memory()
        return None

    def _check_runtime(self) -> str | None:
        """The kernel's socket folder is the one writable host folder: it may hold a few small files only."""
        if self.runtime is None:
            return None
        total, count = 0, 0
        try:
            for dirpath, dirnames, filenames in os.walk(self.runtime):
                for name in filenames + dirnames:
                    count += 1
                    try:
                        total += os.lstat(os.path.join(dirpath, name)).st_size
                    except OSError:
                        pass
                if count > 64:
                    break
        except OSError:
            return None
        if count > 64 or total > MiB:
            return self.limits.reason_written() + " (in the kernel's socket folder)"
        return None


def _counter_colon(text: str, key: str) -> int:
    for line in text.splitlines():
        if line.startswith(key + ":"):
            try:
                return int(line.split()[1])
            except (IndexError, ValueError):
                return 0
    return 0


def _gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie counts as gone)."""
    stat = _read(Path(f"/proc/{pid}/stat"))
    return not stat or stat.rpartition(")")[2].split()[:1] == ["Z"]
