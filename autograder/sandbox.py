"""The sandbox student code runs in: bubblewrap around the grading kernel.

Inside, the kernel sees the OS (``/usr``, ``/etc``) and Python read-only, a private /tmp, its own
scratch copy of the submission as the only writable folder, and the folder of the checker's socket.
Nothing else of the machine is there: not ``source/`` (the reference solutions), the gradebook, any
student's ``submitted/``, ``autograded/`` or ``feedback/``, other checkouts of the kit, or the
kit's own hidden checks and mutants.  Where the kit is installed, the kernel finds the public client
package of ``autograder.channel.public`` instead, which forwards every hidden check to the grading
process.  The kernel has no network (its own network namespace) and no view of other processes.
It talks to nbgrader over Unix sockets in a folder of its own, since TCP cannot cross the network
namespace.

If ``bwrap`` is missing the kit refuses to grade unless sandboxing is switched off explicitly
(``AUTOGRADER_SANDBOX=off``), and says so.
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

from .channel import ENV as CHANNEL_ENV

PACKAGE_DIR = Path(__file__).resolve().parent


class SandboxUnavailable(RuntimeError):
    pass


def sandbox_enabled() -> bool:
    return os.environ.get("AUTOGRADER_SANDBOX", "on").lower() not in ("off", "0", "no", "false")


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if not path:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`, or set "
                                 "AUTOGRADER_SANDBOX=off to grade without a sandbox (student code then runs with "
                                 "your permissions)")
    return path


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


def bwrap_command(workdir: Path, writable: list[Path], hide: list[str], memory_bytes: int | None = None,
                  public: Path | None = None) -> list[str]:
    """The bwrap prefix.  With ``public`` (a folder holding the kit's public client package), that
    folder stands in for the kit's package, so none of the hidden checks is readable."""
    cmd = [bwrap_path(), "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid", "--unshare-ipc",
           "--unshare-uts", *system_view(), "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for root in hidden_roots(hide):
        cmd += ["--tmpfs", root]
    # the Python environment (a .venv inside the repository is covered above) comes back read-only
    cmd += ["--ro-bind", sys.prefix, sys.prefix]
    if public is not None:
        cmd += ["--ro-bind", str(public), str(PACKAGE_DIR)]
    else:
        cmd += ["--ro-bind", str(PACKAGE_DIR), str(PACKAGE_DIR), "--tmpfs", str(PACKAGE_DIR / "mutants")]
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
    memory_limit_mb = Unicode("4096", help="address-space limit of the kernel, in MiB ('' for none)").tag(config=True)

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
        writable, public = [self._sandbox_runtime], None
        channel = (kw.get("env") or {}).get(CHANNEL_ENV)
        if channel:  # the checks run outside: the kernel gets the public client and the checker's socket folder
            from .channel.public import public_package

            writable.append(Path(channel).parent)
            public = public_package()
        prefix = bwrap_command(workdir, writable, list(self.hide_paths), limit, public)
        return prefix + kernel_cmd, kw

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        runtime = getattr(self, "_sandbox_runtime", None)
        if runtime and not restart:
            shutil.rmtree(runtime, ignore_errors=True)
