"""The watchdog next to each sandboxed kernel: polls its counters, and at the first limit reached records it
and kills the sandbox (``limits`` says which limits)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from .cgroups import Cgroup, _read
from .limits import SCRATCH, SOCKETS, MiB, NotebookLimits

SOCKET_ENTRIES = 64  # a kernel binds five sockets


class Watchdog(threading.Thread):
    """Polls one sandbox's counters; at the first limit reached, records it and kills the sandbox."""

    def __init__(
        self,
        launcher_pid: int,
        limits: NotebookLimits,
        cgroup: Cgroup | None,
        interval: float = 0.2,
    ):
        super().__init__(daemon=True, name=f"kit-watchdog-{launcher_pid}")
        self.launcher_pid, self.limits, self.cgroup = launcher_pid, limits, cgroup
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

    def _sandbox_root(self) -> Path | None:
        if self._init is None:
            self._init = sandbox_init(self.launcher_pid)
        return Path(f"/proc/{self._init}/root") if self._init else None

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
            return self._check_sockets(root)
        return None

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
            # the sandbox's /proc/1 is an empty folder (bubblewrap.bwrap_command): its PID 1 is read from this side
            folder = Path(f"/proc/{self._init}") if pid == "1" and self._init else proc / pid
            tasks += _counter_colon(_read(folder / "status"), "Threads")
            pss += _counter_colon(_read(folder / "smaps_rollup"), "Pss") * 1024
        if tasks >= self.limits.max_processes:
            return self.limits.reason_processes()
        if pss > self.limits.memory_limit:
            return self.limits.reason_memory()
        return None

    def _check_sockets(self, root: Path) -> str | None:
        """The kernel's socket folder is a 1 MiB tmpfs (``limits.SOCKETS``) that holds a few sockets: more than
        SOCKET_ENTRIES entries is no kernel's doing (a second line behind the size cap)."""
        count = 0
        try:
            for _, dirnames, filenames in os.walk(root / SOCKETS.lstrip("/")):
                count += len(dirnames) + len(filenames)
                if count > SOCKET_ENTRIES:
                    return f"created more than {SOCKET_ENTRIES} files in the kernel's socket folder"
        except OSError:
            return None
        return None


def _counter_colon(text: str, key: str) -> int:
    for line in text.splitlines():
        if line.startswith(key + ":"):
            try:
                return int(line.split()[1])
            except (IndexError, ValueError):
                return 0
    return 0


def sandbox_init(launcher_pid: int) -> int | None:
    """The sandbox's PID 1 (bubblewrap's child), whose ``/proc/<pid>/root`` is the sandbox's file system once
    bubblewrap has built it; None while bubblewrap has not started it.  (Before bubblewrap, the launcher may be
    a shell that starts processes of its own: ``identity.stage_unreachable``'s mounts.)"""
    if _read(Path(f"/proc/{launcher_pid}/comm")).strip() != "bwrap":
        return None
    children = _read(Path(f"/proc/{launcher_pid}/task/{launcher_pid}/children")).split()
    return int(children[0]) if children else None


def _gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie counts as gone)."""
    stat = _read(Path(f"/proc/{pid}/stat"))
    return not stat or stat.rpartition(")")[2].split()[:1] == ["Z"]
