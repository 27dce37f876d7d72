"""Diagnoses: the one thing a failing hidden check shows the student.

A ``Diagnosis`` is an ``AssertionError`` carrying a misconception id from the contract's catalogue (or a
relationship id such as ``scaled``, or a generic id such as ``wrong-value``) and a message in the
words of the mistake.  IPython renders an exception through ``_render_traceback_`` when it has one,
so a failing hidden test cell shows only this message: no traceback into the kit, no hidden-test
source, no test inputs.

The words themselves live in :mod:`autograder.voice`, which the notebooks' self-checks share (the build copies
it into every notebook); this module is the name the rest of the kit imports them by.
"""

from ..voice import CATALOGUE, GENERIC, KNOWN_IDS, RELATIONSHIPS, VOICE, Diagnosis, expect_close, fmt, relationship, say

__all__ = [
    "CATALOGUE",
    "GENERIC",
    "KNOWN_IDS",
    "RELATIONSHIPS",
    "VOICE",
    "Diagnosis",
    "expect_close",
    "fmt",
    "relationship",
    "say",
]
