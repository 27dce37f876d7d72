"""The kernel manager grading uses: jupyter_client's, with the kernel started inside bubblewrap.

Each kernel gets a sandbox of its own (``bubblewrap``), its resource limits (``limits``, ``cgroups``) and a
watchdog (``watchdog``); it is forked into that sandbox from the fork server (``forked``) where it can be,
and started the ordinary way otherwise.  It talks to nbgrader over Unix sockets in a folder of its own,
since TCP cannot cross the sandbox's network namespace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from traitlets import Bool, List, Unicode

from ..channel import ENV as CHANNEL_ENV
from ..scratch import private_folder
from .bubblewrap import bwrap_command
from .identity import hand_over, kernel_ids
from .jupyter_hooks import HookedKernelManager
from .limits import SOCKETS

SOCKETS_INSIDE = f"{SOCKETS}/kernel"  # where the kernel binds its ZMQ sockets, kernel-<n>, in its sandbox


class FolderTooLarge(ValueError):
    """The folder a kernel is started in holds more than its sandbox's /tmp can: its kernel cannot start."""


def stage_folder(workdir: Path, into: Path, limits) -> None:
    """Copy ``workdir`` but its notebooks to ``into``, links as links: what the kernel sees as its folder, copied in
    turn into the sandbox's /tmp.  That tmpfs holds ``limits.max_written_mb`` MiB and ``limits.max_files`` files, so
    a folder with more could never be shown in full: it is refused with a :class:`FolderTooLarge` naming it, the
    copy (on the machine's disk) stopped at the first entry past them and removed.  The kit's own temporary folders
    are never copied: a kernel started in a folder that holds them (the system's temporary folder, a home folder
    holding it) would copy ``into`` into itself, and the other kernels' files besides."""
    kits = Path(tempfile.gettempdir()).resolve()
    left = (limits.max_written_mb * 2**20, limits.max_files)

    def kept(folder: str, names: list[str]) -> set[str]:
        nonlocal left
        ignored, in_kits = set(), Path(folder) == kits
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(".ipynb") or (in_kits and name.startswith("kit-")):
                ignored.add(name)
                continue
            left = (left[0] - os.lstat(path).st_size, left[1] - 1)
            if left[0] < 0 or left[1] < 0:
                raise FolderTooLarge(
                    f"{workdir}: a kernel started in this folder gets a copy of it (but its notebooks) in its "
                    f"sandbox's /tmp, which holds {limits.max_written_mb} MiB and {limits.max_files} files "
                    "(c.ResourceLimits.max_written_mb, max_files): this folder holds more. Start the notebook "
                    "from a folder of its own, with only the files it reads"
                )
        return ignored

    try:
        shutil.copytree(workdir, into, symlinks=True, ignore=kept)
    except FolderTooLarge:
        shutil.rmtree(into, ignore_errors=True)
        raise


@dataclass(frozen=True)
class Fork:
    """How a kernel is forked into its sandbox: bubblewrap runs ``placeholder`` and the fork server forks
    ``kernel`` into it; ``ordinary`` (bubblewrap around the kernel's own command) is the fallback."""

    ordinary: list[str]
    placeholder: list[str]
    kernel: list[str]


class SandboxedKernelManager(HookedKernelManager):
    """A kernel manager that starts the kernel inside bubblewrap and talks to it over Unix sockets."""

    hide_paths = List(Unicode(), help="course roots to cover inside the sandbox").tag(config=True)
    fork_kernels = Bool(
        True,
        help="Fork each kernel into its sandbox from a process with ipykernel and NumPy already imported "
        "(autograder.sandbox.forked) instead of starting Python anew; the ordinary start is the fallback.",
    ).tag(config=True)

    # --- the state of one kernel's sandbox, all of it: set as the kernel starts, None before ------------------
    _sandbox_runtime: Path | None = None  # the kernel's folder on this side: connection file, a forked kernel's pipe
    _kernel_files: Path | None = None  # the copy of the submission's other files the kernel sees as its folder
    _limits = None  # its NotebookLimits (the run's GradingOptions.limits, handed over in the config)
    _cgroup = None  # the cgroup holding them, where there is one
    _fork: Fork | None = None  # how it is forked into its sandbox (None: started the ordinary way)
    _forking = None  # the fork under way (a future), until finish_start() has waited for it
    _launch_kw: dict | None = None  # the Popen arguments, for the fallback's start
    _watchdog = None  # the watchdog of its limits
    _forked_pid: int | None = None  # the forked kernel's process id
    _fork_server = None  # the fork server that forked this kernel (None: started the ordinary way)
    _sandbox_process = None  # bubblewrap running the placeholder a forked kernel joined
    # how the kernel came up: "forked" into its sandbox, or "started" the ordinary way, and then why (the executor
    # records both in the autograded notebook; the run's summary and the class report count them)
    started_as: str | None = None
    started_why: str | None = None
    # set by the executor on a kernel it starts ahead: the fork runs in the background, and finish_start()
    # waits for it when a notebook takes the kernel
    fork_in_background = False
    # a forked kernel ends within a few hundredths of a second of its shutdown, and the next notebook waits for it:
    # look every 0.01 s, not jupyter_client's 0.1 s
    wait_interval = 0.01

    def before_command(self) -> None:
        # the kernel's folder on this side: its connection file (and a forked kernel's pipe), read-only inside
        self._sandbox_runtime = private_folder("kernel")
        # ZMQ's ipc sockets, named "kernel-<n>", are in the sandbox's size-capped socket folder: the kernel binds
        # them there (the connection file says so), and this side reaches them through the sandbox's root
        # once bubblewrap has started it (_reach_sockets)
        self.transport = "ipc"
        self.ip = SOCKETS_INSIDE
        self.connection_file = str(self._sandbox_runtime / "connection.json")

    def command(self, kernel_cmd: list[str], kw: dict) -> tuple[list[str], dict]:
        # bwrap does not pass SIGINT on to the kernel: interrupt it with a message on the control channel
        self.kernel_spec.interrupt_mode = "message"
        workdir = Path(kw.get("cwd") or os.getcwd()).resolve()
        # the kernel's own chatter (connection notes) is not the student's output: keep it off the grader's terminal
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        from .cgroups import new_cgroup
        from .limits import NotebookLimits

        self._limits = NotebookLimits.from_config(self.config)
        # the kernel gets the submission's other files, never a notebook: nbgrader writes each autograded
        # notebook, hidden tests restored, into this folder before it runs the next one
        self._kernel_files = private_folder("files")
        visible = self._kernel_files / (workdir.name or "work")
        try:
            stage_folder(workdir, visible, self._limits)
        except FolderTooLarge:
            self.after_cleanup(restart=False)  # nothing was started: the kernel's folders go
            raise
        self._cgroup = new_cgroup(self._limits)
        sockets, public = [], None
        channel = (kw.get("env") or {}).get(CHANNEL_ENV)
        if channel:  # the checks run outside: the kernel gets the public client and the checker's socket folder
            from ..channel.public import public_package

            sockets.append(Path(channel).parent)
            public = public_package()
        ids = kernel_ids(self.config)
        prefix = bwrap_command(
            visible,
            [],
            list(self.hide_paths),
            self._limits.process_address_space or None,
            limits=self._limits,
            cgroup=self._cgroup,
            public=public,
            read_only=[*sockets, self._sandbox_runtime],
            ids=ids,
            environment=kw.get("env"),
        )
        from .forked import as_init, forkable, placeholder_command

        self._fork, self.started_as = None, "started"
        if not self.fork_kernels:
            self.started_why = "SandboxedKernelManager.fork_kernels is False"
        elif not forkable(kernel_cmd):
            self.started_why = f"the kernel is not this Python's ipykernel ({' '.join(kernel_cmd[:3])})"
        else:
            self.started_why = None
            self._fork = Fork(prefix + kernel_cmd, placeholder_command(self._sandbox_runtime), kernel_cmd)
        # bubblewrap runs as the kernel's user: the kernel's folders are opened to it
        hand_over(ids, self._sandbox_runtime, self._kernel_files, *sockets, *([public.parent] if public else []))
        if self._fork is not None:
            return as_init(prefix) + self._fork.placeholder, kw
        return prefix + kernel_cmd, kw

    async def launched(self, kw: dict) -> None:
        await self._reach_sockets()
        if self._fork is None:
            return
        from .forked import fork_in_thread

        self._sandbox_process = self.provisioner.process  # bubblewrap, running the placeholder the kernel joins
        cgroup_files = self._cgroup.procs_files() if self._cgroup is not None else []
        self._forking = fork_in_thread(self.provisioner.pid, self._fork.placeholder, self._fork.kernel, cgroup_files)
        self._launch_kw = kw
        if not self.fork_in_background:
            await self.finish_start()

    async def finish_start(self) -> None:
        """Wait for the kernel being forked into its sandbox; if that failed, start the kernel the ordinary
        way (the kit's machinery failed, not the student)."""
        import asyncio

        from .forked import ForkFailed

        forking, self._forking = self._forking, None
        if forking is None:
            return
        try:
            self._forked_pid, self._fork_server = await asyncio.wrap_future(forking)
            self.started_as = "forked"
        except ForkFailed as e:
            self.log.warning("Forking the kernel into its sandbox failed (%s); starting it anew", e)
            self.started_why = f"forking failed: {e}"
            await self.provisioner.kill()
            await self.provisioner.wait()
            ordinary, self._fork = self._fork.ordinary, None
            self.ip = SOCKETS_INSIDE  # as the connection file says, until the new sandbox is started
            await self.launch_process(ordinary, **self._launch_kw)
            await self._reach_sockets()
            if self._watchdog is not None:  # it watched the sandbox just stopped
                self._watchdog.stop()
                self._watch()

    async def _reach_sockets(self, timeout: float = 30.0) -> None:
        """Point this side's connection at the kernel's sockets as seen from outside the sandbox:
        ``/proc/<the sandbox's PID 1>/root/run/kit/kernel-<n>`` (within sun_path's 107 bytes).  ZMQ connects
        again until the kernel has bound them."""
        import asyncio

        from .watchdog import sandbox_init

        deadline = time.monotonic() + timeout
        while (init := sandbox_init(self.provisioner.pid)) is None and time.monotonic() < deadline:
            if not self.provisioner.has_process or await self.provisioner.poll() is not None:
                return  # bubblewrap ended at once: the kernel is reported dead as any other
            await asyncio.sleep(0.002)
        if init is not None:
            self.ip = f"/proc/{init}/root{SOCKETS_INSIDE}"

    def started(self) -> None:
        self._watch()

    def _watch(self) -> None:
        from .watchdog import Watchdog

        pid = getattr(self.provisioner, "pid", None)
        if pid and self._limits is not None:
            self._watchdog = Watchdog(pid, self._limits, self._cgroup)
            self._watchdog.start()

    def death_cause(self) -> str | None:
        """Why the kernel died, when its death is the kit's and not the student's code's: its fork server died
        (the server is outside the sandbox), the sandbox's placeholder was killed (it ends by itself only when
        the kernel has ended), or bubblewrap itself was (outside the sandbox: ``sandbox_killed``); None otherwise."""
        from .forked import placeholder_death, sandbox_killed, server_death

        killed = sandbox_killed(getattr(self.provisioner, "process", None) if self.provisioner else None)
        if self._fork_server is None:  # started the ordinary way: bubblewrap's status is the kernel's, unless killed
            return killed
        return server_death(self._fork_server) or placeholder_death(self._sandbox_process) or killed

    @property
    def limit_breach(self) -> str | None:
        """The resource limit the sandbox reached (it was then stopped), in words; None if none."""
        watchdog = self._watchdog
        if watchdog is None:
            return None
        if watchdog.breach is None and watchdog.is_alive():
            reason = watchdog.check()  # a last look: the kernel may have died of the limit a moment ago
            if reason:
                watchdog.breach = reason
        return watchdog.breach

    def before_cleanup(self, restart: bool) -> None:
        if restart:
            return
        if self._watchdog is not None:
            self._watchdog.stop()
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None

    def after_cleanup(self, restart: bool) -> None:
        if restart:
            return
        for folder in (self._sandbox_runtime, self._kernel_files):
            if folder:
                shutil.rmtree(folder, ignore_errors=True)
