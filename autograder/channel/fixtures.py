"""Public fixture functions: what a check hands to student code is built on the student's side.

A :class:`Fixture` is a scalar function of one array, by name.  The checker passes one to student
code (the ``f`` of ``numerical_gradient``); across the channel it travels as its name and its
array, and the kernel builds the same function over its own copy of that array, so nudging the
array in place changes what ``f()`` returns, as it would in one process.  Nothing here is secret.
"""
from __future__ import annotations

import numpy as np

FUNCTIONS = {
    "cubic": lambda x: float(np.sum(x ** 3 + 2.0 * x ** 2)),
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
