"""The channel on its own: the kernel's public client and the checker's proxies over a socket pair."""

from __future__ import annotations

import shutil
import socket
import struct
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from autograder.channel import wire
from autograder.channel.client import Server
from autograder.channel.fixtures import Fixture, watch, watching
from autograder.channel.proxy import ChannelBroken, RemoteError, Session
from autograder.channel.sockets import SUN_PATH_ROOM, socket_folder
from autograder.grading.checker import Checker

from .conftest import serve_in_thread


class Counter:
    def __init__(self, n, seed=0):
        self.n, self.seed, self.table = n, seed, np.arange(n, dtype=np.float64)

    def bump(self, x):
        x += 1  # in place, on the caller's array
        return x.sum()

    def fail(self, kind):
        raise {
            "index": IndexError("id 9 >= 5"),
            "custom": type("MyError", (ValueError,), {})("mine"),
            "odd": type("Odd", (BaseException,), {})("odd"),
        }[kind]

    def liar(self):
        class Liar:
            def __eq__(self, other):
                return True

            def __float__(self):
                return 1.0

            def __array__(self, *a, **k):
                return np.ones(3)

        return Liar()

    def hang(self):
        time.sleep(3)

    def nudge(self, f, x):
        x[0] += 1.0
        return f()

    def layout(self, a):
        """What student code meets: the array's values, whether it is contiguous, a transpose of a contiguous one."""
        return a.tolist(), bool(a.flags.c_contiguous), bool(a.T.flags.c_contiguous)

    def through_flat(self, a):
        a.reshape(-1)[0] = 99.0  # writes into x only where reshape gives a view (a contiguous x)
        a[(0,) * a.ndim] += 1.0  # always reaches x


def serve(obj, seconds=5.0):
    """A kernel-side server for ``obj`` in a thread; the checker's session on the other end."""
    ours, theirs = socket.socketpair()
    server = Server(theirs)
    handle = server.handle_of(obj)
    serve_in_thread(server)
    session = Session(ours, time.monotonic() + seconds)
    return session, session.resolve(handle.id, handle.kind, handle.name)


def test_construct_call_and_attributes_cross_as_plain_data():
    session, Remote = serve(Counter)
    c = Remote(4, seed=3)
    assert c.n == 4 and c.seed == 3
    table = c.table
    assert type(table) is np.ndarray and table.dtype == np.float64 and list(table) == [0, 1, 2, 3]
    c.n = 7
    assert c.n == 7
    x = np.zeros(3)
    assert c.bump(x) == 3.0 and list(x) == [0, 0, 0], "student code changes its own copy, never the check's array"
    with watching():
        assert c.bump(watch(x)) == 3.0 and list(x) == [1, 1, 1], "a watched array gets the changes back"
    session.done(None)


def test_exceptions_keep_their_built_in_type():
    session, Remote = serve(Counter)
    c = Remote(2)
    with pytest.raises(IndexError, match="id 9"):
        c.fail("index")
    with pytest.raises(ValueError) as err:
        c.fail("custom")
    assert type(err.value).__name__ == "MyError"
    with pytest.raises(AttributeError):
        c.no_such_method()
    with pytest.raises(RemoteError):
        c.fail("odd")
    session.done(None)


def test_a_rigged_object_stays_a_handle_and_proves_nothing():
    session, Remote = serve(Counter)
    got = Remote(2).liar()
    assert not isinstance(got, np.ndarray)
    assert (got == 1) is False
    with pytest.raises(TypeError):
        float(got)
    assert np.asarray(got).dtype == object
    session.done(None)


def test_a_fixture_is_built_over_the_kernels_copy_of_its_array():
    session, Remote = serve(Counter)
    x = np.array([1.0, 2.0])
    f = Fixture("cubic", x)
    assert Remote(2).nudge(f, x) == pytest.approx(2**3 + 2 * 2**2 + 2**3 + 2 * 2**2)
    assert list(x) == [1.0, 2.0] and f.calls == 1, "the nudge stays in the kernel's copy"
    with watching():
        assert Remote(2).nudge(f, watch(x)) == pytest.approx(2 * (2**3 + 2 * 2**2))
    assert list(x) == [2.0, 2.0] and f.calls == 2, "one array on both sides, changes seen where watched"
    session.done(None)


def test_transposes_and_strided_slices_reach_student_code_as_views_of_the_same_values():
    """Arrays cross by copy, but a check that hands student code a transposed or strided array must have it meet
    one in the kernel too (x.reshape(-1) then copies instead of giving a view)."""
    session, Remote = serve(Counter)
    c = Remote(2)
    base = np.arange(6.0).reshape(2, 3)
    transposed, strided = base.T, np.arange(12.0)[::2]
    three = np.arange(24.0).reshape(2, 3, 4).transpose(1, 0, 2)  # no plain transpose: sent as strided
    assert c.layout(base) == (base.tolist(), True, False)
    assert c.layout(transposed) == (transposed.tolist(), False, True)
    assert c.layout(strided) == (strided.tolist(), False, False)
    assert c.layout(three) == (three.tolist(), False, False)
    for view in (transposed, strided, three):  # in-place writes come back where watched, through the view
        first = view.copy() if view is not transposed else view.T.copy().T
        c.through_flat(view)
        assert np.array_equal(view, first), "unwatched: the check's array is untouched"
        with watching():
            c.through_flat(watch(view))
        layout = wire.layout_of(view)
        want = wire.LAYOUTS[layout].view(wire.carrier_of(first, layout).copy())  # the same kind of view, here
        Counter(2).through_flat(want)
        assert np.array_equal(view, want), (view, want)
    with watching():
        c.through_flat(watch(base))
    assert base[0, 0] == 100.0, "a contiguous array: reshape(-1) is a view, and the write reaches it"
    session.done(None)


def test_a_layout_the_protocol_does_not_know_is_refused():
    with pytest.raises(wire.ProtocolError):
        wire.decode({"array": 0, "layout": "diagonal"}, [np.zeros((2, 2))], None)


def test_a_hang_breaks_the_channel_at_the_deadline():
    session, Remote = serve(Counter, seconds=1.0)
    c = Remote(2)
    start = time.monotonic()
    with pytest.raises(ChannelBroken):
        c.hang()
    assert time.monotonic() - start < 2.0
    with pytest.raises(ChannelBroken):
        _ = c.n  # every later question fails at once
    assert "did not answer" in session.broken


@pytest.mark.parametrize(
    "frame",
    [
        b"not a frame at all, just garbage bytes",
        struct.pack(">QI", 2**40, 10),  # a flood announced
        struct.pack(">QI", 4 + 9, 9) + b"{not json",
        struct.pack(">QI", 4 + 38, 38) + b'{"value": 1, "arrays": [["|O", [1]]]}',  # object dtype
    ],
)
def test_garbage_breaks_the_channel(frame):
    ours, theirs = socket.socketpair()
    session = Session(ours, time.monotonic() + 2)
    theirs.sendall(frame)
    theirs.shutdown(socket.SHUT_WR)
    with pytest.raises(ChannelBroken):
        session.getattr(1, "x")
    assert session.broken


def test_arrays_decode_only_with_allowed_dtypes_and_honest_sizes():
    ours, theirs = socket.socketpair()
    wire.send(theirs, {"value": {"array": 0}}, [np.arange(6, dtype=np.int64).reshape(2, 3)])
    message, arrays = wire.receive(ours, time.monotonic() + 1)
    assert arrays[0].shape == (2, 3) and arrays[0].flags.writeable
    head = b'{"value": {"array": 0}, "arrays": [["<f8", [1000]]]}'
    theirs.sendall(struct.pack(">QI", 4 + len(head) + 8, len(head)) + head + b"\0" * 8)
    with pytest.raises(wire.ProtocolError, match="promises more bytes"):
        wire.receive(ours, time.monotonic() + 1)


def test_the_checkers_socket_fits_however_deep_the_temporary_folder(tmp_path, monkeypatch):
    """A Unix socket's path holds at most 107 bytes: under a deep TMPDIR (a CI runner's, a test's) the checker
    makes its socket folder under /tmp instead, rather than no student being graded."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    checker = Checker()
    try:
        assert len(checker.path.encode()) <= SUN_PATH_ROOM and checker.folder.parent == Path("/tmp"), checker.path
        assert oct(checker.folder.stat().st_mode & 0o777) == "0o700"
    finally:
        checker.close()
    assert not checker.folder.exists()
    short = Path(tempfile.mkdtemp(prefix="kit-short-", dir="/tmp"))
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(short))
        assert socket_folder("channel", len("checker.sock")).parent == short  # where it fits, TMPDIR it is
    finally:
        shutil.rmtree(short)


class Buffered:
    """Keeps one output buffer and hands it out at every call, and a table an optimizer steps in place."""

    def __init__(self):
        self.buffer, self.table = np.zeros(2), np.arange(3, dtype=np.float64)
        self.view = self.table[:2]  # a view kept of the table: only a step in place reaches it

    def scaled(self, k):
        self.buffer[...] = k
        return self.buffer


def test_the_checker_sees_what_an_array_handed_out_holds_now_and_steps_a_table_in_place():
    """issue 42: a result written over by a later call is seen through the channel ("recall"), and an optimizer step
    ("subtract") changes the student's own array, as E -= lr * dE does in one process."""
    session, Remote = serve(Buffered)
    b = Remote()
    first = b.scaled(1.0)
    b.scaled(2.0)
    assert list(first) == [1.0, 1.0], "the checker's copy never changes"
    assert list(session.recall(first)) == [2.0, 2.0], "the kernel's array was written over by the second call"
    mine = np.ones(2)
    assert session.recall(mine) is mine, "an array the kernel never handed out is itself"
    held = b.table  # a copy, as every attribute crosses
    session.subtract(object.__getattribute__(b, "_id"), "table", np.ones(3))
    assert list(b.table) == [-1.0, 0.0, 1.0] and list(held) == [0.0, 1.0, 2.0]
    assert list(b.view) == [-1.0, 0.0], "the step wrote into the student's array, it did not replace it"
    session.done(None)


class Methods:
    """A class whose methods the kernel names in the object's handle, and one that shadows or swaps them."""

    def __init__(self, shadow=False):
        self.calls = 0
        if shadow:
            self.twice = lambda x: -x  # the instance's own: read, not named

    def twice(self, x):
        self.calls += 1
        return 2 * x

    def swap(self):
        self.twice = lambda x: 3 * x  # a later read finds this one

    def apply(self, f, x):
        return f(x)


class Guarded(Methods):
    def __getattribute__(self, name):  # only a read can tell what it gives
        return object.__getattribute__(self, name)


def test_a_method_call_is_one_request_and_reads_the_method_when_it_is_called():
    session, Remote = serve(Methods)
    m = Remote()
    before = session.requests
    assert m.twice(4) == 8 and session.requests == before + 1, "the method read and called in one request"
    m.swap()
    assert m.twice(4) == 12, "the method the object holds when it is called, as obj.twice(4) reads it"
    assert m.apply(m.twice, 5) == 15, "a method handed over as a value is the one the object holds then"
    assert m.calls == 1
    with pytest.raises(AttributeError):
        m.no_such_method()
    shadowed = Remote(shadow=True)
    before = session.requests
    assert shadowed.twice(4) == -4 and session.requests == before + 2, "the instance's own attribute is read first"
    session.done(None)


def test_a_class_with_its_own_getattribute_names_no_method():
    session, Remote = serve(Guarded)
    g = Remote()
    before = session.requests
    assert g.twice(4) == 8 and session.requests == before + 2
    session.done(None)


def test_a_cache_filled_by_an_earlier_check_is_named_whichever_check_filled_it():
    """Each check of a grading is its own session with its own proxy of the student's function; the checker's record
    of their right results (``hidden.calls``) still holds every check's calls of that function.  A cache keyed on T
    and C alone, filled by table_odd_values with these seeds' sizes, hands table_base_and_length a table of the
    default base: named stale-state with the notebook's record, and only wrong-value with a record per check."""
    import os

    from autograder.devtools.mutants import catalogue
    from autograder.devtools.mutants.inprocess import load
    from autograder.grading.checker import run_check
    from autograder.hidden.calls import Calls

    mutant = next(m for m in catalogue()[0] if m.name.endswith("18-table-cache-ignores-base"))
    named = {}
    for shared in (True, False):
        table = load(mutant.notebook, mutant)[0]["sinusoidal_table"]  # a fresh cache
        record = Calls()
        found = []
        for check, seed in (("table_odd_values", 11), ("table_base_and_length", 2723)):
            os.environ["AUTOGRADER_SEED"] = str(seed)
            try:
                session, remote = serve(table)
                verdict = run_check("lesson03", check, [remote], session, record if shared else Calls())
                session.done(verdict)
            finally:
                os.environ.pop("AUTOGRADER_SEED", None)
            found.append(verdict[0] if verdict else "pass")
        named[shared] = found
    assert named == {True: ["pass", "stale-state"], False: ["pass", "wrong-value"]}, named
