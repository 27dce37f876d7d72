"""The sandbox student code runs in: bubblewrap around the grading kernel.

Inside, the kernel sees the system read-only, its own scratch copy of the submission as the only
writable folder, and a private /tmp.  The course root and the kit's repository are covered by
empty folders, so ``source/`` (the reference solutions), the gradebook, ``submitted/``,
``autograded/`` and ``feedback/`` of every student, and the mutant catalogue are out of sight;
only the kit's ``autograder`` package comes back in, read-only, for the hidden checks.  The kernel
has no network (its own network namespace) and no view of other processes.  It talks to nbgrader
over Unix sockets in a folder of its own, since TCP cannot cross the network namespace.

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
from traitlets import List, Unicode

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the autograder package


class SandboxUnavailable(RuntimeError):
    pass


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if not path:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed. Installing it needs root: ask an administrator "
                                 "for the package `bubblewrap` (Debian/Ubuntu: apt-get install bubblewrap). Or set "
                                 "AUTOGRADER_SANDBOX=off to grade without a sandbox: student code then runs with your "
                                 "permissions and can read the course, the gradebook and your files")
    return path


def check_sandbox() -> None:
    """Start one trivial sandbox the way grading does, so that a bwrap that cannot work here (no user
    namespaces for unprivileged users, say) is reported before any student is graded."""
    probe = [bwrap_path(), "--die-with-parent", "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/",
             "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "true"]
    try:
        result = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SandboxUnavailable(f"bubblewrap could not start a sandbox: {e}") from None
    if result.returncode != 0:
        raise SandboxUnavailable(
            f"bubblewrap is installed but cannot start a sandbox here ({result.stderr.strip() or 'exit %d' % result.returncode}). "
            "Unprivileged users need user namespaces: ask an administrator to allow them (on Ubuntu 24.04, "
            "sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap). Or set "
            "AUTOGRADER_SANDBOX=off to grade without a sandbox: student code then runs with your permissions")


def hidden_roots(extra: list[str]) -> list[str]:
    """Folders to cover: the kit's repository (when the package lives in one) and the course roots."""
    roots = {str(PACKAGE_DIR.parent)} if (PACKAGE_DIR.parent / "pyproject.toml").exists() else set()
    roots.update(str(Path(p).resolve()) for p in extra if p)
    # cover outer folders first, so that inner binds are not hidden again
    return sorted(roots, key=len)


def bwrap_command(workdir: Path, writable: list[Path], hide: list[str], memory_bytes: int | None = None) -> list[str]:
    cmd = [bwrap_path(), "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid", "--unshare-ipc",
           "--unshare-uts", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for root in hidden_roots(hide):
        cmd += ["--tmpfs", root]
    # the Python environment (a .venv inside the repository is covered above) and the kit come back read-only
    cmd += ["--ro-bind", sys.prefix, sys.prefix]
    cmd += ["--ro-bind", str(PACKAGE_DIR), str(PACKAGE_DIR), "--tmpfs", str(PACKAGE_DIR / "devtools")]
    for folder in [workdir, *writable]:
        cmd += ["--bind", str(folder), str(folder)]
    cmd += ["--chdir", str(workdir), "--setenv", "HOME", "/tmp", "--setenv", "MPLCONFIGDIR", "/tmp",
            "--unsetenv", "JPY_SESSION_NAME", "--unsetenv", "JPY_PARENT_PID"]
    if memory_bytes:
        cmd = ["prlimit", f"--as={memory_bytes}", "--"] + cmd
    return cmd


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager that starts the kernel inside bubblewrap and talks to it over Unix sockets."""

    hide_paths = List(Unicode(), help="course roots to cover inside the sandbox").tag(config=True)
    memory_limit_mb = Unicode("", help="address-space limit of the kernel, in MiB ('' for none); the grading "
                                       "config sets it from KitConfig.memory_limit_mb").tag(config=True)

    async def _async_pre_start_kernel(self, **kw):
        self._sandbox_runtime = Path(tempfile.mkdtemp(prefix="kit-kernel-"))
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
        prefix = bwrap_command(workdir, [self._sandbox_runtime], list(self.hide_paths), limit)
        return prefix + kernel_cmd, kw

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        runtime = getattr(self, "_sandbox_runtime", None)
        if runtime and not restart:
            shutil.rmtree(runtime, ignore_errors=True)
