"""Public fixture functions: what a check hands to student code is built on the student's side.

A :class:`Fixture` is a scalar function of one array, by name.  The checker passes one to student
code (the ``f`` of ``numerical_gradient``); across the channel it travels as its name and its
array, and the kernel builds the same function over its own copy of that array, so nudging the
array in place changes what ``f()`` returns, as it would in one process.  Nothing here is secret.

Student code gets copies of a check's arrays: what it does to them in place stays on its side, so
it cannot change the question a check then judges its answer against.  A check that must see such
changes (does ``numerical_gradient`` restore ``x``? does ``forward`` leave its input alone?) says so
with :func:`watch`; only a watched array gets the student's final contents back after a call.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

_WATCHED = threading.local()  # the arrays the check running in this thread asked to see changed, by id


def watch(array):
    """Let the running check see how student code changes ``array`` in place; returns ``array``.

    In plain nbgrader (the check runs in the kernel, next to the student's code) every array is the
    check's own anyway, and this does nothing."""
    ids = getattr(_WATCHED, "ids", None)
    if ids is not None:
        ids[id(array)] = array  # held, so that no other array takes its id while the check runs
    return array


def watched(array) -> bool:
    """Did the check running in this thread ask to see changes to ``array``?"""
    ids = getattr(_WATCHED, "ids", None)
    return ids is not None and ids.get(id(array)) is array


@contextlib.contextmanager
def watching():
    """The scope of one check on the checker's side: arrays it watches are forgotten after it."""
    _WATCHED.ids = {}
    try:
        yield
    finally:
        _WATCHED.ids = None


FUNCTIONS = {
    "cubic": lambda x: float(np.sum(x**3 + 2.0 * x**2)),
    "sin_sum": lambda x: float(np.sum(np.sin(x))),
}


class Fixture:
    """``f()`` = FUNCTIONS[name](x); counts its calls."""

    def __init__(self, name: str, x):
        if name not in FUNCTIONS:
            raise ValueError(f"no fixture named {name!r}")
        self.name, self.x, self.calls = name, x, 0

    def __call__(self):
        self.calls += 1
        return FUNCTIONS[self.name](self.x)
