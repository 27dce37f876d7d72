"""The self-check's prediction and the grade agree on points, and a test loses points only for what it tests.

`check` predicts a notebook's score from its visible self-checks; grading runs each test cell's hidden checks and
then the same self-check (one cell, so the cell fails if either does).  For a bug whose self-checks meet it, the two
must give the same points: the hidden checks may not charge a test that the self-checks (rightly) let pass.  These
bugs once did: a dP of the wrong shape also failed the "starts from zeros" tests (check said 10/15, the grade 8/15),
and a dP averaged instead of summed also failed test-layer-freeze-later, though freezing works.  In-process, on the
checks and self-checks themselves.
"""

from __future__ import annotations

import nbformat
import pytest

from autograder.cells import grade_id, is_test_cell
from autograder.course import Course
from autograder.devtools.mutants import Mutant
from autograder.devtools.mutants.inprocess import load, run_checks
from autograder.devtools.mutants.visible import run_visible

from .conftest import REPO

L4, L5 = "04_learned_positions", "05_embedding_layer"

BUGS = [
    (
        Mutant(
            "dP-without-its-zero-rows",
            L4,
            "positional-embedding",
            None,
            replace=(
                (
                    "self.dP = np.zeros_like(self.P)\n        self.dP[:T] = dout.sum(axis=0)",
                    "self.dP = dout.sum(axis=0)",
                ),
            ),
        ),
        {"test-pos-backward"},
    ),
    (
        Mutant(
            "layer-dP-without-its-zero-rows",
            L5,
            "embedding-layer",
            None,
            replace=(("            self.dP[:T] = dout.sum(axis=0)", "            self.dP = dout.sum(axis=0)"),),
        ),
        {"test-layer-backward-dP"},
    ),
    (
        Mutant(
            "dP-averaged",
            L5,
            "embedding-layer",
            None,
            replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = dout.mean(axis=0)"),),
        ),
        {"test-layer-backward-dP"},
    ),
]


def points(notebook: str) -> dict[str, float]:
    nb = nbformat.read(str(Course(REPO).notebook("source", notebook)), as_version=4)
    return {grade_id(c): float(c.metadata["nbgrader"]["points"]) for c in nb.cells if is_test_cell(c)}


@pytest.mark.parametrize("bug", BUGS, ids=[b[0].name for b in BUGS])
def test_the_predicted_points_are_the_graded_points_and_only_its_test_loses_them(bug):
    mutant, its_tests = bug
    ns, tests = load(mutant.notebook, mutant)
    visible = {cell for cell, (result, _) in run_visible(mutant.notebook, mutant).items() if result != "pass"}
    for seed in range(5):
        hidden = {cell for cell, result in run_checks(ns, tests, seed).items() if result != "pass"}
        graded = hidden | visible  # a test cell runs its hidden checks, then its self-check
        worth = points(mutant.notebook)
        assert visible == its_tests, f"{mutant.name}: the self-checks fail {sorted(visible)}"
        assert graded == its_tests, f"{mutant.name}, seed {seed}: the grade charges {sorted(graded)}"
        assert sum(worth[t] for t in visible) == sum(worth[t] for t in graded)
