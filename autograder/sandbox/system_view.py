"""What a grading kernel sees of the machine's file system: an allow list (``SHOWN``), read-only, nothing else.

The kit's repository and the course roots are covered with empty folders, and the packages a grading
kernel never needs (``KERNEL_SKIPS``) are hidden; ``bubblewrap`` turns this into bwrap's arguments.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the autograder package


def hidden_roots(extra: list[str]) -> list[str]:
    """Folders to cover: the kit's repository (when the package lives in one) and the course roots."""
    roots = {str(PACKAGE_DIR.parent)} if (PACKAGE_DIR.parent / "pyproject.toml").exists() else set()
    roots.update(str(Path(p).resolve()) for p in extra if p)
    # cover outer folders first, so that inner binds are not hidden again
    return sorted(roots, key=len)


# What a kernel sees of the machine, and why: the one list (bubblewrap's arguments are made from it, and
# docs/threat-model.md's table; tests/test_system_view.py holds the two together).  Nothing else of the
# machine is there; the other places of the sandbox are its own (a tmpfs root, /tmp, /dev/shm, /run/kit,
# bubblewrap's /dev, its own /proc).  A folder that is a link on the machine (merged /usr) is that link.
SHOWN = (
    (
        "/usr",
        "programs and libraries: Python's and NumPy's shared libraries, `sh`, `cat`, `cp`, `prlimit` that start a kernel",
    ),
    ("/bin", "a link into /usr on a merged-/usr machine (`/bin/sh`), else the folder"),
    ("/sbin", "as /bin"),
    ("/lib", "the dynamic linker and libc (a link into /usr on a merged-/usr machine)"),
    ("/lib32", "as /lib, where the machine has it"),
    ("/lib64", "the dynamic linker's path on x86-64 (a link into /usr on a merged-/usr machine)"),
    ("/libx32", "as /lib, where the machine has it"),
    ("/etc/ld.so.cache", "the dynamic linker's index of libraries (without it each library is searched for)"),
    ("<the Python installation>", "the interpreter and its standard library (`sys.base_prefix`)"),
    ("<the Python environment>", "ipykernel, NumPy and their dependencies (`sys.prefix`)"),
    ("<the kit's package>", "under `grade`, the public client package only (no hidden check); in plain mode the kit"),
    (
        "/proc/<the sandbox's processes>",
        "its own processes' folders and `/proc/self`: the sandbox's PID namespace, nothing of the machine",
    ),
    ("/proc/stat", "the number of CPUs, which glibc reads here when `/sys` is absent"),
)
SYSTEM_DIRS = tuple(path for path, _ in SHOWN if path.startswith("/") and "/" not in path[1:])  # /usr, /bin...
SYSTEM_FILES = tuple(path for path, _ in SHOWN if path.startswith("/etc/"))
PROC_SHOWN = {"stat"}  # of /proc's own entries (not its processes' folders)
# hidden, and why: empty read-only in the sandbox
NOT_SHOWN = (
    ("the rest of /etc", "accounts, password hashes, keys, configuration: nothing a kernel reads"),
    ("/sys", "the machine's devices, cgroups and kernel settings"),
    (
        "the rest of /dev",
        "no terminal (`/dev/tty`, `/dev/pts`, `/dev/ptmx`: the machine's pool of terminals is shared by every "
        "sandbox), no disk, no console",
    ),
    ("/proc/sys", "the kernel's settings (sysctls): an empty read-only folder"),
    (
        "the grader's environment",
        "but `PATH`, the locale, `TZ`, Python's switches and the kit's `AUTOGRADER_*`: no token, password or "
        "folder of the grader's",
    ),
    (
        "the rest of /proc",
        "the machine's kernel, memory, devices, keys, timers: each an empty read-only folder or file",
    ),
    ("/proc/1", "the sandbox's PID 1 (the placeholder, whose death is the kit's): an empty read-only folder"),
)


def system_view() -> list[str]:
    """bwrap arguments for the system part of the kernel's file system: SHOWN, nothing else.

    Not the whole of ``/``: other checkouts of the kit, the grader's home and the course live elsewhere.
    """
    cmd = []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):
            cmd += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            cmd += ["--ro-bind", folder, folder]
    for path in SYSTEM_FILES:
        if os.path.isfile(path):
            cmd += ["--ro-bind", path, path]
    for prefix in sorted({sys.base_prefix, os.path.realpath(sys.base_prefix)}):
        if not prefix.startswith(SYSTEM_DIRS):
            cmd += ["--ro-bind", prefix, prefix]
    return cmd


# the grader's environment variables a kernel gets: the kit's own, where programs are, the locale and time zone, and
# Python's own switches; nothing else (the grader's tokens, database URLs, agent sockets, its folders).  bubblewrap
# then sets HOME, MPLCONFIGDIR and the BLAS thread counts.
ENVIRONMENT = ("PATH", "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONUTF8", "PYTHONIOENCODING")
ENVIRONMENT_PREFIXES = ("LC_", "AUTOGRADER_")


def kept_environment(environ) -> dict[str, str]:
    """The variables of ``environ`` that ENVIRONMENT keeps (the fork server starts with these too: a forked kernel's
    ``/proc/self/environ`` is the server's)."""
    return {k: v for k, v in environ.items() if k in ENVIRONMENT or k.startswith(ENVIRONMENT_PREFIXES)}


def environment_view(environ) -> list[str]:
    """bwrap arguments: an empty environment, then the variables of ``environ`` that ENVIRONMENT keeps."""
    cmd = ["--clearenv"]
    for name, value in sorted(kept_environment(environ).items()):
        cmd += ["--setenv", name, value]
    return cmd


DEVICES = ("null", "zero", "full", "random", "urandom")


def dev_view() -> list[str]:
    """bwrap arguments for /dev: a tmpfs with DEVICES bound from the machine's, and the links into /proc/self
    (in place of bubblewrap's ``--dev``, which adds a terminal pool of its own and /dev/tty)."""
    cmd = ["--tmpfs", "/dev"]
    for name in DEVICES:
        cmd += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for link, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        cmd += ["--symlink", target, f"/dev/{link}"]
    return cmd


def proc_view() -> list[str]:
    """bwrap arguments, after its ``--proc /proc``: every entry of /proc that is the machine's rather than the
    sandbox's processes' and not in PROC_SHOWN covered, a folder with an empty read-only one, a file with an
    empty read-only file (``/proc/sys`` among them)."""
    cmd = []
    for name in sorted(os.listdir("/proc")):
        path = f"/proc/{name}"
        if name.isdigit() or name in PROC_SHOWN or os.path.islink(path):  # (self, thread-self, mounts, net)
            continue
        if os.path.isdir(path):
            cmd += ["--tmpfs", path, "--remount-ro", path]
        else:
            cmd += ["--ro-bind", "/dev/null", path]
    return cmd


def table() -> str:
    """docs/threat-model.md's table of the file view, made from SHOWN and NOT_SHOWN
    (``python -m autograder.sandbox.system_view`` prints it; tests/test_system_view.py holds the doc to it)."""
    rows = [
        f"| `{path}` | {'shown' if path.startswith('/proc') else 'shown, read-only'} | {why} |" for path, why in SHOWN
    ]
    rows += [f"| {what} | not shown | {why} |" for what, why in NOT_SHOWN]
    return "\n".join(["| what of the machine | in the sandbox | why |", "|---|---|---|", *rows])


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


if __name__ == "__main__":
    print(table())
