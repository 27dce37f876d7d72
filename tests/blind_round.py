"""Run the blind round's attacks (``tests/attacks/blind41/``) in a sandboxed kernel, each in a cell of its own,
and read what each reports: ``KITATTACK {"attack": ..., "results": {...}, "breached": [...]}``.

``python -m tests.blind_round forked|started <folder>`` prints the reports as one JSON object (the unprivileged
run of ``tests/test_blind_round.py`` starts it as uid 65534).  A kernel that dies is started again for the next
attack; the attack that killed it is reported as breached ("no report"), unless a resource limit stopped it
(the watchdog's reason is its result: stopping there is what the limit is for).
"""

from __future__ import annotations

import asyncio
import json
import os
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
    from autograder.sandbox import SandboxedKernelManager

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
                await kc.execute_interactive(path.read_text(), output_hook=hook, timeout=120)
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
