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
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, List, Unicode

from ..channel import ENV as CHANNEL_ENV
from .bubblewrap import bwrap_command
from .identity import hand_over, kernel_ids
from .limits import SOCKETS

SOCKETS_INSIDE = f"{SOCKETS}/kernel"  # where the kernel binds its ZMQ sockets, kernel-<n>, in its sandbox


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager that starts the kernel inside bubblewrap and talks to it over Unix sockets."""

    hide_paths = List(Unicode(), help="course roots to cover inside the sandbox").tag(config=True)
    memory_limit_mb = Unicode(
        "",
        help="address-space limit of the kernel, in MiB ('' for none); the grading "
        "config sets it from KitConfig.memory_limit_mb",
    ).tag(config=True)
    fork_kernels = Bool(
        True,
        help="Fork each kernel into its sandbox from a process with ipykernel and NumPy already imported "
        "(autograder.sandbox.forked) instead of starting Python anew; the ordinary start is the fallback.",
    ).tag(config=True)

    async def _async_pre_start_kernel(self, **kw):
        # the kernel's folder on this side: its connection file (and a forked kernel's pipe), read-only inside
        self._sandbox_runtime = Path(tempfile.mkdtemp(prefix="kit-kernel-"))
        # ZMQ's ipc sockets, named "kernel-<n>", are in the sandbox's size-capped socket folder: the kernel binds
        # them there (the connection file says so), and this side reaches them through the sandbox's root
        # once bubblewrap has started it (_reach_sockets)
        self.transport = "ipc"
        self.ip = SOCKETS_INSIDE
        self.connection_file = str(self._sandbox_runtime / "connection.json")
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
        # bwrap does not pass SIGINT on to the kernel: interrupt it with a message on the control channel
        self.kernel_spec.interrupt_mode = "message"
        workdir = Path(kw.get("cwd") or os.getcwd()).resolve()
        # the kernel's own chatter (connection notes) is not the student's output: keep it off the grader's terminal
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        limit = int(self.memory_limit_mb) * 1024 * 1024 if self.memory_limit_mb else None
        from .cgroups import new_cgroup
        from .limits import ResourceLimits

        self._limits = ResourceLimits(config=self.config)
        self._cgroup = new_cgroup(self._limits)
        sockets, public = [], None
        channel = (kw.get("env") or {}).get(CHANNEL_ENV)
        if channel:  # the checks run outside: the kernel gets the public client and the checker's socket folder
            from ..channel.public import public_package

            sockets.append(Path(channel).parent)
            public = public_package()
        # the kernel gets the submission's other files, never a notebook: nbgrader writes each autograded
        # notebook, hidden tests restored, into this folder before it runs the next one
        self._kernel_files = Path(tempfile.mkdtemp(prefix="kit-files-"))
        visible = self._kernel_files / (workdir.name or "work")
        shutil.copytree(workdir, visible, symlinks=True, ignore=shutil.ignore_patterns("*.ipynb"))
        ids = kernel_ids(self.config)
        prefix = bwrap_command(
            visible,
            [],
            list(self.hide_paths),
            limit,
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
            self._fork = (prefix + kernel_cmd, placeholder_command(self._sandbox_runtime), kernel_cmd)
        # bubblewrap runs as the kernel's user: the kernel's folders are opened to it
        hand_over(ids, self._sandbox_runtime, self._kernel_files, *sockets, *([public.parent] if public else []))
        if self._fork is not None:
            return as_init(prefix) + self._fork[1], kw
        return prefix + kernel_cmd, kw

    # how the kernel came up: "forked" into its sandbox, or "started" the ordinary way, and then why (the executor
    # records both in the autograded notebook; the run's summary and the class report count them)
    started_as: str | None = None
    started_why: str | None = None

    # set by the executor on a kernel it starts ahead: the fork runs in the background, and finish_start()
    # waits for it when a notebook takes the kernel
    fork_in_background = False

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        await super()._async_launch_kernel(kernel_cmd, **kw)
        await self._reach_sockets()
        if getattr(self, "_fork", None) is None:
            return
        from .forked import fork_in_thread

        _, placeholder, kernel = self._fork
        self._sandbox_process = self.provisioner.process  # bubblewrap, running the placeholder the kernel joins
        cgroup_files = self._cgroup.procs_files() if self._cgroup is not None else []
        self._forking, self._launch_kw = fork_in_thread(self.provisioner.pid, placeholder, kernel, cgroup_files), kw
        if not self.fork_in_background:
            await self.finish_start()

    async def finish_start(self) -> None:
        """Wait for the kernel being forked into its sandbox; if that failed, start the kernel the ordinary
        way (the kit's machinery failed, not the student)."""
        import asyncio

        from .forked import ForkFailed

        forking, self._forking = getattr(self, "_forking", None), None
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
            ordinary, self._fork = self._fork[0], None
            self.ip = SOCKETS_INSIDE  # as the connection file says, until the new sandbox is started
            await super()._async_launch_kernel(ordinary, **self._launch_kw)
            await self._reach_sockets()
            if getattr(self, "_watchdog", None) is not None:  # it watched the sandbox just stopped
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

    async def _async_post_start_kernel(self, **kw) -> None:
        await super()._async_post_start_kernel(**kw)
        self._watch()

    def _watch(self) -> None:
        from .watchdog import Watchdog

        pid = getattr(self.provisioner, "pid", None)
        if pid and getattr(self, "_limits", None) is not None:
            self._watchdog = Watchdog(pid, self._limits, self._cgroup)
            self._watchdog.start()

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        # jupyter_client looks every 0.1 s whether a kernel told to shut down has ended; a forked kernel ends
        # within a few hundredths of a second, and the next notebook waits for it
        await super()._async_wait(pollinterval=min(pollinterval, 0.01))

    _fork_server = None  # the fork server that forked this kernel (None: started the ordinary way)
    _sandbox_process = None  # bubblewrap running the placeholder a forked kernel joined

    def death_cause(self) -> str | None:
        """Why the kernel died, when its death is the kit's and not the student's code's: its fork server died
        (the server is outside the sandbox), or the sandbox's placeholder was killed (it ends by itself only when
        the kernel has ended); None otherwise."""
        from .forked import placeholder_death, server_death

        if self._fork_server is None:  # started the ordinary way: bubblewrap's status is the kernel's own
            return None
        return server_death(self._fork_server) or placeholder_death(self._sandbox_process)

    @property
    def limit_breach(self) -> str | None:
        """The resource limit the sandbox reached (it was then stopped), in words; None if none."""
        watchdog = getattr(self, "_watchdog", None)
        if watchdog is None:
            return None
        if watchdog.breach is None and watchdog.is_alive():
            reason = watchdog.check()  # a last look: the kernel may have died of the limit a moment ago
            if reason:
                watchdog.breach = reason
        return watchdog.breach

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        watchdog = getattr(self, "_watchdog", None)
        if watchdog is not None and not restart:
            watchdog.stop()
        cgroup = getattr(self, "_cgroup", None)
        if cgroup is not None and not restart:
            cgroup.remove()
            self._cgroup = None
        await super()._async_cleanup_resources(restart=restart)
        runtime = getattr(self, "_sandbox_runtime", None)
        if runtime and not restart:
            shutil.rmtree(runtime, ignore_errors=True)
        files = getattr(self, "_kernel_files", None)
        if files and not restart:
            shutil.rmtree(files, ignore_errors=True)

    # nbclient calls cleanup_resources() (not _async_cleanup_resources) when the kernel is already dead
    cleanup_resources = _async_cleanup_resources
