"""Blind round 41: 26 attacks on the sandbox, written from docs/threat-model.md and the sandbox's code by someone
who had read none of the kit's attack tests (``tests/attacks/blind41/``; its README says what each tries and what
counts as a breach).  Each runs in a cell of a sandboxed kernel, forked and started the ordinary way, as root and as
an unprivileged user (``tests/blind_round.py``), and reports what it breached.

Nothing may be breached but what docs/threat-model.md lists under *Not defended* (``OPEN``, each with its
reason); an open breach is asserted as it is, so that closing it makes this test say so.  The round's first score,
against the sandbox of main (393d3e4) and this one, is in docs/threat-model.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .blind_round import ATTACKS, run_attacks
from .conftest import ENV, REPO, sandbox_or_skip

# breaches the sandbox does not defend (docs/threat-model.md, Not defended), by attack: the probes that may report
OPEN = {
    # the grader connects to the kernel's ZMQ sockets by name in a folder the kernel writes (/run/kit): a name swapped
    # for a symlink is followed by the grader's next connect (only ZMQ's handshake is sent there)
    "23-run-kit-symlink": {"symlink_in_run_kit", "swap_kernel_socket_for_symlink"},
    # socket and pipe buffers are kernel memory no process owns: counted by a cgroup's memory limit where the kit
    # has cgroups (v2, or v1 with kmem accounting), not by the watchdog of the rlimit mechanism
    "18-unattributed-memory": {"unattributed_mb_this_process"},
    # /dev/shm caps bytes (1 MiB), not names; hard links in /tmp are names, not inodes: the file limit counts /tmp's
    # inodes only
    "19-files-outside-count": {"dev_shm_files", "tmp_hard_links"},
}


def assert_held(reports: dict, how: str) -> None:
    assert len(reports) == len(ATTACKS), sorted(reports)
    for attack, report in reports.items():
        breached = set(report["breached"]) - OPEN.get(attack, set())
        assert not breached, (how, attack, sorted(breached), report["results"])
        assert report["how"] == how.split()[0], (attack, report["how"], how)


@pytest.fixture(scope="module")
def folder():
    work = Path(tempfile.mkdtemp(prefix="kit-blind-"))
    os.chmod(work, 0o755)
    yield work
    import shutil

    shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "started"])
def test_the_blind_round_is_held(folder, fork):
    sandbox_or_skip()
    assert_held(run_attacks(fork, str(folder)), "forked" if fork else "started")


def test_the_blind_round_is_held_for_an_unprivileged_user(folder):
    """The same attacks, in a kernel forked into a sandbox that uid 65534 builds (the way test_hostile grades)."""
    from .test_hostile import NOBODY, as_nobody, unprivileged_run_unavailable

    sandbox_or_skip()
    why = unprivileged_run_unavailable()
    if why:
        pytest.skip(why)
    mine = Path(tempfile.mkdtemp(prefix="kit-blind-nobody-"))
    os.chown(mine, NOBODY, NOBODY)
    env = dict(ENV, HOME=str(mine), TMPDIR=str(mine))
    try:
        done = subprocess.run(
            as_nobody([sys.executable, "-m", "tests.blind_round", "forked", str(mine)]),
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert_held(json.loads(done.stdout.strip().splitlines()[-1]), "forked (uid 65534)")
    finally:
        import shutil

        shutil.rmtree(mine, ignore_errors=True)
