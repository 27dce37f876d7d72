"""One way of writing values in every message (voice.fmt), one ``Diagnosis [id]:`` form, and a smallest case whose two
sides are written at the precision where they differ (issue 31.5, issue 33 item 7)."""

import re
from pathlib import Path

import numpy as np

from autograder.hidden.cases import Outcome
from autograder.voice import fmt, fmt_apart, say

ROOT = Path(__file__).resolve().parents[1]


def test_values_in_one_sentence_are_written_alike():
    assert fmt(np.array([1.0, 1.0])) == "[1.0, 1.0]"
    assert fmt(np.array([1.0, 1.0], dtype=np.float32)) == "[1.0, 1.0]"
    assert fmt(np.array([2, 0, 2])) == "[2, 0, 2]"  # ids stay integers
    assert fmt(np.array([[0.0, 1.0], [np.sin(1.0), np.cos(1.0)]])) == "[[0.0, 1.0], [0.8415, 0.5403]]"
    assert fmt(-0.0) == "0.0" and fmt(np.float64(0.5)) == "0.5"
    # an array handed to say() is written by fmt, as the headline's other values are
    headline = say("scatter-overwrite", row=0, want=np.array([2.0, 2.0]), got=np.array([1.0, 1.0])).message
    assert headline.splitlines()[0] == "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]"
    assert not re.search(r"\d\. ", headline)  # no NumPy "[1. 1.]"


def test_a_float32_table_and_the_float64_one_never_read_the_same():
    T, C = 2, 2
    pos, i = np.arange(T)[:, None], np.arange(0, C, 2)
    right = np.zeros((T, C))
    right[:, 0::2], right[:, 1::2] = np.sin(pos / 10000 ** (i / C)), np.cos(pos / 10000 ** (i / C))
    drifted = right.astype(np.float32)
    assert fmt(drifted) == fmt(right)  # at the usual 4 digits they read the same ...
    mine, theirs = fmt_apart(drifted, right)
    assert mine != theirs  # ... so the smallest case writes them at the precision where they differ
    assert fmt_apart(np.array([1.0, 2.0]), np.array([1.0, 3.0])) == ("[1.0, 2.0]", "[1.0, 3.0]")  # 4 digits suffice
    line = Outcome("sinusoidal_table(2, 2)", "table", right, got=drifted).line()
    yours, correct = re.match(r".*your table is (.*); the right table is (.*)\.$", line).groups()
    assert yours != correct and yours == mine and correct == theirs


def test_a_diagnosis_is_written_one_way_everywhere():
    """``Diagnosis [id]: message``, never ``Diagnosis: [id]``, in the package, the assignments and the docs."""
    places = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "autograder").rglob("*.py")]
    places += (ROOT / "assignments").rglob("*.py")
    wrong = [str(p.relative_to(ROOT)) for p in places if "Diagnosis: [" in p.read_text(encoding="utf-8")]
    assert wrong == []
