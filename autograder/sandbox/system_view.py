"""What a grading kernel sees of the machine's file system: an allow list (``SHOWN``), read-only, nothing else.

Two tables, one place: ``SHOWN`` lists every path a kernel sees, ``HIDDEN`` every folder covered with an empty
read-only one inside what is shown (the kit's devtools, the packages a kernel never needs; the kit's repository and
the course where they lie in a shown path).  A folder not in SHOWN is already hidden; HIDDEN covers folders inside
shown ones.  To hide one more folder inside a shown one from kernels, add it to ``HIDDEN``; to show one more, to
``SHOWN``: any absolute path, nested or not (a path that cannot be is refused with a :class:`ViewError` naming it, and
so is an absolute ``HIDDEN`` entry in no shown path: covering it would only make an empty folder of its name
appear).  :func:`mounts` makes the two into one plan, each mount after every one that holds it, and
``bubblewrap`` turns the plan into bwrap's arguments; ``NOT_SHOWN`` only says, for docs/threat-model.md, why
some things the allow list leaves out are left out.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the autograder package
SANDBOX_OWN = (
    "/tmp",
    "/dev",
    "/proc",
    "/run",
)  # the sandbox's own places (tmpfs, its /dev and /proc): not the machine's


class ViewError(ValueError):
    """An entry of SHOWN or HIDDEN that cannot be shown or hidden."""


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
# Inside what SHOWN shows, what a kernel does not see, and why: each covered with an empty read-only folder.  An entry
# is an absolute path inside a path of SHOWN (a folder not in SHOWN is already hidden: an absolute entry outside every
# shown path is a ViewError), or one of the kit's folders named in <angle brackets> (found by _kits_folders below;
# where one lies in no shown path, the course's root say, it is already hidden and mounts() leaves its cover out).
HIDDEN = (
    (
        "<the kit's repository>",
        "where the package lives in a checkout: the hidden checks' sources, the tests, the reference solutions "
        "(the Python environment inside it comes back, read-only)",
    ),
    ("<the course>", "the course root: the other students' submissions, the gradebook, the source notebooks"),
    ("<the kit's devtools>", "in plain mode, where the kit's package is shown: the mutant catalogue of wrong answers"),
    (
        "<the packages a kernel never needs>",
        "debugpy (KERNEL_SKIPS), which ipykernel imports at start when it can: about half of a kernel's start-up CPU; "
        "nbgrader, which only the grader runs (its tests' files: sample notebooks and a gradebook)",
    ),
)
SYSTEM_PATHS = tuple(path for path, _ in SHOWN if path.startswith("/") and not path.startswith("/proc"))
SYSTEM_DIRS = tuple(path for path in SYSTEM_PATHS if "/" not in path[1:])  # /usr, /bin, ...
SYSTEM_FILES = tuple(path for path in SYSTEM_PATHS if path.startswith("/etc/"))
# of /proc's own entries (not its processes' folders), the ones SHOWN names
PROC_SHOWN = {path.split("/")[2] for path, _ in SHOWN if path.startswith("/proc/") and "<" not in path}
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


def _checked(table: str, path: str) -> str:
    """``path`` of an entry of ``table``, or a ViewError saying why it cannot be shown or hidden."""
    where = f"{table} in autograder/sandbox/system_view.py: {path!r}"
    if not path.startswith("/"):
        raise ViewError(f"{where} is not an absolute path (nor one of the kit's folders in <angle brackets>)")
    if os.path.normpath(path) != path:
        raise ViewError(f"{where} is not normalised (write {os.path.normpath(path)!r})")
    if path == "/" or any(path == own or path.startswith(own + "/") for own in SANDBOX_OWN):
        raise ViewError(
            f"{where} is in the sandbox's own places {SANDBOX_OWN} (made anew in each sandbox, not the machine's)"
        )
    return path


def _within(path: str, shown: list[str]) -> bool:
    """Whether ``path`` is one of ``shown`` or lies inside one."""
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in shown)


def _kits_folders(hide: list[str], public: Path | None) -> dict[str, list[str]]:
    """The kit's folders SHOWN and HIDDEN name in <angle brackets>, found on this machine."""
    repository = PACKAGE_DIR.parent if (PACKAGE_DIR.parent / "pyproject.toml").exists() else None
    installation = sorted({sys.base_prefix, os.path.realpath(sys.base_prefix)})
    return {
        "<the Python installation>": [p for p in installation if not p.startswith(SYSTEM_DIRS)],
        "<the Python environment>": [sys.prefix],
        "<the kit's package>": [str(PACKAGE_DIR)],
        "<the kit's repository>": [str(repository)] if repository else [],
        "<the course>": [str(Path(p).resolve()) for p in hide if p],
        "<the kit's devtools>": [str(PACKAGE_DIR / "devtools")] if public is None else [],
        "<the packages a kernel never needs>": unused_by_kernel(),
    }


def mounts(hide: list[str], public: Path | None = None) -> list[tuple[str, str]]:
    """The kernel's view of the machine's files as one plan, made from SHOWN and HIDDEN: ("show", path) binds the
    machine's path read-only (a link stays a link), ("cover", path) puts an empty folder there; each mount comes
    after every mount that holds it; a cover only inside a shown path (a kit's folder in none is left out, already
    hidden).  ``hide``: the course roots; ``public``: the public client package that stands in
    for the kit's (None: the kit itself, devtools hidden).  Not the whole of ``/``: other checkouts of the kit, the
    grader's home and the course live elsewhere."""
    found = _kits_folders(hide, public)
    plan = []
    for table, kind, entries in (("SHOWN", "show", SHOWN), ("HIDDEN", "cover", HIDDEN)):
        shown = [path for step, path in plan if step == "show"]
        for what, _ in entries:
            if kind == "show" and what.startswith("/proc"):  # the sandbox's own /proc, shown by proc_view
                continue
            if what.startswith("<"):
                if what not in found:
                    raise ViewError(
                        f"{table} in autograder/sandbox/system_view.py: {what!r} is no folder the kit knows"
                    )
                # a kit's folder in no shown path (a course root elsewhere) is already hidden: no empty folder of its
                # name in the kernel
                plan += [(kind, path) for path in found[what] if kind == "show" or _within(path, shown)]
            else:
                path = _checked(table, what)
                if kind == "cover" and not _within(path, shown):
                    raise ViewError(
                        f"{table} in autograder/sandbox/system_view.py: {what!r} lies in no path of SHOWN, so it is "
                        "already not shown (a folder not in SHOWN is already hidden; HIDDEN covers folders inside "
                        "shown ones, and covering this one would only make an empty folder of its name appear)"
                    )
                plan.append((kind, path))
    depth = {path: len(Path(path).parts) for _, path in plan}
    return sorted(dict.fromkeys(plan), key=lambda step: depth[step[1]])  # outer first, in table order at one depth


def mount_args(plan: list[tuple[str, str]], public: Path | None = None) -> list[str]:
    """bwrap arguments of a plan of :func:`mounts` (a cover is a writable tmpfs until bubblewrap remounts it read-only,
    once the binds inside it are made); a path the machine does not have is left out, the kit's package is the
    public one when there is one."""
    cmd = []
    for kind, path in plan:
        if kind == "cover":
            if os.path.lexists(path):  # nothing to hide where the machine has no such folder (and bwrap could not
                cmd += ["--tmpfs", path]  # make one inside a read-only bind: every sandbox's start would fail)
        elif path == str(PACKAGE_DIR):
            cmd += ["--ro-bind", str(public or PACKAGE_DIR), path]
        elif os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    return cmd


def system_binds() -> list[str]:
    """bwrap's binds of the system paths of SHOWN alone (not the kit's folders, the environment, nor HIDDEN's
    covers): a part of the plan, for a test of what of /etc is bound.  The sandbox mounts the whole plan, :func:`mounts`."""
    return mount_args([(kind, path) for kind, path in mounts([]) if path in SYSTEM_PATHS])


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
    """docs/threat-model.md's table of the file view, made from SHOWN, HIDDEN and NOT_SHOWN
    (``python -m autograder build`` rewrites it, by autograder/devtools/doc_tables.py; tests/test_system_view.py holds
    the doc to it)."""
    rows = [
        f"| `{path}` | {'shown' if path.startswith('/proc') else 'shown, read-only'} | {why} |" for path, why in SHOWN
    ]
    rows += [f"| `{what}` | hidden | {why} |" for what, why in HIDDEN]
    rows += [f"| {what} | not shown | {why} |" for what, why in NOT_SHOWN]
    return "\n".join(["| what of the machine | in the sandbox | why |", "|---|---|---|", *rows])


# packages a grading kernel never needs: debugpy, which it would import at start; nbgrader, which only the grader runs
# (its own tests' files hold sample notebooks and a gradebook, which a kernel has no business reading)
KERNEL_SKIPS = ("debugpy", "nbgrader")


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
