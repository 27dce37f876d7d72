"""The kit's private temporary folders (autograder.scratch): each is named after the process that made it, and the
sweep removes exactly those whose maker has ended, the folders of a process killed before it could remove them.
Real processes, really killed; the sweep runs in a folder of the test's own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from autograder import scratch

MAKER = """
import os, sys, time
from autograder.scratch import private_folder
for kind in ("seccomp", "kernel"):
    print(private_folder(kind, sys.argv[1]), flush=True)
time.sleep(3600)
"""


def killed_maker(folder: Path, reaped: bool = True) -> list[Path]:
    """The folders a process made in ``folder`` before it was killed (SIGKILL: nothing of its own cleanup ran),
    its end waited for (``reaped``) or not (a zombie: dead, its pid still taken)."""
    process = subprocess.Popen([sys.executable, "-c", MAKER, str(folder)], stdout=subprocess.PIPE, text=True)
    made = [Path(process.stdout.readline().strip()) for _ in range(2)]
    process.send_signal(signal.SIGKILL)
    if reaped:
        process.wait()
    else:
        while Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            time.sleep(0.01)
        _zombies.append(process)  # reaped after the test
    return made


_zombies: list[subprocess.Popen] = []


def test_the_folders_of_a_killed_process_are_swept_and_nothing_else(tmp_path):
    left = killed_maker(tmp_path) + killed_maker(tmp_path, reaped=False)
    assert all(p.is_dir() and p.name.startswith(f"kit-{kind}-") for p, kind in zip(left, ("seccomp", "kernel") * 2))
    mine = scratch.private_folder("public", tmp_path)  # this process's: alive
    namespace, pid, started = scratch.maker().split(".")
    reused = tmp_path / f"kit-files-{namespace}.{pid}.{int(started) + 1}-abcdefgh"  # a live pid, another process
    foreign = tmp_path / f"kit-files-{int(namespace) + 1}.{pid}.1-abcdefgh"  # another pid namespace's
    unnamed = tmp_path / "kit-files-abcdefgh"  # made before folders carried their maker
    others = tmp_path / "pytest-of-someone"
    for folder in (reused, foreign, unnamed, others):
        folder.mkdir()
    a_file = tmp_path / f"kit-files-{namespace}.{pid}.{int(started) + 1}-ijklmnop"
    a_file.write_text("not a folder")
    kept = {mine, foreign, unnamed, others, a_file}
    if os.geteuid() == 0:  # another user's folder, its maker ended: not this user's to remove
        theirs = tmp_path / left[0].name.replace("seccomp", "stage")
        theirs.mkdir()
        os.chown(theirs, 65534, 65534)
        kept.add(theirs)

    removed = scratch.sweep(tmp_path)

    assert sorted(removed) == sorted([*left, reused])
    assert set(tmp_path.iterdir()) == kept
    assert scratch.sweep(tmp_path) == []  # nothing more to sweep
    for zombie in _zombies:
        zombie.wait()


def test_a_folder_names_its_maker_in_the_form_the_sweep_reads(tmp_path):
    folder = scratch.private_folder("channel", tmp_path)
    found = scratch.NAME.match(folder.name)
    assert found and found.group(2) == str(os.getpid())
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert not scratch.ended(folder.name)
