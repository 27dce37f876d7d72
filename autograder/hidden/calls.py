"""What the student's functions returned right so far in one grading, whichever check called them.

A cache keyed on too little is filled by every call of the function: by an earlier check of the same notebook as
much as by an earlier call of this check.  So a wrong result is told as ``stale-state`` when it is, bit for bit, the
right result an earlier call of the same function gave with other arguments, wherever in the grading that call was
made (docs/contract.md: named only where the student's result equals the right result of that earlier state).

One :class:`Calls` per grading: the checker keeps one per graded notebook and hands it to the checks it runs
(:func:`grading`); a check run with no checker (a kernel under plain nbgrader, the in-process tests) uses this
process's own.  A result is kept as its digest, so a long grading keeps a few bytes per call, never the tables.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
from collections import OrderedDict

import numpy as np

from ..channel.proxy import Remote

MAX_FUNCTIONS = 64  # functions remembered per grading (the oldest forgotten first)
MAX_RESULTS = 256  # right results remembered per function


def digest(a: np.ndarray) -> tuple:
    """What two arrays share only when they are equal entry for entry (shape, dtype and bytes)."""
    a = np.ascontiguousarray(a)
    return a.shape, a.dtype.str, hashlib.blake2b(a.tobytes(), digest_size=16).digest()


def function_key(fn) -> tuple:
    """The same for every call of one student's function in a grading.  Where the kit grades, ``fn`` is a proxy made
    afresh for each check; the kernel names what it stands for.  In-process it is the function itself, which the
    record keeps alive so that its id is never another's."""
    if isinstance(fn, Remote):
        return ("kernel", type(fn).__name__, object.__getattribute__(fn, "__name__"))
    return ("here", id(fn))


class Calls:
    """The right results of the calls of a grading, by function: digest -> how that call was written."""

    def __init__(self):
        self.functions: OrderedDict = OrderedDict()  # function_key -> (fn, {digest: what})

    def of(self, fn) -> dict:
        key = function_key(fn)
        if key not in self.functions:
            if len(self.functions) >= MAX_FUNCTIONS:
                self.functions.popitem(last=False)
            self.functions[key] = (fn, {})
        return self.functions[key][1]

    def right(self, fn, what, result) -> None:
        """``fn``'s call ``what`` (written out, or a function writing it) returned ``result``, and it was right."""
        if isinstance(result, np.ndarray) and result.size > 1:
            seen = self.of(fn)
            if len(seen) < MAX_RESULTS:
                seen.setdefault(digest(result), what)

    def earlier(self, fn, what, got) -> str | None:
        """The earlier call (written out) whose right result ``got`` is, if one with other arguments is known; ``what``
        is the call that returned ``got`` (written out, or a function writing it: paid only on a match)."""
        if not (isinstance(got, np.ndarray) and got.size > 1):
            return None
        before = self.of(fn).get(digest(got))
        if before is None:
            return None
        before, what = written(before), written(what)
        return before if before != what else None


def written(words) -> str:
    """Words that may be a function writing them (so the writing is paid only where they are shown): the words."""
    return words() if callable(words) else words


_HERE = Calls()  # the grading this process is, where no checker hands its own
_CURRENT: contextvars.ContextVar[Calls | None] = contextvars.ContextVar("kit_grading_calls", default=None)


def current() -> Calls:
    return _CURRENT.get() or _HERE


@contextlib.contextmanager
def grading(calls: Calls | None):
    """Run the checks inside with ``calls`` as their grading's record (None: this process's own)."""
    token = _CURRENT.set(calls)
    try:
        yield
    finally:
        _CURRENT.reset(token)
