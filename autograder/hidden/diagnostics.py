"""Diagnoses: the one thing a failing hidden check shows the student.

A ``Diagnosis`` is an ``AssertionError`` carrying a misconception id from SPEC's catalogue (or a
generic id such as ``wrong-value``) and a message in the words of the mistake.  IPython renders an
exception through ``_render_traceback_`` when it has one, so a failing hidden test cell shows only
this message: no traceback into the kit, no hidden-test source, no test inputs.
"""
from __future__ import annotations

import numpy as np

# SPEC's catalogue: id -> the student's bug, in a few words (used by reports and the mutant table).
CATALOGUE = {
    "scatter-overwrite": "dE[idx] += dout counts a repeated id once",
    "sin-cos-swap": "even columns take cos, odd columns sin",
    "freq-sign": "the frequency exponent has the wrong sign",
    "freq-per-column": "each column gets its own frequency instead of one per sin/cos pair",
    "halves-not-interleaved": "sin in the first half of the columns, cos in the second",
    "dP-not-summed": "dP takes one batch row instead of the sum over the batch",
    "dP-tail-not-zero": "rows T and beyond of dP get a value",
    "positions-missing": "forward returns E[idx] alone",
    "positions-by-token": "forward adds P[idx] instead of P[:T]",
    "freeze-ignored": "freeze_positions has no effect",
    "freeze-kills-dE": "freezing positions also changes dE",
    "grad-accumulates": "dE/dP keep growing across backward calls",
    "softmax-unstable": "softmax does not subtract the max",
    "attention-unscaled": "attention scores are not divided by sqrt(hs)",
    "one-sided-difference": "the numerical gradient uses a one-sided difference",
    "no-restore": "numerical_gradient leaves x changed",
}

# Generic ids for mistakes outside the catalogue.
GENERIC = {
    "not-implemented": "the stub still raises NotImplementedError",
    "crashed": "the code raised an unexpected exception",
    "wrong-shape": "an output has the wrong shape",
    "wrong-dtype": "an output is not float64",
    "wrong-value": "an output has wrong values",
    "wrong-gradient": "a gradient fails the float64 gradient check",
    "no-error-raised": "bad input was accepted instead of raising",
    "wrong-error": "bad input raised the wrong kind of exception",
    "side-effect": "the code changed something it should not have",
}

KNOWN_IDS = {**CATALOGUE, **GENERIC}


class Diagnosis(AssertionError):
    """A failed hidden check, told in the words of the misconception."""

    def __init__(self, misconception: str, message: str):
        if misconception not in KNOWN_IDS:
            raise ValueError(f"unknown misconception id {misconception!r}")
        self.misconception = misconception
        self.message = message.strip()
        super().__init__(f"[{misconception}] {self.message}")

    def _render_traceback_(self):
        first, *rest = self.message.splitlines()
        return [f"\x1b[0;31mDiagnosis [{self.misconception}]\x1b[0m: {first}", *rest]


def fmt(a) -> str:
    """A short, readable rendering of a small array or number for messages."""
    arr = np.asarray(a)
    with np.printoptions(precision=4, suppress=True, threshold=12, edgeitems=3):
        return np.array2string(arr, separator=" ") if arr.ndim else f"{arr.item():.6g}"
