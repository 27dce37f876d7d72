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
(``channel.wire.LAYOUTS``, the one registry of layouts: ``LAYOUTS`` here is made from it), so student code meets a
transpose or a strided slice there too.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..channel.wire import LAYOUTS as LAYOUT_REGISTRY
from ..channel.wire import layout
from ..voice import Diagnosis

LAYOUTS = tuple(name for name in LAYOUT_REGISTRY if name != "contiguous")  # every layout but the plain one


def each_layout(shapes: tuple) -> list[tuple]:
    """(shape, layout) for every layout of LAYOUTS (all but contiguous), taking the ``shapes`` in turn: a check's
    laid-out boundary cases, so that a new layout of the registry reaches every check.  A shape may be a tuple of
    a case's sizes and other values alike (an axis, say): it is handed back as given."""
    return [(shapes[i % len(shapes)], name) for i, name in enumerate(LAYOUTS)]


def laid_out(a: np.ndarray, name: str | None) -> np.ndarray:
    """``a``'s values as a new array of the layout ``name`` (one of LAYOUTS, or None: contiguous); an unknown name is
    an error."""
    return layout(name).lay(a)


def told_of(name: str) -> str:
    """What a message says of an array of the layout ``name``: "laid out as a transpose in memory, as X.T ... give"."""
    return layout(name).told


def layout_words(name: str | None, arg: str) -> str:
    """How a message says the layout an argument had, or "" for a contiguous one."""
    if name is None:
        return ""
    found = layout(name)
    return f" ({arg} {found.told})"


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
