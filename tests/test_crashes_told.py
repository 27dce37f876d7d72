"""Crashes and wrong shapes are told in the kit's voice, with their smallest case: a Diagnosis id, what disagrees
(which axis, which sizes, which ids have no row), and never a bare AssertionError or NumPy's message alone."""

from __future__ import annotations

import pytest

from autograder.devtools.mutants import Mutant
from autograder.devtools.mutants.inprocess import load
from autograder.devtools.mutants.visible import run_visible
from autograder.grading.checker import run_check

PERMUTED_BATCH = Mutant(
    "perm-along-the-batch",
    "01_why_position",
    "permutation-gap",
    None,
    replace=(
        ("first = self_attention(X[:, perm] + pos, Wq, Wk, Wv)", "first = self_attention(X[perm] + pos, Wq, Wk, Wv)"),
        ("after = self_attention(X + pos, Wq, Wk, Wv)[:, perm]", "after = self_attention(X + pos, Wq, Wk, Wv)[perm]"),
    ),
)


def test_a_permutation_along_the_wrong_axis_is_told_which_axis_with_its_smallest_case():
    ns, _ = load(PERMUTED_BATCH.notebook, PERMUTED_BATCH)
    misconception, message = run_check(
        "lesson01", "permutation_gap_with_pos", [ns["permutation_gap"], ns["self_attention"]]
    )
    assert misconception == "crashed", message
    for words in ("applied along axis 0, the batch", "X[:, perm]", "Smallest failing case: permutation_gap("):
        assert words in message, message
    assert message.splitlines()[0].count(". ") >= 1, "NumPy's words are followed by the kit's: " + message


def test_a_self_check_that_meets_a_crash_tells_it_as_a_diagnosis():
    failed = {
        cell: told for cell, told in run_visible(PERMUTED_BATCH.notebook, PERMUTED_BATCH).items() if told[0] != "pass"
    }
    assert failed, "the self-checks meet the bug"
    for cell, (misconception, message) in failed.items():
        assert misconception == "crashed", (cell, misconception, message)
        assert "your code raised" in message and ("axis" in message), message


@pytest.mark.parametrize("size", [2, 7])
def test_explain_names_the_axis_and_the_sizes(size):
    import numpy as np

    from autograder.voice import explain

    try:
        np.zeros((size, 4, 2)) + np.zeros((3, 4, 2))
    except ValueError as e:
        told = explain(e, "f(x)", sizes={"T": size, "B": 3})
    assert f"axis 0 (size {size} (T) against 3 (B))" in told, told
