"""Kernels forked into their sandboxes (sandbox.forked, sandbox.forkserver): a forked kernel sees exactly what a
kernel started anew sees, holds nothing of the fork server's or of an earlier kernel's, and a failure of the fork
machinery costs the student nothing (the kernel is started the ordinary way)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from traitlets.config import Config

from autograder.sandbox import forked
from autograder.sandbox.kernel_manager import SandboxedKernelManager

from .conftest import kernels_of_server, sandbox_or_skip

PROBE = r"""
import json, os, resource, sys, random, numpy
status = {}
for line in open('/proc/self/status'):
    key, _, value = line.partition(':')
    status[key] = ' '.join(value.split())
print(json.dumps({
    'ids': [status[k] for k in ('Uid', 'Gid', 'Groups', 'NoNewPrivs', 'Seccomp')],
    'caps': {k: status[k] for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')},
    'limits': {n: resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith('RLIMIT_')},
    'cwd': os.getcwd(), 'files': sorted(os.listdir('.')), 'tmp': sorted(os.listdir('/tmp')),
    'path': sys.path, 'environment': sorted(os.environ), 'hostname': os.uname().nodename,
    'processes': len([p for p in os.listdir('/proc') if p.isdigit()]),
    'kit_modules': sorted(m for m in sys.modules if m.startswith('autograder')),
    'server_modules': [m for m, mod in list(sys.modules.items()) if 'forkserver' in str(getattr(mod, '__file__', ''))],
    'open_files': len(os.listdir('/proc/self/fd')),
    'random': [random.random(), float(numpy.random.rand())],
    'main': sys.modules['__main__'].__name__, 'argv0': os.path.basename(sys.argv[0]),
    'sees_course': os.path.exists(%r),
}))
"""


def run_kernel(fork: bool, folder, code: str, background: bool = False) -> tuple[dict, str]:
    """Run ``code`` in a sandboxed kernel started in ``folder`` (forked in the background, as a kernel started
    ahead is, with ``background``); (what it printed as JSON, how it came up)."""

    async def run():
        c = Config()
        c.SandboxedKernelManager.fork_kernels = fork
        km = SandboxedKernelManager(config=c, kernel_name="python3")
        km.fork_in_background = background
        await km.start_kernel(cwd=str(folder))
        if background:
            await km.finish_start()
            assert km._watchdog.launcher_pid == km.provisioner.pid, "the watchdog watches another sandbox"
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            out = []
            try:
                reply = await kc.execute_interactive(
                    code,
                    output_hook=lambda m: (
                        out.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None
                    ),
                    timeout=60,
                )
            except TimeoutError:
                alive = await km.is_alive()
                raise AssertionError(
                    f"the kernel did not answer (alive: {alive}; the kit's death: {km.death_cause()})"
                ) from None
            assert reply["content"]["status"] == "ok", reply["content"]
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
        return json.loads("".join(out)), km.started_as

    return asyncio.run(run())


@pytest.fixture
def folder(tmp_path):
    work = tmp_path / "submission"
    work.mkdir()
    (work / "data.txt").write_text("the student's other file\n")
    return work


def test_a_forked_kernel_sees_what_a_kernel_started_anew_sees(folder):
    sandbox_or_skip()
    code = PROBE % str(folder.parent)
    anew, how_anew = run_kernel(False, folder, code)
    forked_view, how = run_kernel(True, folder, code)
    assert (how_anew, how) == ("started", "forked")
    for key in ("ids", "limits", "cwd", "files", "path", "environment", "hostname", "main", "argv0", "kit_modules"):
        assert forked_view[key] == anew[key], (key, forked_view[key], anew[key])
    # the same processes (the sandbox's init and the kernel; here also the placeholder), nothing of the machine
    assert forked_view["processes"] <= anew["processes"] + 1
    assert not forked_view["sees_course"] and not anew["sees_course"]
    # no capability the ordinary kernel lacks (bubblewrap run by root leaves it most of root's; the forked has none)
    for key, value in forked_view["caps"].items():
        assert int(value, 16) & ~int(anew["caps"][key], 16) == 0, (key, value, anew["caps"][key])
    assert forked_view["kit_modules"] == [] and forked_view["server_modules"] == []
    assert forked_view["open_files"] <= anew["open_files"] + 2  # its pipe to the placeholder, at most one more


MEMORY_SCAN_CODE = r"""
import re
found = set()
with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:
    for line in maps:
        fields = line.split()
        if not fields[1].startswith('rw') or (len(fields) > 5 and fields[5] in ('[vvar]', '[vsyscall]')):
            continue
        start, end = (int(x, 16) for x in fields[0].split('-'))
        try:
            mem.seek(start)
            found.update(re.findall(%r, mem.read(end - start)))
        except (OSError, ValueError, OverflowError):
            pass
"""


def memory_scan(pattern: bytes, report: str) -> str:
    """Code that reads the process's own writable memory for ``pattern`` (its distinct matches: ``found``), then
    runs ``report``."""
    return MEMORY_SCAN_CODE % pattern + report + "\n"


# Reads the process's own writable memory for the docstring of a hidden check of lesson 2 (its code object
# holds it).  The pattern is written so that it does not contain the text it looks for.
MEMORY_SCAN = memory_scan(rb"contract's canonica[l] exampl[e]: ids \[0, 0\], dout of ones", "print(len(found))")


def test_no_hidden_check_is_in_a_forked_kernels_memory(folder):
    """The attack: read the kernel's own memory, which a forked kernel shares with the fork server, for the
    code of a hidden check.  The fork server never imports the kit, so there is none; the same scan in a
    process that has imported the check finds it."""
    sandbox_or_skip()
    code = MEMORY_SCAN.replace("print(len(found))", "import json; print(json.dumps({'found': len(found)}))")
    view, how = run_kernel(True, folder, code)
    assert how == "forked"
    assert view == {"found": 0}, "a hidden check's code is in the forked kernel's memory"
    control = subprocess.run(
        [sys.executable, "-c", "import autograder.hidden.lesson02\n" + MEMORY_SCAN],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert control.stdout.strip() not in ("", "0"), "the scan cannot find a hidden check that is in memory"


# Reads the process's own memory for requests the fork server was sent before: a folder named in them
REQUEST_SCAN = memory_scan(
    rb"earlier-reques[t]-[0-9]+", "import json; print(json.dumps({'found': sorted(x.decode() for x in found)}))"
)


def test_no_earlier_request_is_in_a_forked_kernels_memory(folder):
    """The attack (blind round 41's 14-forked-memory): a forked kernel is a copy of a process of the fork server's;
    had that process read the requests before its own, their folders and placeholders' pids would be in the
    kernel's heap, freed but not overwritten.  Requests of every size are sent (each fails: its placeholder is no
    process), then a kernel is forked and reads its own memory.  Each request is read by a handler forked before it
    arrives (forkserver.serve), so the kernel holds its own request alone."""
    sandbox_or_skip()
    forked._server.stop()
    for n in range(40):
        folder_name = f"/run/kit/earlier-request-{n}" + "/x" * (n * 20)
        with pytest.raises(forked.ForkFailed):
            forked._server.fork(2**22 + n, ["-f", folder_name + "/kernel.json"], [folder_name], folder_name)
    view, how = run_kernel(True, folder, REQUEST_SCAN)
    forked._server.stop()
    assert how == "forked" and view == {"found": []}, f"earlier requests in a forked kernel's memory: {view}"


KILL_PLACEHOLDER = (Path(__file__).parent / "attacks" / "kill_placeholder.py").read_text()


def test_the_student_cannot_kill_or_stop_the_placeholder(folder):
    """The attack (``attacks/kill_placeholder.py``): kill or stop the placeholder a forked kernel's sandbox lives
    by, whose death is the kit's (the notebook would run again, then the student be `error`, not graded). It is
    the sandbox's PID 1 (bubblewrap's ``--as-pid-1``), to which Linux delivers from inside its PID namespace only
    the signals it handles (``cat`` handles none); its resource limits are not the student's to set (the system-call
    filter), and its /proc folder is empty. The kernel still answers after every route was tried, and the student's
    own child is still the student's to kill."""
    sandbox_or_skip()
    code = (
        "import contextlib, io, json, os\n_out = io.StringIO()\nwith contextlib.redirect_stdout(_out):\n"
        f"    exec({KILL_PLACEHOLDER!r})\n"
        "print(json.dumps({'printed': _out.getvalue(), 'me': os.getpid()}))"
    )
    view, how = run_kernel(True, folder, code)
    assert how == "forked" and view["me"] != 1
    lines = dict(line.split(": ", 1) for line in view["printed"].splitlines())
    routes = json.loads(lines["placeholder"])
    # every signal was refused, or taken and ignored: the placeholder is PID 1, and handles none
    signals = {route: answer for route, answer in routes.items() if "prlimit" not in route and "mem" not in route}
    refused = {"No such process", "No such file or directory", "Bad file descriptor"}
    assert set(signals.values()) <= {"ok", *refused}, signals
    assert routes["kill(1, 9)"] == routes["kill(1, 19)"] == "ok", routes  # sent, and ignored
    assert routes["prlimit(1, RLIMIT_CPU)"] == "Operation not permitted", routes
    assert routes["/proc/1/mem"] == "No such file or directory", routes
    assert lines["own-child"] == "-9", lines


def test_forked_kernels_share_no_random_state(folder):
    sandbox_or_skip()
    code = PROBE % str(folder.parent)
    first, _ = run_kernel(True, folder, code)
    second, how = run_kernel(True, folder, code)
    assert how == "forked"
    assert first["random"][0] != second["random"][0], "Python's random state came from the fork server"
    assert first["random"][1] != second["random"][1], "NumPy's random state came from the fork server"


def test_a_killed_fork_server_is_started_again(folder):
    """The fault: the fork server dies between two notebooks. The next kernel is still forked (a new server)."""
    sandbox_or_skip()
    code = PROBE % str(folder.parent)
    _, how = run_kernel(True, folder, code)
    assert how == "forked"
    server = forked._server._process
    assert server is not None and server.poll() is None
    os.kill(server.pid, signal.SIGKILL)
    server.wait(10)
    view, how = run_kernel(True, folder, code)
    assert how == "forked" and view["cwd"]
    assert forked._server._process.pid != server.pid


@pytest.mark.parametrize("background", [False, True], ids=["at-once", "in-the-background"])
def test_a_fork_server_that_cannot_start_costs_nothing(folder, monkeypatch, background):
    """The fault: the fork server cannot run. The kernel is started the ordinary way (for a kernel forked in
    the background, when a notebook takes it, with the watchdog on its new sandbox) and runs the same code."""
    sandbox_or_skip()
    forked._server.stop()
    monkeypatch.setattr(forked, "SERVER", folder / "no-such-server.py")
    view, how = run_kernel(True, folder, PROBE % str(folder.parent), background=background)
    assert how == "started"
    assert view["files"] == ["data.txt"] and view["kit_modules"] == []
    monkeypatch.undo()
    forked._server.stop()


def test_a_fork_server_that_hangs_costs_a_wait_not_the_batch(folder, monkeypatch, tmp_path):
    """The fault: the fork server starts, then never answers. After ANSWER_WAIT the kernel is started the
    ordinary way, and the hung server is stopped."""
    sandbox_or_skip()
    hung = tmp_path / "hung-server.py"
    hung.write_text("import json, time\nprint(json.dumps({'ready': 1}), flush=True)\ntime.sleep(3600)\n")
    forked._server.stop()
    monkeypatch.setattr(forked, "SERVER", hung)
    monkeypatch.setattr(forked, "ANSWER_WAIT", 2.0)
    started = time.monotonic()
    view, how = run_kernel(True, folder, PROBE % str(folder.parent))
    assert how == "started" and view["files"] == ["data.txt"]
    assert time.monotonic() - started < 30
    assert forked._server._process is None, "the hung server was kept"
    monkeypatch.undo()
    forked._server.stop()


def test_a_kernel_forked_in_the_background_is_forked(folder):
    sandbox_or_skip()
    view, how = run_kernel(True, folder, PROBE % str(folder.parent), background=True)
    assert how == "forked" and view["files"] == ["data.txt"]


def test_a_kernel_shut_down_now_is_not_interrupted_first(folder):
    """jupyter_client interrupts a kernel before it kills it, and the kernel answers it (it signals itself) or not
    as the kill's race goes: a grading's last system calls differed from run to run.  The adapter
    (jupyter_hooks.HookedKernelManager) skips that interrupt and keeps the kernel's own, a cell's past its time."""
    sandbox_or_skip()

    async def run():
        km = SandboxedKernelManager(config=Config(), kernel_name="python3")
        await km.start_kernel(cwd=str(folder))
        sent, send = [], km.session.send

        def recording(stream, msg, *args, **kw):
            sent.append(msg["header"]["msg_type"] if isinstance(msg, dict) else msg)
            return send(stream, msg, *args, **kw)

        km.session.send = recording
        await km.interrupt_kernel()
        await km.shutdown_kernel(now=True)
        return sent

    assert asyncio.run(run()) == ["interrupt_request"], "the shutdown interrupted the kernel it then killed"


def test_kernels_leave_no_zombie_behind(folder):
    sandbox_or_skip()
    for _ in range(3):
        run_kernel(True, folder, "print('{}')")
    server = forked._server._process.pid
    deadline = time.monotonic() + 10
    while True:  # a kernel told to shut down may take a moment to end
        children = kernels_of_server(server)
        if not children or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert children == [], f"the fork server still has kernels or zombies after their kernels ended: {children}"
    handlers = open(f"/proc/{server}/task/{server}/children").read().split()
    assert len(handlers) == 1, f"the fork server has one child waiting for a request, not {handlers}"


def kill_servers(times: int, stop: list) -> list[int]:
    """In a thread: each time the fork server has forked a kernel, kill (SIGKILL) the server with its kernels
    (its children), ``times`` times; the pids of the servers killed."""
    import contextlib
    import threading

    killed: list[int] = []

    def run():
        while len(killed) < times and not stop:
            server = forked._server._process
            if server is not None and server.pid not in killed and server.poll() is None:
                if kernels_of_server(server.pid):
                    time.sleep(0.3)  # the kernel (not the child that forks it) is running the cell
                    kernels = kernels_of_server(server.pid)
                    for pid in [server.pid, *kernels]:
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
                    killed.append(server.pid)
            time.sleep(0.02)

    threading.Thread(target=run, daemon=True).start()
    return killed


@pytest.mark.parametrize("kills", [1, 3], ids=["once", "every-try"])
def test_a_notebook_whose_kernel_dies_with_its_server_runs_again_at_most_twice(folder, kills):
    """The executor's side of a kernel killed with its fork server: the notebook runs again from its submitted
    cells on a fresh kernel, and after the third such death it is the kit's fault (KitKernelDeath), no grade."""
    import nbformat

    from autograder.grading.execute import KIT_DEATH_RETRIES, BudgetedExecute, KitKernelDeath

    sandbox_or_skip()
    forked._server.stop()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import time; time.sleep(1.5); print('done')")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    c = Config()
    c.BudgetedExecute.sandbox = True
    c.BudgetedExecute.notebook_budget = 60
    c.BudgetedExecute.start_ahead = False
    execute = BudgetedExecute(config=c)
    stop: list = []
    killed = kill_servers(kills, stop)
    try:
        if kills > KIT_DEATH_RETRIES:
            with pytest.raises(KitKernelDeath):
                execute.preprocess(nb, {"metadata": {"path": str(folder)}})
        else:
            done, _ = execute.preprocess(nb, {"metadata": {"path": str(folder)}})
            assert [o.get("text") for o in done.cells[0].outputs] == ["done\n"], done.cells[0].outputs
    finally:
        stop.append(True)
        forked._server.stop()
    assert len(killed) == kills


TRANSFORMS = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("server", sys.argv[1])
server = importlib.util.module_from_spec(spec)
spec.loader.exec_module(server)
from IPython.core import inputtransformer2
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
calls = []
plain = inputtransformer2.TransformerManager.transform_cell
plain_results = {}
def counted(self, cell):
    calls.append(cell)
    return plain(self, cell)
inputtransformer2.TransformerManager.transform_cell = counted
SOURCES = [
    "x = 1",
    "y = %time 2",
    "x = 1",  # the same source again: transformed anew (the first one's result was used, then dropped)
    # the student's own calls while a cell runs: each transformed, none kept for the next
    "a = get_ipython().transform_cell('w = !echo'); b = get_ipython().transform_cell('w = !echo')",
    "x = 1",
]
for source in SOURCES:
    plain_results[source] = plain(shell.input_transformer_manager, source)
server.transform_once()
counts, results = [], []
for source in SOURCES:  # as ipykernel runs a cell: transform it, then run_cell (which transforms it again)
    before = len(calls)
    results.append(shell.transform_cell(source) == shell.input_transformer_manager.transform_cell(source))
    calls.pop()  # (that comparison's own call)
    shell.run_cell(source)
    counts.append(len(calls) - before)
alone = shell.transform_cell("q = 2")  # a call outside a cell, with no run_cell after it
later = shell.transform_cell("q = 2")  # is kept for the next call of the same source only
print(json.dumps({"counts": counts, "same": results, "a_is_b": shell.user_ns["a"] == shell.user_ns["b"],
                  "alone": alone == later}))
"""


def test_a_kernel_transforms_each_cell_once_and_as_ipython_would():
    """The fork server's kernels transform a cell's source once where ipykernel and IPython each did
    (forkserver.transform_once): the second call gets the first's result, and nothing else does."""
    code = subprocess.run(
        [sys.executable, "-c", TRANSFORMS, str(forked.SERVER)], capture_output=True, text=True, timeout=120
    )
    assert code.returncode == 0, code.stderr[-3000:]
    seen = json.loads(code.stdout.strip().splitlines()[-1])
    # one transform per cell run, where it was two (without transform_once: 2, 3, 2, 4, 2); %time transforms its own
    # argument as it runs, and the student's two calls are two more
    assert seen["counts"] == [1, 2, 1, 3, 1], seen
    assert all(seen["same"]) and seen["a_is_b"] and seen["alone"], seen


def test_a_kernel_started_in_the_temporary_folder_does_not_copy_the_kits_folders_into_itself(tmp_path, monkeypatch):
    """The folder a kernel starts in is copied for it to the machine's disk (then into its sandbox's /tmp).  Started
    in the system's temporary folder, where that copy is made, the copy once held itself, again and again, until the
    disk was full (72 GB in minutes on the test machine); it holds the folder's own files, none of the kit's."""
    sandbox_or_skip()
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    (temporary / "data.txt").write_text("a file of the folder\n")
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))  # where mkdtemp makes the kit's folders
    (temporary / "kit-files-of-another-kernel").mkdir()  # another kernel's files: never this one's to see
    (temporary / "kit-files-of-another-kernel" / "answer.txt").write_text("another student's file\n")
    view, _ = run_kernel(True, temporary, PROBE % str(tmp_path / "course"))
    assert view["files"] == ["data.txt"], view["files"]
    copies = [p for p in temporary.rglob("data.txt") if p != temporary / "data.txt"]
    assert copies == [], copies  # its copy went with the kernel, and was never copied into itself


def test_a_kernel_started_in_a_folder_larger_than_its_sandbox_is_refused_and_nothing_is_left(tmp_path, monkeypatch):
    """A folder with more bytes or files than the sandbox's /tmp holds (``max_written_mb``, ``max_files``) could never be
    shown whole: the kernel is refused with the folder named, and the part copied before the limit was found is gone."""
    from autograder.sandbox.kernel_manager import FolderTooLarge

    sandbox_or_skip()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "kit-tmp"))
    (tmp_path / "kit-tmp").mkdir()
    for name, make in {
        "bytes": lambda f: (f / "weights.npy").write_bytes(b"\0" * (3 * 2**20)),
        "files": lambda f: [(f / f"part-{i}.txt").write_text("x") for i in range(40)],
    }.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "a-small-file.txt").write_text("read first\n")
        make(folder)
        c = Config()
        c.ResourceLimits.max_written_mb, c.ResourceLimits.max_files = 2, 30
        km = SandboxedKernelManager(config=c, kernel_name="python3")
        with pytest.raises(FolderTooLarge) as refused:
            asyncio.run(km.start_kernel(cwd=str(folder)))
        assert str(folder) in str(refused.value) and "holds 2 MiB and 30 files" in str(refused.value), refused.value
        left = list((tmp_path / "kit-tmp").rglob("*"))
        assert left == [], f"{name}: {left}"  # neither the part copied nor the kernel's own folders
