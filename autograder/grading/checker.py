"""The checker: runs a test cell's hidden checks in the grading process, against the kernel's answers.

One :class:`Checker` per graded notebook listens on a Unix socket in a folder of its own (the only
thing of the kit's grading side a sandboxed kernel can reach).  While a test cell runs,
:meth:`Checker.expect` serves the hidden calls that the cell's *instructor* source makes (parsed
from the cell, which nbgrader restores from the gradebook): each connection from the kernel is one
call, run with the real check from ``autograder.hidden`` against proxies of the kernel's objects.
The verdict of the cell is recorded here; what the kernel says about it is never asked.  A test
passes only if every hidden call of its cell ran, in order, and passed, over a channel that never
broke.
"""

from __future__ import annotations

import importlib
import shutil
import socket
import threading
import time
from dataclasses import dataclass

from ..channel import ENV, wire
from ..channel.fixtures import watching
from ..channel.proxy import ChannelBroken, Session
from ..channel.sockets import socket_folder
from ..hidden.calls import Calls, grading
from .shrink import smallest_failing_case


@dataclass(frozen=True)
class Verdict:
    """The outside check's word on one hidden test (decided in the grading process, never by the kernel).

    The one form of a verdict from the checker to the gradebook and the results: the executor hands a
    notebook's verdicts to the next preprocessor in ``resources`` (:data:`VERDICTS`)."""

    passed: bool
    diagnosis: str | None = None  # misconception id, or "unverified" / "crashed" / ...
    message: str | None = None

    @classmethod
    def failed(cls, diagnosis: str, message: str) -> Verdict:
        return cls(False, diagnosis, message)


VERDICTS = "kit_verdicts"  # resources key: grade_id -> Verdict of one notebook, for the ApplyVerdicts preprocessor


def run_check(
    module: str, function: str, args: list, session: Session | None = None, calls: Calls | None = None
) -> tuple[str, str] | None:
    """Run one real hidden check; (diagnosis id, message) if it failed, None if it passed.  A failure outside
    the catalogue ends with the smallest case that fails the same way, when one is found (``shrink``).
    ``calls``: what the student's functions returned in the checks of the same grading before this one
    (None: this process's own record)."""
    from ..hidden.diagnostics import Diagnosis

    check = getattr(importlib.import_module(f"autograder.hidden.{module}"), function)
    # student code changes only the arrays the check watches (fixtures.watch)
    with watching(), grading(calls):
        try:
            check(*args)
        except Diagnosis as d:
            smallest = smallest_failing_case(module, function, args, d.misconception, d.message, session=session)
            return d.misconception, d.message + (f"\n{smallest}" if smallest else "")
    return None


class Checker:
    """Verdicts of one notebook's hidden tests, decided outside the kernel."""

    def __init__(self):
        try:
            self.folder = socket_folder("channel", len("checker.sock"))
            self.path = str(self.folder / "checker.sock")
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(self.path)
            self.listener.listen(4)
        except OSError as e:  # the kit's side: no student is graded without a channel (grading.faults)
            raise OSError(e.errno, f"the checker's channel could not be opened: {e.strerror or e}") from None
        self.verdicts: dict[str, Verdict] = {}  # grade_id -> the verdict of its hidden calls
        self._conn: socket.socket | None = None
        self._stop = threading.Event()
        self.calls = Calls()  # the student's functions' right results so far, over every check of the notebook
        self.cpu = 0.0  # seconds of CPU this process spent serving the hidden calls (the checks themselves)

    def env(self) -> dict[str, str]:
        return {ENV: self.path}

    def close(self) -> None:
        self.listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def expect(self, grade_id: str, calls: list[list], deadline: float) -> CellCheck:
        return CellCheck(self, grade_id, calls, deadline)

    def _accept(self, deadline: float) -> socket.socket | None:
        while not self._stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.listener.settimeout(min(left, 0.2))
            try:
                conn, _ = self.listener.accept()
                return conn
            except TimeoutError:
                continue
            except OSError:
                return None
        return None

    def _serve(self, grade_id: str, calls: list[list], deadline: float) -> None:
        cpu = time.thread_time()
        try:
            self._serve_calls(grade_id, calls, deadline)
        finally:
            self.cpu += time.thread_time() - cpu  # (one cell's thread at a time)

    def _serve_calls(self, grade_id: str, calls: list[list], deadline: float) -> None:
        verdict = Verdict(True)
        for module, function, _names in calls:
            conn = self._accept(deadline)
            if conn is None:
                verdict = Verdict.failed(
                    "unverified", f"the hidden check {function} never ran: the cell stopped before it"
                )
                break
            self._conn = conn
            try:
                verdict = self._one(conn, module, function, deadline)
            finally:
                self._conn = None
                conn.close()
            if not verdict.passed:
                break
        self.verdicts[grade_id] = verdict

    def _one(self, conn: socket.socket, module: str, function: str, deadline: float) -> Verdict:
        session = Session(conn, deadline)
        try:
            hello, arrays = wire.receive(conn, deadline)
            if hello.get("op") != "hello" or hello.get("module") != module or hello.get("check") != function:
                raise wire.ProtocolError(f"expected the call {module}.{function}")
            args = [wire.decode(a, arrays, session.resolve) for a in hello.get("args", [])]
        except (wire.ProtocolError, TimeoutError, EOFError, OSError) as e:
            return Verdict.failed("unverified", f"the kernel did not start the hidden check {function} properly ({e})")
        try:
            diagnosis = run_check(module, function, args, session, self.calls)
        except ChannelBroken:
            diagnosis = None
        except BaseException as e:  # noqa: BLE001 - the check itself must not stop grading
            diagnosis = ("crashed", f"the check could not run ({type(e).__name__})")
        if session.broken is not None:
            # whatever the check concluded, it did not get proper answers: no points
            diagnosis = ("unverified", f"{function}: {session.broken}")
        session.done(diagnosis)
        return Verdict(True) if diagnosis is None else Verdict.failed(*diagnosis)


class CellCheck:
    """Serve one test cell's hidden calls in a thread while the kernel runs the cell."""

    def __init__(self, checker: Checker, grade_id: str, calls: list[list], deadline: float):
        self.checker, self.grade_id, self.calls, self.deadline = checker, grade_id, calls, deadline
        self.thread = threading.Thread(target=checker._serve, args=(grade_id, calls, deadline), daemon=True)

    def __enter__(self):
        self.checker._stop.clear()
        self.thread.start()
        return self

    def __exit__(self, *exc):
        # the cell is over: a check still waiting for the kernel has no answer coming
        self.checker._stop.set()
        self.thread.join(timeout=1.0)
        conn = self.checker._conn
        if self.thread.is_alive() and conn is not None:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(timeout=5.0)
        if self.thread.is_alive() or self.grade_id not in self.checker.verdicts:
            self.checker.verdicts[self.grade_id] = Verdict.failed(
                "unverified", "the hidden check did not finish with the cell"
            )
        return False
