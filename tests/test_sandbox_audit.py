"""One sandbox for every kernel path: no capabilities, no_new_privs, the kit's system-call filter, and every
writable place capped when it is written.

The probe (``tests/attacks/sandbox_probe.py``, see ``tests/audit.py``) reports, from inside a kernel, its
capabilities, no_new_privs, its seccomp mode, whether a list of calls succeeds, the mounts, and every place
it can create a file with that place's size.  Here it runs in kernels brought up each way the kernel
manager has: forked into the sandbox, started the ordinary way (``fork_kernels = False``), and started the
ordinary way after forking failed (the fallback).  The graded paths (``grade`` as root and unprivileged,
``check --thorough``, Gradescope, Dask workers) run the same probe in their own suites.
"""

from __future__ import annotations

import os

import pytest

from autograder.sandbox import forked
from autograder.sandbox.limits import SOCKETS, SOCKETS_BYTES

from .audit import PROBE, assert_audited, reference
from .conftest import sandbox_or_skip
from .test_forked_kernels import run_kernel

AS_JSON = PROBE.replace('print("sandbox-report:", ', "print(")  # run_kernel reads the kernel's output as JSON


@pytest.fixture(scope="module")
def kernel_reports(tmp_path_factory):
    """The probe's report from a kernel brought up each way: forked, started the ordinary way, and started
    the ordinary way because the fork server could not start."""
    sandbox_or_skip()
    folder = tmp_path_factory.mktemp("audit") / "submission"
    folder.mkdir()
    reports = {}
    for way, fork in (("forked", True), ("started", False)):
        reports[way], how = run_kernel(fork, folder, AS_JSON)
        assert how == way
    forked._server.stop()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(forked, "SERVER", folder / "no-such-server.py")
        reports["fallback"], how = run_kernel(True, folder, AS_JSON)
    forked._server.stop()
    assert how == "started"
    return reports


@pytest.mark.parametrize("way", ["forked", "started", "fallback"])
def test_every_way_a_kernel_comes_up_gives_the_same_report(kernel_reports, way):
    """No capability, no_new_privs, the filter, nothing of the list succeeds, only capped writable places:
    the report of a bare sandbox built as a kernel's, for the kernel forked into it and for the kernel
    started the ordinary way, by choice or as the fallback."""
    assert_audited(kernel_reports[way], checker=False)


def test_a_kernel_started_the_ordinary_way_as_root_cannot_mknod_or_mount(kernel_reports):
    """The attack of the fallback path, as root: a device node for the host's disk, then a mount.  The kernel
    started the ordinary way (the fallback whenever forking fails, and the whole path with
    ``fork_kernels = False``) had root's capabilities; it now has none in any set and cannot gain one."""
    if os.geteuid() != 0:
        pytest.skip("the attack is root's: run as root")
    for way in ("started", "fallback"):
        report = kernel_reports[way]
        assert set(report["capabilities"].values()) == {"0000000000000000"}, (way, report["capabilities"])
        assert (report["attempts"]["mknod"], report["attempts"]["mount"]) == ("EPERM", "EPERM"), (way, report)


def test_the_reference_is_built_as_a_kernels_sandbox():
    """The reference the reports are held to is not vacuous: it was made in a sandbox, by this probe."""
    sandbox_or_skip()
    report = reference(checker=False)
    assert report["seccomp"] == "2" and "/run/kit tmpfs rw" in report["mounts"]
    assert len(report["attempts"]) >= 10 and "<the kit's package> " in " ".join(report["mounts"])


FILL_SOCKETS = f"""
import errno, json, os, sys
with open(sys.argv[sys.argv.index("-f") + 1]) as f:  # the kernel's connection file: where its sockets are
    folder = os.path.dirname(json.load(f)["ip"])
written, errors = 0, []
fd = os.open(folder + "/ballast", os.O_CREAT | os.O_WRONLY, 0o600)
try:
    os.posix_fallocate(fd, 0, 100 * 2**20)  # 100 MiB at once (under RLIMIT_FSIZE, which stops 6 GiB)
except OSError as e:
    errors.append(errno.errorcode[e.errno])
try:
    for _ in range(4 * {SOCKETS_BYTES} // 2**16):  # then four times the cap, 64 KiB at a time
        written += os.write(fd, b"x" * 2**16)
except OSError as e:
    errors.append(errno.errorcode[e.errno])
os.close(fd)
print(json.dumps({{"folder": folder, "written": written, "errors": errors, "sockets": sorted(os.listdir(folder))}}))
"""


def test_writing_past_the_cap_in_the_socket_folder_fails_at_the_cap(tmp_path):
    """The kernel's socket folder is a size-capped tmpfs inside the sandbox (it was a host folder, watched only
    every 0.2 s): fallocate of 100 MiB fails at once, and writing stops at the cap, while the kernel goes on."""
    sandbox_or_skip()
    out, how = run_kernel(True, tmp_path, FILL_SOCKETS)
    assert how == "forked"
    # (fallocate is not on the system-call filter's allow list: refused before it reaches the cap)
    assert out["errors"] in (["ENOSPC", "ENOSPC"], ["EPERM", "ENOSPC"]), out
    assert 0 < out["written"] <= SOCKETS_BYTES, out
    assert out["folder"] == SOCKETS and "kernel-1" in out["sockets"], out


def _sandbox_processes(km) -> list[int]:
    """Global pids of the sandbox's processes: bubblewrap (the launcher), everything under it, and a forked
    kernel with everything under it."""
    from autograder.sandbox.forked import _descendants

    roots = [km.provisioner.pid] + ([km._forked_pid] if km.started_as == "forked" else [])
    return roots + [pid for root in roots for pid in _descendants(root)]


@pytest.mark.parametrize("way", ["forked", "started", "fallback"])
def test_no_process_of_the_sandbox_is_root_on_the_machine(tmp_path, way):
    """Read from outside (``/proc/<pid>/status``): bubblewrap, the placeholder and the kernel, on every way a kernel
    comes up, are the kit's kernel user with no supplementary group when root grades, the grader otherwise."""
    import asyncio

    from traitlets.config import Config

    from autograder.sandbox.kernel_manager import SandboxedKernelManager

    from .audit import assert_not_root, host_ids

    sandbox_or_skip()
    folder = tmp_path / "submission"
    folder.mkdir()

    async def run():
        c = Config()
        c.SandboxedKernelManager.fork_kernels = way != "started"
        km = SandboxedKernelManager(config=c, kernel_name="python3")
        await km.start_kernel(cwd=str(folder))
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            pids = _sandbox_processes(km)
            return km.started_as, {pid: host_ids(pid) for pid in pids}
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)

    with pytest.MonkeyPatch.context() as patch:
        if way == "fallback":
            forked._server.stop()
            patch.setattr(forked, "SERVER", folder / "no-such-server.py")
        how, ids = asyncio.run(run())
    forked._server.stop()
    assert how == ("forked" if way == "forked" else "started"), how
    assert len(ids) >= 2, ids  # bubblewrap and the kernel at least
    for found in ids.values():
        assert_not_root(found)
