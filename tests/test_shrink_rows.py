"""The smallest failing case leaves out rows and columns: Hypothesis shrinks the numbers of a drawn shape, seldom
the shape, so a mistake that two entries show must not be shown on a 3x3 pair (fast, in-process)."""

from __future__ import annotations

import numpy as np

from autograder.grading import shrink


def whole_array_rel_error(a, b):
    """A student's rel_error taken over the whole array: the largest difference over the largest size."""
    return float(np.max(np.abs(a - b)) / max(1e-12, np.max(np.abs(a) + np.abs(b))))


def test_a_whole_array_rel_error_is_shown_on_two_entries():
    # the default budget of cases; time is not the limit here (a loaded machine must not make the test fail)
    case, outcome = shrink.search("lesson02", "rel_error_values", [whole_array_rel_error], "wrong-value", seconds=120)
    assert case["a"].size == 2 and case["b"].size == 2, outcome.line()


def test_leaving_out_a_slot_keeps_a_batch_and_its_dout_together():
    case = {"idx": np.array([[0, 1, 2], [2, 1, 0]]), "dout": np.ones((2, 3, 4)), "C": 4}
    smaller = list(shrink.fewer_entries(case))
    assert all(c["C"] == 4 for c in smaller)
    assert [(c["idx"].shape, c["dout"].shape) for c in smaller[:2]] == [((1, 3), (1, 3, 4))] * 2
    assert ((2, 2), (2, 2, 4)) in [(c["idx"].shape, c["dout"].shape) for c in smaller]
