"""The checker keeps its questions: student code that changes its inputs in place changes only its own copies.

Every hidden check of every lesson runs here as the grader runs it (the real check in this process, the
student's side answering over a socket pair, as ``test_channel`` does), against the reference solution
changed to scribble over every array it is given after each call.  No array a check made may change
under it, except the ones it watches to judge exactly that (``fixtures.watch``), and those checks still
name the side effect.
"""

from __future__ import annotations

import functools
import socket
import time

import numpy as np
import pytest

from autograder.channel.client import Server
from autograder.channel.fixtures import Fixture, watched
from autograder.channel.proxy import Session
from autograder.course import NOTEBOOKS
from autograder.devtools.mutants.inprocess import load
from autograder.grading.checker import run_check

from .conftest import serve_in_thread


def scribble_after(fn):
    """``fn``, which then adds 1 to every array it was given: the answer is right, the inputs are not."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        result = fn(*args, **kwargs)
        for a in [*args, *kwargs.values()]:
            if isinstance(a, np.ndarray) and a.flags.writeable and a.dtype.kind in "fiu" and a.size:
                a += 1
        return result

    return run


def _scribbling_attribute(self, name):
    value = object.__getattribute__(self, name)
    if callable(value) and not isinstance(value, type) and not name.startswith("_"):
        return scribble_after(value)
    return value


def scribbling(obj):
    """The student's class or function, changed so that every method or call scribbles over its inputs."""
    if isinstance(obj, type):
        return type(obj.__name__, (obj,), {"__getattribute__": _scribbling_attribute})
    return scribble_after(obj) if callable(obj) else obj


def arrays_in(value, found: list) -> list:
    if isinstance(value, np.ndarray):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            arrays_in(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            arrays_in(v, found)
    elif isinstance(value, Fixture):
        arrays_in(value.x, found)
    return found


@pytest.fixture
def changed_under_checks(monkeypatch):
    """Every call a check makes into student code, recorded: the arrays it sent, and those that changed."""
    record = {"sent": 0, "changed": []}
    real_call = Session.call

    def call(self, hid, args, kwargs):
        sent = arrays_in([list(args), dict(kwargs)], [])
        before = [a.copy() for a in sent]
        record["sent"] += len(sent)
        try:
            return real_call(self, hid, args, kwargs)
        finally:
            for a, b in zip(sent, before):
                if not watched(a) and not np.array_equal(a, b, equal_nan=True):
                    record["changed"].append(record["check"])

    monkeypatch.setattr(Session, "call", call)
    return record


def run_over_socket(module: str, function: str, objects: list) -> tuple[str, str] | None:
    """Run one hidden check in this process against ``objects`` served from the other end of a socket pair."""
    ours, theirs = socket.socketpair()
    server = Server(theirs)
    handles = [server.handle_of(o) for o in objects]
    thread = serve_in_thread(server)
    session = Session(ours, time.monotonic() + 60)
    try:
        diagnosis = run_check(module, function, [session.resolve(h.id, h.kind, h.name) for h in handles])
    finally:
        session.done(None)
        thread.join(5)
        ours.close()
        theirs.close()
    assert session.broken is None, session.broken
    return diagnosis


def test_student_code_changing_its_inputs_cannot_change_a_check(changed_under_checks, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_SEED", "7")
    verdicts, with_arrays = {}, []
    for notebook in NOTEBOOKS:
        ns, tests = load(notebook)
        for _, calls in tests:
            for module, function, names in calls:
                changed_under_checks["check"] = function
                sent_before = changed_under_checks["sent"]
                diagnosis = run_over_socket(module, function, [scribbling(ns[n]) for n in names])
                verdicts[function] = diagnosis[0] if diagnosis else "pass"
                if changed_under_checks["sent"] > sent_before:
                    with_arrays.append(function)
    # lesson 3's checks pass only sizes; every other lesson's checks pass arrays
    assert len(with_arrays) >= 15, f"only these hidden checks passed arrays to student code: {with_arrays}"
    assert changed_under_checks["changed"] == [], (
        f"student code changed the arrays of these checks in place: {sorted(set(changed_under_checks['changed']))}"
    )
    # the checks that judge in-place changes still see them
    watching = {
        "softmax_values": "side-effect",
        "attention_values": "side-effect",
        "permutation_gap_no_pos": "side-effect",
        "numerical_gradient_restore": "no-restore",
        "positional_forward": "side-effect",
        "layer_forward": "side-effect",
    }
    assert {f: verdicts[f] for f in watching} == watching
