"""The boundary classes of the contract's input space (docs/contract.md, "The input space"), as the hidden
checks draw them: NumPy only, so that a kernel under plain nbgrader can run them.

Random cases of a middling size meet most mistakes; these meet the ones that hide at an edge of the input
space: sizes of 1 (B, T, C, V), ids that repeat and ids that never occur, negative and large shifts, arrays
laid out as a transpose or a strided slice, arguments of opposite sign, scores whose spread exceeds what
``exp`` can hold, a second call with other arguments (a cache keyed on too little) and a table changed
between two calls (an optimizer step between two forwards).  Every grading draws one case of each class
that applies to a check, on top of its random ones, and after them (a mistake the random cases meet is told
by them first).

Where the kit grades, arrays cross to the student's kernel by copy; the channel keeps their kind of layout
(``channel.wire.LAYOUTS``), so student code meets a transpose or a strided slice there too.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..voice import Diagnosis

LAYOUTS = ("transposed", "strided")


def transposed(a: np.ndarray) -> np.ndarray:
    """``a``'s values in a new array laid out as a transpose (not contiguous; its ``.T`` is); 1-D: strided."""
    a = np.asarray(a)
    if a.ndim < 2:
        return strided(a)
    return a.T.copy().T


def strided(a: np.ndarray) -> np.ndarray:
    """``a``'s values in a new array that is every second entry of a larger one (not contiguous)."""
    a = np.asarray(a)
    big = np.zeros(tuple(2 * n for n in a.shape), dtype=a.dtype)
    view = big[(slice(None, None, 2),) * a.ndim]
    view[...] = a
    return view


def laid_out(a: np.ndarray, layout: str | None) -> np.ndarray:
    """``a``'s values as a new array of ``layout`` ("transposed", "strided", or None: contiguous)."""
    if layout is None:
        return np.array(a, copy=True)
    return {"transposed": transposed, "strided": strided}[layout](a)


def layout_words(layout: str | None, name: str) -> str:
    """How a message says the layout an argument had, or "" for a contiguous one."""
    if layout is None:
        return ""
    if layout == "transposed":
        return f" ({name} laid out as a transpose in memory, as X.T or np.swapaxes give)"
    return f" ({name} a strided slice in memory, as a[::2] gives)"


@contextlib.contextmanager
def shown_on(case: str):
    """A diagnosis raised inside names the boundary case it came from (unless its message does already): the
    words of a gradient's diagnosis say what is wrong, not on which case."""
    try:
        yield
    except Diagnosis as d:
        if case in d.message:
            raise
        raise Diagnosis(d.misconception, f"{d.message}\nThe case that shows it: {case}.") from None
