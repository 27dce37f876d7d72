"""What the channel costs: each notebook's hidden checks on the reference solution through the real channel, against
the same checks in one process, and a bare socket round trip.

    python benchmarks/bench_channel.py [--seed 1] [notebook ...]

Where the kit grades, a hidden check runs in the grading process and asks the kernel for every call of the
student's code, one round trip over a Unix socket per request (``autograder/channel``).  Here a forked child
stands in for the kernel: it runs the notebook's cells in one namespace and forwards each test cell's hidden calls
as a kernel does (``channel.client.forward``), while this process serves them as the grader's ``Checker`` does.
For each notebook it prints the CPU of the checks in one process (the anchor: the same checks, the same cases,
no channel), the CPU of the checker's side and of the kernel's side through the channel, the requests made, and
what each request costs both sides together beyond the work the anchor does.  Last, the requests by kind, and a
bare round trip of 40 bytes between two processes over a socket pair, back to back and with work between the
requests (the floor no protocol of one round trip per request goes below).

No sandbox, no kernel, no nbgrader: the channel alone, on one machine, so runs of two versions compare.
"""

from __future__ import annotations

import argparse
import collections
import os
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.channel import client, proxy  # noqa: E402
from autograder.course import NOTEBOOKS  # noqa: E402
from autograder.devtools.mutants.inprocess import load, run_checks  # noqa: E402
from autograder.grading.checker import Checker  # noqa: E402
from autograder.hidden.diagnostics import Diagnosis  # noqa: E402

SEED = "AUTOGRADER_SEED"


def counted_requests() -> collections.Counter:
    """Every request the checker's sessions make from now on, counted by (op, attribute name)."""
    made: collections.Counter = collections.Counter()
    ask = proxy.Session.ask

    def counting(self, message, arrays):
        made[(message.get("op"), message.get("name"))] += 1
        return ask(self, message, arrays)

    proxy.Session.ask = counting
    return made


def kernel_side(checker: Checker, ns: dict, tests: list, seed: int, report: int) -> None:
    """(In the forked child) the test cells' hidden calls, forwarded as a kernel forwards them; the CPU they took is
    written to ``report``."""
    os.environ.update(checker.env())
    os.environ[SEED] = str(seed)
    start = time.process_time()
    for _grade_id, calls in tests:
        for module, function, names in calls:
            try:
                client.forward(module, function, tuple(ns[n] for n in names), {})
            except Diagnosis:
                break  # (a cell stops at its first failing check, as in a kernel)
    os.write(report, f"{time.process_time() - start}".encode())
    os._exit(0)


def through_channel(notebook: str, seed: int) -> tuple[float, float, list[str]]:
    """(the checker's CPU, the kernel side's CPU, the test cells that did not pass) of one notebook."""
    ns, tests = load(notebook)
    checker = Checker()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        kernel_side(checker, ns, tests, seed, write)
    os.close(write)
    try:
        for grade_id, calls in tests:  # one cell at a time, in this thread (the grader serves them in a thread)
            checker._serve(grade_id, [list(c) for c in calls], time.monotonic() + 120)
        kernel = float(os.read(read, 100).decode())
    finally:
        os.close(read)
        os.waitpid(pid, 0)
        checker.close()
    return checker.cpu, kernel, sorted(g for g, v in checker.verdicts.items() if not v.passed)


def in_one_process(notebook: str, seed: int) -> tuple[float, list[str]]:
    """(CPU, the test cells that did not pass) of the same checks with no channel, on the same cases."""
    ns, tests = load(notebook)
    os.environ[SEED] = str(seed)
    start = time.process_time()
    outcome = run_checks(ns, tests)  # (no seed: every check reads the same AUTOGRADER_SEED, as the channel's do)
    return time.process_time() - start, sorted(g for g, o in outcome.items() if o != "pass")


def round_trip(gap: float, count: int = 3000) -> tuple[float, float]:
    """CPU per request of a bare round trip of 40 bytes between two processes over a socket pair, the asking side
    busy for ``gap`` seconds between requests (as a check is, between the calls it makes): (asking side beyond its
    busy time, answering side).  A side that waits longer wakes colder: the same two system calls cost more."""
    ours, theirs = socket.socketpair()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        ours.close()
        start = time.process_time()
        for _ in range(count):
            theirs.recv(1 << 16)
            theirs.sendall(b"a" * 40)
        os.write(write, f"{time.process_time() - start}".encode())
        os._exit(0)
    theirs.close()
    start, busy = time.process_time(), 0.0
    for _ in range(count):
        began = time.perf_counter()
        while time.perf_counter() - began < gap:
            pass
        busy += time.perf_counter() - began
        ours.sendall(b"q" * 40)
        ours.recv(1 << 16)
    asking = time.process_time() - start - busy
    answering = float(os.read(read, 100).decode())
    os.waitpid(pid, 0)
    return asking / count, answering / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", default=list(NOTEBOOKS), help="the notebooks (default: all five)")
    parser.add_argument("--seed", type=int, default=1, help="the cases' seed, the same for both ways")
    args = parser.parse_args()
    made = counted_requests()
    print(
        f"{'notebook':22}{'in one process':>16}{'checker side':>14}{'kernel side':>13}{'requests':>10}{'per request':>13}"
    )
    totals = [0.0, 0.0, 0.0, 0]
    for notebook in args.notebooks:
        alone, failed_alone = in_one_process(notebook, args.seed)
        before = sum(made.values())
        checker, kernel, failed = through_channel(notebook, args.seed)
        requests = sum(made.values()) - before
        if failed or failed_alone:
            print(f"  (not passed: in one process {failed_alone}, through the channel {failed})")
        beyond = (checker + kernel - alone) / max(requests, 1)
        print(
            f"{notebook:22}{1000 * alone:13.1f} ms{1000 * checker:11.1f} ms{1000 * kernel:10.1f} ms"
            f"{requests:10d}{1e6 * beyond:10.0f} us"
        )
        totals = [totals[0] + alone, totals[1] + checker, totals[2] + kernel, totals[3] + requests]
    alone, checker, kernel, requests = totals
    print(
        f"{'all':22}{1000 * alone:13.1f} ms{1000 * checker:11.1f} ms{1000 * kernel:10.1f} ms{requests:10d}"
        f"{1e6 * (checker + kernel - alone) / max(requests, 1):10.0f} us"
    )
    print(
        f"\nthrough the channel the checks cost {(checker + kernel) / max(alone, 1e-9):.1f}x their CPU in one process "
        f"({1000 * (checker + kernel - alone):.0f} ms more, both sides)"
    )
    print(
        "\nrequests by kind: "
        + ", ".join(f"{op}{' ' + name if name else ''} {n}" for (op, name), n in made.most_common())
    )
    for gap in (0.0, 100e-6):
        asking, answering = round_trip(gap)
        print(
            f"a bare round trip of 40 bytes over a socket pair, {1e6 * gap:.0f} us of work between requests: "
            f"{1e6 * asking:.1f} us asking, {1e6 * answering:.1f} us answering "
            f"({1000 * (asking + answering) * requests:.0f} ms for {requests} requests)"
        )


if __name__ == "__main__":
    main()
