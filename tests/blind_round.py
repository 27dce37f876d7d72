"""Run the blind round's attacks (``tests/attacks/blind41/``) in a sandboxed kernel, each in a cell of its own,
and read what each reports: ``KITATTACK {"attack": ..., "results": {...}, "breached": [...]}``.

``python -m tests.blind_round forked|started <folder>`` prints the reports as one JSON object (the unprivileged
run of ``tests/test_blind_round.py`` starts it as uid 65534).  A kernel that dies is started again for the next
attack; the attack that killed it is reported as breached ("no report"), unless a resource limit stopped it
(the watchdog's reason is its result: stopping there is what the limit is for).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import shutil
import sys
import tempfile
from pathlib import Path

ATTACKS = sorted((Path(__file__).parent / "attacks" / "blind41").glob("[0-9][0-9]-*.py"))
MARK = "KITATTACK {"
CHANNELS: list[str] = []  # the channel folders made for the round's kernels, removed when the round ends


async def _start(fork: bool, folder: str):
    from traitlets.config import Config

    from autograder.channel import ENV as CHANNEL_ENV
    from autograder.sandbox.kernel_manager import SandboxedKernelManager

    config = Config()
    config.SandboxedKernelManager.fork_kernels = fork
    km = SandboxedKernelManager(config=config, kernel_name="python3")
    # as `grade` starts a kernel (grading/execute.py): the hidden checks run outside, so the kernel is given the
    # channel's socket and finds the public client package in place of the kit (a kernel started without it is
    # plain nbgrader's, whose checks run inside and so must see the kit's hidden package). No check is called here.
    CHANNELS.append(tempfile.mkdtemp(prefix="kit-blind-channel-"))
    await km.start_kernel(cwd=folder, env={**os.environ, CHANNEL_ENV: os.path.join(CHANNELS[-1], "socket")})
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=60)
    return km, kc


class KernelDied(Exception):
    """The kernel ended while its cell ran."""


async def _execute(km, kc, code: str, hook) -> None:
    """Run ``code`` in a cell, its output to ``hook``; a cell that runs past 120 s raises TimeoutError, a kernel
    that dies meanwhile KernelDied as soon as seen (it is looked at every 0.5 s): an attack that kills its kernel
    would otherwise wait out the whole timeout for a reply that never comes."""
    cell = asyncio.ensure_future(kc.execute_interactive(code, output_hook=hook, timeout=120))
    while not cell.done():
        await asyncio.wait({cell}, timeout=0.5)
        if not cell.done() and not await km.is_alive():
            cell.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await cell
            while True:  # what it printed before it died, still on its way
                try:
                    hook(await kc.get_iopub_msg(timeout=0.5))
                except queue.Empty:
                    break
            raise KernelDied
    cell.result()


async def _run(fork: bool, folder: str, attacks: list[Path]) -> dict:
    reports, km, kc = {}, None, None
    try:
        for path in attacks:
            if km is None or not await km.is_alive():
                if km is not None:
                    kc.stop_channels()
                    await km.shutdown_kernel(now=True)
                km, kc = await _start(fork, folder)
            out = []

            def hook(msg, out=out):
                if msg["msg_type"] == "stream":
                    out.append(msg["content"].get("text", ""))

            try:
                await _execute(km, kc, path.read_text(), hook)
            except Exception as e:  # noqa: BLE001 - a hung or dead kernel is the attack's report
                out.append(f"\nkernel: {type(e).__name__}")
            line = next((x for x in "".join(out).splitlines() if x.startswith(MARK)), None)
            stopped = km.limit_breach  # the watchdog stopped the notebook at a resource limit: what the limit is for
            if line is None and stopped:
                reports[path.stem] = {"breached": [], "results": {"stopped": stopped}, "how": km.started_as}
            elif line is None:
                reports[path.stem] = {
                    "breached": ["no report (kernel died or hung)"],
                    "results": {},
                    "how": km.started_as,
                }
            else:
                report = json.loads(line[len("KITATTACK ") :])
                reports[path.stem] = {
                    "breached": report["breached"],
                    "results": report["results"],
                    "how": km.started_as,
                }
    finally:
        if km is not None:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
    return reports


def run_attacks(fork: bool, folder: str, attacks: list[Path] = ATTACKS) -> dict:
    """{attack: {"breached": [...], "results": {...}, "how": "forked"|"started"}}."""
    try:
        return asyncio.run(_run(fork, folder, attacks))
    finally:
        while CHANNELS:
            shutil.rmtree(CHANNELS.pop(), ignore_errors=True)


if __name__ == "__main__":
    print(json.dumps(run_attacks(sys.argv[1] == "forked", sys.argv[2])))
