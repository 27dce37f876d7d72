"""What a killed grading process leaves running of its sandboxes, ended.

A grading process ends its kernels' sandboxes itself, and bubblewrap's ``--die-with-parent`` ends a sandbox whose
grading process dies.  Not always: bubblewrap sets that up as it starts, for itself and then for the sandbox's first
process, so a grading process killed while a sandbox is starting (a hung worker the run kills as it starts its next
kernel ahead) can leave bubblewrap, or the sandbox's first process alone, running for ever: a forked kernel's
placeholder waits on a pipe no kernel will open.

Every sandbox is built with folders (and, where there are cgroups, a cgroup) named after the grading process that
made them (``autograder.scratch``).  So what is left of a sandbox whose maker has ended is found by that name:
everything in such a cgroup, then (without cgroups) each process the kit starts as a sandbox, bubblewrap or the
placeholder, whose command names such a folder, with every process under it.  They are killed; ``grade`` does
this as it starts and as it ends, before the folders are removed.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import suppress
from pathlib import Path

from ..scratch import alive, ended, places
from ..scratch import sweep as sweep_folders
from . import cgroups
from .forked import ALIVE


def processes() -> dict[int, tuple[int, list[str]]]:
    """Every process this one can see: pid -> (parent pid, command line)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with suppress(OSError, ValueError, IndexError):
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
                command = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace").split("\0")
                found[int(entry)] = (parent, command)
    return found


def started_by_the_kit(command: list[str]) -> bool:
    """Whether ``command`` is one the kit starts a sandbox with: bubblewrap, or a forked kernel's placeholder
    (``cat`` on its pipe, the sandbox's first process)."""
    program = Path(command[0]).name
    return program == "bwrap" or (program == "cat" and len(command) >= 2 and Path(command[1]).name == ALIVE)


def names_an_ended_maker(command: list[str], folders: tuple[str, ...]) -> bool:
    """Whether ``command`` names a kit folder in one of ``folders`` whose maker has ended."""
    for argument in command:
        parts = argument.split("/")
        for at, part in enumerate(parts):
            if part.startswith("kit-") and "/".join(parts[:at]) in folders and ended(part):
                return True
    return False


def leftovers(*folders: str | Path) -> set[int]:
    """The sandboxes' processes (:func:`started_by_the_kit`) whose command names a folder of an ended maker in
    ``folders`` (by default where the kit makes them: the temporary directory and /tmp), and every process under
    them."""
    where = tuple(str(Path(f)) for f in (folders or places()))
    every = processes()
    roots = {
        pid
        for pid, (_, command) in every.items()
        if started_by_the_kit(command) and names_an_ended_maker(command, where)
    }
    return roots | descendants(roots, every)


def descendants(roots: set[int], every: dict[int, tuple[int, list[str]]] | None = None) -> set[int]:
    """Every process under ``roots`` (by their parents, as :func:`processes` reads them: children a thread started
    too)."""
    every = processes() if every is None else every
    found, grew = set(roots), True
    while grew:
        below = {pid for pid, (parent, _) in every.items() if parent in found} - found
        found |= below
        grew = bool(below)
    return found - set(roots)


def end_leftovers(*folders: str | Path) -> list[int]:
    """Kill (SIGKILL) :func:`leftovers` (of ``folders``), wait for them to go, then end the cgroups of ended
    makers (whatever runs in one killed, the cgroup removed: ``cgroups.sweep``).  The pids killed here.  (A sandbox's
    first process ending ends every process of its PID namespace, a forked kernel among them.)"""
    killed = []
    for pid in sorted(leftovers(*folders)):
        with suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    deadline = time.monotonic() + 2
    while any(map(alive, killed)) and time.monotonic() < deadline:
        time.sleep(0.01)
    cgroups.sweep()
    return killed


def sweep() -> None:
    """What killed grading processes left: their sandboxes and cgroups ended (:func:`end_leftovers`), then their
    folders removed (``autograder.scratch.sweep``)."""
    end_leftovers()
    sweep_folders()
