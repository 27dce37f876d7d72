"""Grading kernels forked into their sandbox, instead of each starting Python and importing ipykernel anew.

A sandboxed kernel spends most of its start importing Python's, ipykernel's, ZMQ's and NumPy's modules: about
0.3 s of CPU per notebook, five times per student.  Here bubblewrap still builds each notebook's sandbox
exactly as before (limits, cgroup, scratch folder with the submission copied in), but what it starts in it is
a placeholder (``cat`` reading a pipe), as the sandbox's PID 1 (``as_init``).  The fork server
(``forkserver.py``, one per grading process, outside every sandbox, with those modules imported and no student
code ever run) then forks a child into the placeholder's namespaces, root, cgroup, limits and environment;
that child runs ``ipykernel_launcher`` as a new kernel would.  Each notebook still gets a process of its own
that nothing of another notebook ran in, in a sandbox of its own; the placeholder (so the sandbox) lives as
long as the kernel does, and jupyter_client watches and stops it as it would the kernel.

Whatever goes wrong on this side (the server cannot start, the fork fails) the kernel is started the
ordinary way instead: a fault of this machinery never becomes a student's grade.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

SERVER = Path(__file__).with_name("forkserver.py")
LAUNCHER = ("-m", "ipykernel_launcher")
ALIVE = "alive"  # the placeholder's pipe, in the kernel's socket folder
ANSWER_WAIT = 60.0  # seconds the fork server may take to start, or to answer one request


class ForkFailed(RuntimeError):
    pass


def forkable(kernel_cmd: list[str]) -> bool:
    """Whether ``kernel_cmd`` is this Python's ipykernel, which the fork server has imported."""
    if len(kernel_cmd) < 3 or tuple(kernel_cmd[1:3]) != LAUNCHER:
        return False
    return os.path.realpath(shutil.which(kernel_cmd[0]) or kernel_cmd[0]) == os.path.realpath(sys.executable)


def placeholder_command(runtime: Path) -> list[str]:
    """What bubblewrap runs in place of the kernel: ``cat`` on a pipe the kernel holds open while it lives."""
    alive = runtime / ALIVE
    os.mkfifo(alive, 0o600)
    return [shutil.which("cat") or "/bin/cat", str(alive)]


def as_init(prefix: list[str]) -> list[str]:
    """bubblewrap's ``prefix`` with the placeholder as the sandbox's PID 1 (``--as-pid-1``) in place of bubblewrap's
    own init: Linux delivers to a PID namespace's init, from inside the namespace, only the signals it has a handler
    for, and ``cat`` has none, so the kernel's code can neither kill nor stop the placeholder (whose death is the
    kit's).  The signals Linux itself would send it are out of reach too: the system-call filter refuses ``prlimit``
    on PID 1, and ``bwrap_command`` leaves ``/proc/1`` empty.  (Orphans of the kernel's processes are reparented to
    it, and stay zombies until the sandbox ends.)"""
    from .bubblewrap import bwrap_path

    at = prefix.index(bwrap_path()) + 1
    return [*prefix[:at], "--as-pid-1", *prefix[at:]]


def find_placeholder(launcher: int, command: list[str], timeout: float) -> int:
    """The global pid of the placeholder among ``launcher``'s descendants, once the sandbox is set up (the
    submission copied into its working folder): bubblewrap then executes the placeholder."""
    wanted = "\0".join(command) + "\0"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in _descendants(launcher):
            try:
                if Path(f"/proc/{pid}/cmdline").read_text() == wanted:
                    return pid
            except OSError:
                continue
        if not Path(f"/proc/{launcher}").exists():
            raise ForkFailed("the sandbox ended before its placeholder started")
        time.sleep(0.005)
    raise ForkFailed(f"the sandbox's placeholder did not start within {timeout:g} s")


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        found += [int(c) for c in children]
        todo += [int(c) for c in children]
    return found


def _answer(process: subprocess.Popen) -> str:
    """The server's next line; ForkFailed if none comes within ANSWER_WAIT (a hung server must not hang grading)."""
    ready, _, _ = select.select([process.stdout], [], [], ANSWER_WAIT)
    if not ready:
        raise ForkFailed(f"the fork server did not answer within {ANSWER_WAIT:g} s")
    return process.stdout.readline()


class ForkServer:
    """One fork server per grading process, started at its first use, restarted if it died."""

    def __init__(self):
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen:
        from .arguments import ONE_THREAD
        from .system_view import kept_environment

        env = kept_environment(
            os.environ
        )  # a forked kernel's /proc/self/environ is the server's: nothing of the grader's
        env.update({name: "1" for name in ONE_THREAD})  # NumPy sizes its BLAS threads at import, as in a sandbox
        env.update(HOME="/tmp", MPLCONFIGDIR="/tmp")  # Python finds its user site at start from HOME, as in a sandbox
        from .seccomp import filter_file

        process = subprocess.Popen(
            [sys.executable, str(SERVER), str(filter_file())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd="/",
            text=True,
            start_new_session=True,
        )
        ready = _answer(process)
        if not ready.startswith('{"ready"'):
            process.kill()
            raise ForkFailed("the fork server did not start")
        return process

    def fork(
        self, placeholder: int, arguments: list[str], cgroup_files: list[str], alive: str
    ) -> tuple[int, subprocess.Popen]:
        """Fork a kernel with ``arguments`` into the sandbox of ``placeholder``; the kernel's global pid, and the
        server that forked it (whose death, while the kernel runs, makes the kernel's death the kit's)."""
        request = {"placeholder": placeholder, "arguments": arguments, "cgroup_files": cgroup_files, "alive": alive}
        with self._lock:
            try:
                if self._process is None or self._process.poll() is not None:
                    self._process = self._start()
                self._process.stdin.write(json.dumps(request) + "\n")
                self._process.stdin.flush()
                answer, server = _answer(self._process), self._process
            except OSError as e:
                raise ForkFailed(f"the fork server is gone: {e}") from None
            except ForkFailed:
                if self._process is not None:  # it hangs: the next kernel gets a new server
                    self._process.kill()
                    self._process = None
                raise
        if not answer:
            raise ForkFailed("the fork server is gone")
        reply = json.loads(answer)
        if not reply.get("ok"):
            raise ForkFailed(reply.get("error") or "the fork failed")
        return reply["pid"], server

    def forget(self) -> None:
        """In a child forked from the grading process: the server and its pipes are the parent's, not ours."""
        process, self._process, self._lock = self._process, None, threading.Lock()
        for stream in (process.stdin, process.stdout) if process is not None else ():
            try:
                stream.close()
            except OSError:
                pass

    def stop(self) -> None:
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                self._process.stdin.close()  # the server leaves at the end of its input
                try:
                    self._process.wait(5)
                except subprocess.TimeoutExpired:
                    self._process.kill()
            self._process = None


_server = ForkServer()
atexit.register(_server.stop)
os.register_at_fork(after_in_child=_server.forget)


def fork_kernel(
    launcher: int, command: list[str], kernel_cmd: list[str], cgroup_files: list[str]
) -> tuple[int, subprocess.Popen]:
    """Fork the kernel of ``kernel_cmd`` into the sandbox ``launcher`` (bubblewrap's pid) is building around
    the placeholder ``command``; the kernel's global pid and the server that forked it.  Raises ForkFailed."""
    placeholder = find_placeholder(launcher, command, timeout=30)
    return _server.fork(placeholder, kernel_cmd[3:], cgroup_files, command[-1])


def fork_in_thread(launcher: int, command: list[str], kernel_cmd: list[str], cgroup_files: list[str]) -> Future:
    """:func:`fork_kernel` in a thread of its own: its future, (the kernel's pid, its server) or ForkFailed (whatever went
    wrong: an error of this machinery is a reason to start the kernel the ordinary way, never the student's)."""
    future = Future()

    def fork() -> None:
        try:
            future.set_result(fork_kernel(launcher, command, kernel_cmd, cgroup_files))
        except ForkFailed as e:
            future.set_exception(e)
        except Exception as e:  # noqa: BLE001
            future.set_exception(ForkFailed(f"{type(e).__name__}: {e}"))

    threading.Thread(target=fork, name="kit-fork", daemon=True).start()
    return future


def server_death(server: subprocess.Popen | None) -> str | None:
    """How ``server`` (the fork server that forked a kernel) died, in words, if it died other than by the kit's
    own stop at the end of its input; None while it lives."""
    if server is None or server.poll() is None or server.returncode == 0:
        return None
    code = server.returncode
    how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    return f"the fork server that forked it died ({how}: out of memory, or killed)"


def placeholder_death(sandbox: subprocess.Popen | None) -> str | None:
    """How the placeholder that a forked kernel joined died, in words, if it was killed; None while it lives or
    when it ended by itself.  ``sandbox`` is bubblewrap, which exits 128 + N when its command (the placeholder)
    was killed by signal N; the placeholder ends by itself (status 0) once the kernel has closed its pipe, and the
    kit's own stop kills bubblewrap (a negative status), so a killed placeholder is never the kernel's own end; nor
    the student's doing, since the kernel's code cannot kill it (``as_init``)."""
    if sandbox is None or sandbox.poll() is None or sandbox.returncode <= 128:
        return None
    return (
        f"the sandbox's placeholder it ran in was killed (signal {sandbox.returncode - 128}: out of memory, or killed)"
    )


def sandbox_killed(sandbox: subprocess.Popen | None) -> str | None:
    """How bubblewrap itself died, in words, if a signal killed it (a negative status); None while it lives or when
    it ended with its command.  bubblewrap runs outside the sandbox, in no namespace of the kernel's: the kernel's
    code can neither see nor signal it, and the kit stops a sandbox only after its notebook (or at a limit, which is
    told first), so a kill while a notebook runs is someone else's (the OOM killer, an administrator)."""
    if sandbox is None or sandbox.poll() is None or sandbox.returncode >= 0:
        return None
    return f"the kernel's sandbox (bubblewrap) was killed (signal {-sandbox.returncode}: out of memory, or killed)"


def stop_server() -> None:
    _server.stop()
