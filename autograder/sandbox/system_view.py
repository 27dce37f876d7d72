"""What a grading kernel sees of the machine's file system: the OS and Python read-only, nothing else of it.

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
