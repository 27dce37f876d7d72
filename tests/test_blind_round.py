"""Blind round 41: 26 attacks on the sandbox, written from docs/threat-model.md and the sandbox's code by someone
who had read none of the kit's attack tests (``tests/attacks/blind41/``; its README says what each tries and what
counts as a breach).  Each runs in a cell of a sandboxed kernel, forked and started the ordinary way, as root and as
an unprivileged user (``tests/blind_round.py``), and reports what it breached.

Nothing may be breached but what ``OPEN`` lists, each with its reason (docs/threat-model.md, *Not defended* and
the blind round's table).  The round's first score,
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
    # a TCP listener on the loopback of the sandbox's own network namespace, which the kernel itself opened (the
    # attack cannot tell it from the machine's): reaching it reaches the kernel
    "06-unix-and-loopback": {"loopback_tcp_reached"},
    # where Python is installed under /root (pyenv), bubblewrap makes /root/.pyenv/versions in the sandbox to mount
    # it at its own path: a folder of the sandbox's, mode 0700 and the kernel user's, listing only `versions`
    "07-root-only-secrets": {"/root/.pyenv"},
    # socket and pipe buffers are kernel memory no process owns: a cgroup's memory limit counts them where the
    # kernel accounts them (cgroup v2), the rlimit mechanism's watchdog does not (docs/threat-model.md)
    "18-unattributed-memory": {"unattributed_mb_this_process"},
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
    for path in (mine, mine / "work", mine / "tmp"):
        path.mkdir(exist_ok=True)
        os.chown(path, NOBODY, NOBODY)
    env = dict(ENV, HOME=str(mine), TMPDIR=str(mine / "tmp"))
    try:
        done = subprocess.run(
            as_nobody([sys.executable, "-m", "tests.blind_round", "forked", str(mine / "work")]),
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
