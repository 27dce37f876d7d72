"""bubblewrap's command for a grading kernel's sandbox, and whether bubblewrap works on this machine at all.

``bwrap_command`` builds the sandbox the package's docstring describes from the system view
(``system_view``) and the resource limits (``arguments``).  ``check_sandbox`` starts one trivial sandbox
the way grading does, so that a bubblewrap that cannot work here is reported before any student is graded;
``choose_sandbox`` decides for a grading where bubblewrap may well be missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ..scratch import temporary_folder
from .identity import KernelUserInvalid, as_kernel_user, hand_over, kernel_ids, stage_unreachable
from .system_view import dev_view, environment_view, mount_args, mounts, proc_view


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
    namespaces, say, or no libseccomp for the system-call filter) is reported before any student is graded."""
    try:
        with temporary_folder("probe") as folder:
            hand_over(kernel_ids(), Path(folder))
            result = subprocess.run(
                bwrap_command(Path(folder), [], []) + ["true"], capture_output=True, text=True, timeout=30
            )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SandboxUnavailable(f"bubblewrap could not start a sandbox: {e}") from None
    if result.returncode != 0:
        why = result.stderr.strip() or f"exit {result.returncode}"
        raise SandboxUnavailable(
            f"bubblewrap is installed but cannot start a sandbox here ({why}). "
            "Every sandbox has a user namespace of its own, also when root grades: ask an administrator to "
            "allow them (sysctl user.max_user_namespaces above 0; for unprivileged users on Ubuntu 24.04, "
            "sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap). Or set "
            "AUTOGRADER_SANDBOX=off to grade without a sandbox: student code then runs with your permissions"
        )


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


def bwrap_command(
    workdir: Path,
    writable: list[Path],
    hide: list[str],
    memory_bytes: int | None = None,
    limits=None,
    cgroup=None,
    public: Path | None = None,
    read_only: list[Path] = (),
    ids: tuple[int, int] | None | str = "grader's",
    environment: dict[str, str] | None = None,
) -> list[str]:
    """The command prefix that runs a command in the sandbox, in ``workdir``.

    With ``limits`` (an :class:`autograder.config.NotebookLimits`), ``workdir`` is not writable: the
    command runs in a copy of it on the sandbox's size-capped /tmp, under the per-process rlimits, and
    (with ``cgroup``) inside that cgroup; nothing it writes reaches ``workdir``.  With ``public`` (a
    folder holding the kit's public client package), that folder stands in for the kit's package, so
    none of the hidden checks is readable.  ``read_only`` are folders mounted read-only (the checker's
    socket folder, the kernel's connection file): their Unix sockets can be connected to, their files
    read, and nothing can be written there.  ``ids``: the machine's (uid, gid) bubblewrap and so the kernel
    run as (``identity.kernel_ids``, the default: the kernel user when root grades, None for the grader);
    the folders above must be open to them (``identity.hand_over``).
    """
    from .arguments import ONE_THREAD, SECCOMP_FD, inner_prefix, outer_prefix, scratch_args
    from .seccomp import FilterUnavailable, filter_file

    try:
        seccomp = filter_file()
    except FilterUnavailable as e:
        raise SandboxUnavailable(
            f"the kernels' system-call filter cannot be built: {e}. libseccomp is a system library, installing "
            "it needs root: ask an administrator for the package `libseccomp2` (Debian/Ubuntu: apt-get install "
            "libseccomp2; Fedora: libseccomp)"
        ) from None
    tmp = scratch_args(limits, workdir)[0] if limits is not None else ["--tmpfs", "/tmp", "--remount-ro", "/dev"]
    # a user namespace of its own also when run by root, in which bubblewrap leaves its command no capability
    # in any set (as root without one it would keep the bounding set); no_new_privs is bubblewrap's own
    cmd = [
        bwrap_path(),
        *environment_view(os.environ if environment is None else environment),  # (first: it clears the environment)
        "--die-with-parent",
        "--new-session",
        "--unshare-user",
        "--cap-drop",
        "ALL",
        "--seccomp",
        str(SECCOMP_FD),
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        *dev_view(),
        "--proc",
        "/proc",
        # the sandbox's PID 1 (a forked kernel's placeholder, or bubblewrap's init) shows nothing in /proc: no
        # /proc/1/mem to write its code through, no oom_score_adj to raise
        "--tmpfs",
        "/proc/1",
        "--remount-ro",
        "/proc/1",
        *proc_view(),
        *tmp,
    ]
    # the machine's files: system_view's SHOWN and HIDDEN, one plan, outer mounts first (the Python environment
    # shown, debugpy inside it covered; a folder in no shown path is not there at all)
    plan = mounts(hide, public)
    cmd += mount_args(plan, public)
    covered = [path for kind, path in plan if kind == "cover"]
    for folder in read_only:
        cmd += ["--ro-bind", str(folder), str(folder)]
    if limits is None:
        for folder in [workdir, *writable]:
            cmd += ["--bind", str(folder), str(folder)]
        cmd += [arg for root in covered for arg in ("--remount-ro", root)]
        cmd += ["--chdir", str(workdir)]
    else:
        for folder in writable:
            cmd += ["--bind", str(folder), str(folder)]
        # the empty folders that cover the course, the kit and HIDDEN's are writable tmpfs mounts: make them read-only
        cmd += [arg for root in covered for arg in ("--remount-ro", root)]
        cmd += ["--chdir", scratch_args(limits, workdir)[1]]
        for name in ONE_THREAD:  # BLAS thread pools sized to the machine would count against the process limit
            cmd += ["--setenv", name, "1"]
    # the sandbox's root is a tmpfs as big as half the memory, whose mount points bubblewrap has now made:
    # read-only, so that the only writable places are the size-capped ones
    cmd += ["--remount-ro", "/"]
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
    # never uid 0 on the machine: root hands the sandbox to the kernel user before bubblewrap starts
    try:
        ids = kernel_ids() if ids == "grader's" else ids
        cmd = stage_unreachable(as_kernel_user(cmd, ids), ids)
    except KernelUserInvalid as e:
        raise SandboxUnavailable(str(e)) from None
    if memory_bytes:
        cmd = ["prlimit", f"--as={memory_bytes}", "--"] + cmd
    return outer_prefix(cgroup, seccomp) + cmd
