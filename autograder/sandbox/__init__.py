"""The sandbox student code runs in: bubblewrap around the grading kernel.

Inside, the kernel sees the OS (``/usr``, ``/etc``) and Python read-only, a private, size-capped /tmp
holding its own copy of the submission as its working folder, and the folder of the checker's socket
(read-only: a socket can be connected to there, nothing written).  Nothing else of the machine is
there: not ``source/`` (the reference solutions), the gradebook, any student's ``submitted/``,
``autograded/`` or ``feedback/``, other checkouts of the kit, or the kit's own hidden checks and
mutants.  Where the kit grades, the kernel finds the public client package of
``autograder.channel.public`` in place of the kit, which forwards every hidden check to the grading
process.  The kernel has no network (its own network namespace) and no view of other processes.  It
talks to nbgrader over Unix sockets in a folder of its own, since TCP cannot cross the network
namespace.  ``limits`` adds the per-notebook resource limits (``cgroups``, ``arguments``, ``watchdog``).

If ``bwrap`` is missing the kit refuses to grade unless sandboxing is switched off explicitly
(``AUTOGRADER_SANDBOX=off``, or ``c.KitConfig.sandbox = False``: see ``autograder.config``), and says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, List, Unicode

from ..channel import ENV as CHANNEL_ENV
from ..channel.sockets import socket_folder

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the autograder package


class SandboxUnavailable(RuntimeError):
    pass


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if not path:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed. Installing it needs root: ask an administrator "
            "for the package `bubblewrap` (Debian/Ubuntu: apt-get install bubblewrap). Or set "
            "AUTOGRADER_SANDBOX=off to grade without a sandbox: student code then runs with your "
            "permissions and can read the course, the gradebook and your files"
        )
    return path


def check_sandbox() -> None:
    """Start one trivial sandbox the way grading does, so that a bwrap that cannot work here (no user
    namespaces for unprivileged users, say) is reported before any student is graded."""
    try:
        with tempfile.TemporaryDirectory(prefix="kit-probe-") as folder:
            result = subprocess.run(
                bwrap_command(Path(folder), [], []) + ["true"], capture_output=True, text=True, timeout=30
            )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SandboxUnavailable(f"bubblewrap could not start a sandbox: {e}") from None
    if result.returncode != 0:
        why = result.stderr.strip() or f"exit {result.returncode}"
        raise SandboxUnavailable(
            f"bubblewrap is installed but cannot start a sandbox here ({why}). "
            "Unprivileged users need user namespaces: ask an administrator to allow them (on Ubuntu 24.04, "
            "sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap). Or set "
            "AUTOGRADER_SANDBOX=off to grade without a sandbox: student code then runs with your permissions"
        )


def describe(limits, sandbox: bool, notebook_budget: float | None = None) -> str:
    """What `grade` prints at start: the limits of each graded notebook and how they are enforced."""
    from .cgroups import choose_mechanism

    budget = f", {notebook_budget:g} s of running time in all (--notebook-budget)" if notebook_budget else ""
    if not sandbox:
        return f"limits per notebook: time only{budget} (the sandbox is off, so no process, memory or disk limits)"
    mechanism, why = choose_mechanism(limits)
    what = (
        f"limits per notebook: {limits.max_processes} processes and threads, {limits.max_memory_mb} MiB of memory "
        f"(all processes together), {limits.max_written_mb} MiB written and {limits.max_files} files "
        f"(working folder and /tmp together), {limits.max_open_files} open files per process{budget}"
    )
    if mechanism.startswith("cgroup"):
        how = (
            f"enforced by: {mechanism} (pids, memory), a size-capped tmpfs for the working folder and /tmp, "
            f"rlimits (nofile, fsize, address space)"
        )
    else:
        how = (
            f"enforced by: rlimits in bubblewrap's user namespace (nproc, nofile, fsize, address space), "
            f"a size-capped tmpfs for the working folder and /tmp, a memory watchdog (no cgroups: {why})"
        )
    return what + "\n" + how


def choose_sandbox() -> tuple[bool, str | None]:
    """For a grading where bubblewrap may well be missing (a Gradescope container, a student's own machine):
    (True, None) when it works here, (False, why not) when it is switched off (``AUTOGRADER_SANDBOX=off``)
    or cannot run; raises SandboxUnavailable when ``AUTOGRADER_SANDBOX`` asks for it by name and it cannot
    run (no quiet fallback).  The instructor's ``grade`` does not choose: it refuses without a sandbox."""
    from ..config import SANDBOX_SWITCH, kit_options

    chosen = os.environ.get(SANDBOX_SWITCH)
    if not kit_options().sandbox:
        return False, f"{SANDBOX_SWITCH}={chosen}"
    try:
        check_sandbox()
    except SandboxUnavailable as e:
        if chosen:
            raise SandboxUnavailable(f"{SANDBOX_SWITCH}={chosen}, but {e}") from None
        return False, str(e)
    return True, None


def hidden_roots(extra: list[str]) -> list[str]:
    """Folders to cover: the kit's repository (when the package lives in one) and the course roots."""
    roots = {str(PACKAGE_DIR.parent)} if (PACKAGE_DIR.parent / "pyproject.toml").exists() else set()
    roots.update(str(Path(p).resolve()) for p in extra if p)
    # cover outer folders first, so that inner binds are not hidden again
    return sorted(roots, key=len)


SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def system_view() -> list[str]:
    """bwrap arguments for the system part of the kernel's file system: the OS and Python, nothing else.

    Not the whole of ``/``: other checkouts of the kit, the grader's home and the course live elsewhere.
    """
    cmd = []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):
            cmd += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            cmd += ["--ro-bind", folder, folder]
    for prefix in sorted({sys.base_prefix, os.path.realpath(sys.base_prefix)}):
        if not prefix.startswith(SYSTEM_DIRS):
            cmd += ["--ro-bind", prefix, prefix]
    return cmd


KERNEL_SKIPS = ("debugpy",)  # packages a grading kernel never needs but would import at start


def unused_by_kernel() -> list[str]:
    """Folders of the packages in KERNEL_SKIPS, to hide from the kernel.

    ipykernel imports the debugger (debugpy, its vendored pydevd) in every kernel it starts, when it can:
    about half of a kernel's start-up CPU, for a feature nobody grading uses.  Where the import fails,
    the kernel starts without a debugger (its ``kernel_info`` no longer lists one) and runs code as before.
    """
    import importlib.util

    folders = []
    for name in KERNEL_SKIPS:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            if os.path.isdir(folder):
                folders.append(os.path.realpath(folder))
    return folders


def bwrap_command(
    workdir: Path,
    writable: list[Path],
    hide: list[str],
    memory_bytes: int | None = None,
    limits=None,
    cgroup=None,
    public: Path | None = None,
    sockets: list[Path] = (),
) -> list[str]:
    """The command prefix that runs a command in the sandbox, in ``workdir``.

    With ``limits`` (an :class:`autograder.sandbox.limits.ResourceLimits`), ``workdir`` is not writable: the
    command runs in a copy of it on the sandbox's size-capped /tmp, under the per-process rlimits, and
    (with ``cgroup``) inside that cgroup; nothing it writes reaches ``workdir``.  With ``public`` (a
    folder holding the kit's public client package), that folder stands in for the kit's package, so
    none of the hidden checks is readable.  ``sockets`` are folders mounted read-only: their Unix
    sockets can be connected to, and nothing can be written there.
    """
    from .arguments import ONE_THREAD, inner_prefix, outer_prefix, scratch_args

    tmp = scratch_args(limits, workdir)[0] if limits is not None else ["--tmpfs", "/tmp"]
    cmd = [
        bwrap_path(),
        "--die-with-parent",
        "--new-session",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        *system_view(),
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        *tmp,
    ]
    covered = hidden_roots(hide)
    for root in covered:
        cmd += ["--tmpfs", root]
    # the Python environment (a .venv inside the repository is covered above) comes back read-only
    cmd += ["--ro-bind", sys.prefix, sys.prefix]
    for folder in unused_by_kernel():  # an empty read-only folder in its place: nothing to import
        cmd += ["--tmpfs", folder, "--remount-ro", folder]
    if public is not None:
        cmd += ["--ro-bind", str(public), str(PACKAGE_DIR)]
    else:
        cmd += ["--ro-bind", str(PACKAGE_DIR), str(PACKAGE_DIR), "--tmpfs", str(PACKAGE_DIR / "devtools")]
        covered.append(str(PACKAGE_DIR / "devtools"))
    for folder in sockets:
        cmd += ["--ro-bind", str(folder), str(folder)]
    if limits is None:
        for folder in [workdir, *writable]:
            cmd += ["--bind", str(folder), str(folder)]
        cmd += ["--chdir", str(workdir)]
    else:
        for folder in writable:
            cmd += ["--bind", str(folder), str(folder)]
        # the empty folders that cover the course and the kit are writable tmpfs mounts: make them read-only
        cmd += [arg for root in covered for arg in ("--remount-ro", root)]
        cmd += ["--chdir", scratch_args(limits, workdir)[1]]
        for name in ONE_THREAD:  # BLAS thread pools sized to the machine would count against the process limit
            cmd += ["--setenv", name, "1"]
    cmd += [
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "MPLCONFIGDIR",
        "/tmp",
        "--unsetenv",
        "JPY_SESSION_NAME",
        "--unsetenv",
        "JPY_PARENT_PID",
    ]
    if limits is not None:
        cmd += inner_prefix(limits, workdir)
    if memory_bytes:
        cmd = ["prlimit", f"--as={memory_bytes}", "--"] + cmd
    if limits is not None:
        cmd = outer_prefix(cgroup) + cmd
    return cmd


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
        # ZMQ's ipc sockets are named "kernel-<n>" in this folder
        self._sandbox_runtime = socket_folder("kit-kernel-", len("kernel-65535"))
        self.transport = "ipc"
        self.ip = str(self._sandbox_runtime / "kernel")
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
        prefix = bwrap_command(
            visible,
            [self._sandbox_runtime],
            list(self.hide_paths),
            limit,
            limits=self._limits,
            cgroup=self._cgroup,
            public=public,
            sockets=sockets,
        )
        self._fork, self.started_as = None, "started"
        from .forked import forkable, placeholder_command

        if self.fork_kernels and forkable(kernel_cmd):
            self._fork = (prefix + kernel_cmd, placeholder_command(self._sandbox_runtime), kernel_cmd)
            return prefix + self._fork[1], kw
        return prefix + kernel_cmd, kw

    # set by the executor on a kernel it starts ahead: the fork runs in the background, and finish_start()
    # waits for it when a notebook takes the kernel
    fork_in_background = False

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        await super()._async_launch_kernel(kernel_cmd, **kw)
        if getattr(self, "_fork", None) is None:
            return
        from .forked import fork_in_thread

        _, placeholder, kernel = self._fork
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
            await asyncio.wrap_future(forking)
            self.started_as = "forked"
        except ForkFailed as e:
            self.log.warning("Forking the kernel into its sandbox failed (%s); starting it anew", e)
            await self.provisioner.kill()
            await self.provisioner.wait()
            ordinary, self._fork = self._fork[0], None
            await super()._async_launch_kernel(ordinary, **self._launch_kw)
            if getattr(self, "_watchdog", None) is not None:  # it watched the sandbox just stopped
                self._watchdog.stop()
                self._watch()

    async def _async_post_start_kernel(self, **kw) -> None:
        await super()._async_post_start_kernel(**kw)
        self._watch()

    def _watch(self) -> None:
        from .watchdog import Watchdog

        pid = getattr(self.provisioner, "pid", None)
        if pid and getattr(self, "_limits", None) is not None:
            self._watchdog = Watchdog(pid, self._limits, self._cgroup, self._sandbox_runtime)
            self._watchdog.start()

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        # jupyter_client looks every 0.1 s whether a kernel told to shut down has ended; a forked kernel ends
        # within a few hundredths of a second, and the next notebook waits for it
        await super()._async_wait(pollinterval=min(pollinterval, 0.01))

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
