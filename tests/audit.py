"""The sandbox audit's probe, as a student's submission, and the report every kernel path must give.

The probe (``attacks/sandbox_probe.py``) is lesson 2's Embedding cell: it prints its report as a line
``sandbox-report: {...}`` in the autograded notebook, and its ``Embedding`` raises ``sandbox-report
<digest>``, so that where only test results come back (``check --thorough``, Gradescope's results.json)
every test names the report's digest.  The reference is the probe's report from a bare sandbox that
``bwrap_command`` builds as it builds a grading kernel's (the same limits, the same read-only folders):
every kernel path must give exactly that report, and the report must show nothing gained.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.course import ASSIGNMENT

from .conftest import REPO

PROBE = (Path(__file__).parent / "attacks" / "sandbox_probe.py").read_text()
LESSON = "02_token_embeddings"
NO_CAPABILITIES = {k: "0000000000000000" for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}


def probe_notebook() -> nbformat.NotebookNode:
    """Lesson 2 as released, its Embedding cell the probe."""
    nb = nbformat.read(str(REPO / "release" / ASSIGNMENT / f"{LESSON}.ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
            cell.source = PROBE
    return nb


def report_in(text: str) -> dict:
    """The report in ``text`` (the probe's output), after ``sandbox-report: ``."""
    for line in text.splitlines():
        if line.startswith("sandbox-report: "):
            return json.loads(line[len("sandbox-report: ") :])
    raise AssertionError(f"no sandbox report in {text[-2000:]!r}")


def report_of(course: Path, student: str) -> dict:
    """The report in ``student``'s autograded lesson 2 of ``course``."""
    nb = nbformat.read(str(course / "autograded" / student / ASSIGNMENT / f"{LESSON}.ipynb"), as_version=4)
    return report_in("".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", [])))


def digest(report: dict) -> str:
    return hashlib.sha256(json.dumps(report, sort_keys=True).encode()).hexdigest()[:16]


def digests_in(text: str) -> set[str]:
    """The digests the probe's Embedding named in test results (thorough's table, Gradescope's outputs)."""
    return set(re.findall(r"sandbox-report ([0-9a-f]{16})", text))


@functools.cache
def reference(max_written_mb: int = 256, checker: bool = True, as_user=None) -> dict:
    """The probe's report from a sandbox built as a grading kernel's (``kernel_manager``): the per-notebook
    limits (``max_written_mb`` of them as the course sets it), the kernel's folder and, where the hidden
    checks run outside (``checker``), the checker's socket folder and the public client package.  With
    ``as_user`` ((uid, a function that makes a command run as that user)), built and run as that user:
    bubblewrap run by an unprivileged user cannot make ``/proc/bus`` and ``/proc/irq`` read-only, as it
    does for root (neither is writable by such a user anyway)."""
    import os

    from autograder.channel.public import write_public_package
    from autograder.sandbox import bwrap_command
    from autograder.sandbox.limits import ResourceLimits

    prefixes = ("kit-files-", "kit-kernel-", "kit-channel-", "kit-public-")
    folders = [Path(tempfile.mkdtemp(prefix=prefix)) for prefix in prefixes]
    try:
        work = folders[0] / "submission"
        work.mkdir()
        public = write_public_package(folders[3]) if checker else None
        uid, wrap = as_user or (None, lambda cmd: cmd)
        for path in [p for folder in folders for p in (folder, *folder.rglob("*"))] if uid is not None else []:
            os.chown(path, uid, uid, follow_symlinks=False)
        from autograder.sandbox.identity import hand_over, kernel_ids

        ids = kernel_ids() if uid is None else None  # as root: the kit's kernel user, as grading runs it
        hand_over(ids, *folders)
        cmd = bwrap_command(
            work,
            [],
            [],
            limits=ResourceLimits(max_written_mb=max_written_mb),
            public=public,
            read_only=folders[2:3] + folders[1:2] if checker else folders[1:2],
            ids=ids,
        )
        if uid is not None:  # that user's copy of the filter: this process's own is in a folder only it may read
            from autograder.sandbox.seccomp import filter_file

            mine = folders[0] / "filter.bpf"
            shutil.copy(filter_file(), mine)
            os.chown(mine, uid, uid)
            cmd = [str(mine) if arg == str(filter_file()) else arg for arg in cmd]
        done = subprocess.run(wrap(cmd + [sys.executable, "-c", PROBE]), capture_output=True, text=True, timeout=60)
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return report_in(done.stdout)


def assert_nothing_gained(report: dict, max_written_mb: int = 256) -> None:
    """No capability, no_new_privs, the filter in force, every attempt refused, and the only writable places
    the size-capped tmpfs mounts: /tmp (the working folder's, and /dev/shm's folder) and the kernel's socket folder."""
    assert report["capabilities"] == NO_CAPABILITIES, report["capabilities"]
    # (a grader that itself runs under a filter, as in a container, passes that one on too)
    assert (report["no_new_privs"], report["seccomp"]) == ("1", "2") and int(report["seccomp_filters"]) >= 1, report
    succeeded = sorted(call for call, answer in report["attempts"].items() if answer == "ok")
    assert not succeeded, f"these succeeded in the sandbox: {succeeded}"
    # what uid 0 keeps without a capability: no setting of the kernel's or the machine's opens for writing, no
    # file only its owner may read opens, and no socket family outside the filter's list, high bits or not
    assert report["ids"]["Uid"] != "0" and report["ids"]["Gid"] != "0", report["ids"]
    assert report["settings_writable"] == [], report["settings_writable"]
    assert report["private_readable"] == [], report["private_readable"]
    from autograder.sandbox.seccomp import SOCKET_FAMILIES

    for how, families in report["socket_families"].items():
        assert set(families) <= set(SOCKET_FAMILIES.values()), (how, families)
    assert report["writable"] == {
        "/tmp": f"tmpfs {max_written_mb} MiB",
        "/run/kit": "tmpfs 1 MiB",
    }, report["writable"]


def host_ids(pid: int) -> dict[str, str]:
    """A kernel's ids as the machine sees them: ``/proc/<pid>/status`` read outside the sandbox."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {key: status[key].split()[0] for key in ("Uid", "Gid")} | {"Groups": status["Groups"].strip()}


def assert_not_root(ids: dict[str, str]) -> None:
    """Never uid or gid 0 on the machine: the kit's kernel user when root grades (no supplementary groups), the
    grader when a user grades."""
    import os

    from autograder.sandbox.identity import kernel_ids

    expected = kernel_ids()
    if expected is not None:
        assert (ids["Uid"], ids["Gid"], ids["Groups"]) == (str(expected[0]), str(expected[1]), ""), ids
    else:
        assert (ids["Uid"], ids["Gid"]) == (str(os.getuid()), str(os.getgid())), ids
    assert "0" not in (ids["Uid"], ids["Gid"], *ids["Groups"].split()), ids


def assert_audited(report: dict, max_written_mb: int = 256, checker: bool = True, as_user=None) -> None:
    """``report`` shows nothing gained, and is the reference's, field for field."""
    assert_nothing_gained(report, max_written_mb)
    expected = reference(max_written_mb, checker, as_user)
    for key in expected:
        assert report[key] == expected[key], (key, report[key], expected[key])
