"""The boundary classes of the input space (docs/contract.md, "The input space"): for each class, a bug of this
module's own that is wrong only there, passes the drawn cases, and loses the points of the test that is about it,
told something specific.

In-process through the checker's ``run_check`` (the grading process's own entry to the hidden checks, the smallest
case's search included).  Each bug is first shown right on an ordinary case (B, T, C > 1, ids all used, contiguous
arrays, one call), so it is a bug of its class only; then every test cell of its notebook is graded, and only the
cell that judges the buggy unit may fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.devtools.mutants import Mutant
from autograder.devtools.mutants.inprocess import load
from autograder.devtools.personas import reference_solutions
from autograder.grading.checker import run_check

from .conftest import REPO
from .test_alternatives import RESHAPE_NUMGRAD

L1, L2, L3, L4, L5 = (
    "01_why_position",
    "02_token_embeddings",
    "03_sinusoidal",
    "04_learned_positions",
    "05_embedding_layer",
)


def _dP(ns, B, T, C, block_size=6, layout=None):
    pe = ns["PositionalEmbedding"](block_size, C)
    pe.forward(np.zeros((B, T, C)))
    dout = np.random.default_rng(1).standard_normal((B, T, C))
    pe.backward(dout)
    want = np.zeros((block_size, C))
    want[:T] = dout.sum(axis=0)
    return pe.dP, want


def _layer_forward(ns, B, T, C):
    layer = ns["EmbeddingLayer"](7, 6, C)
    idx = np.random.default_rng(2).integers(0, 7, size=(B, T))
    return layer.forward(idx), layer.E[idx] + layer.P[:T]


def _pos_forward(ns, B, T, C):
    pe = ns["PositionalEmbedding"](6, C)
    x = np.random.default_rng(3).standard_normal((B, T, C))
    return pe.forward(x), x + pe.P[:T]


def _shift(ns, k, C):
    M = ns["shift_matrix"](k, C)
    table = ns["sinusoidal_table"](k + 8, C) if k >= 0 else None
    return (M @ table[:8].T).T, table[k : k + 8]


def _numgrad(ns, shape):
    x = np.random.default_rng(4).standard_normal(shape)
    return ns["numerical_gradient"](lambda: float(np.sum(x**3)), x), 3 * x**2


def _rel_error(ns, a, b):
    return ns["rel_error"](a, b), float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))


def _softmax(ns, x):
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return ns["softmax"](x), z / z.sum(axis=-1, keepdims=True)


def _table_twice(ns, T, C):
    first = ns["sinusoidal_table"](T, C)
    return first, ns["sinusoidal_table"](T, C)  # the same call twice: a cache keyed on anything still answers it


def _stale_layer(ns, B, T, C):
    layer = ns["EmbeddingLayer"](7, 6, C)
    idx = np.random.default_rng(5).integers(0, 7, size=(B, T))
    return layer.forward(idx), layer.E[idx] + layer.P[:T]


# (class, bug, the ordinary case it is right on, the test cell(s) that must lose their points, words the messages hold)
BUGS = [
    (
        "one sequence (B = 1)",
        Mutant(
            "dP-squeezed",
            L4,
            "positional-embedding",
            None,
            replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = np.squeeze(dout).sum(axis=0)"),),
        ),
        lambda ns: _dP(ns, 3, 4, 2),
        "test-pos-backward",
        ["B=1"],
    ),
    (
        "one slot (T = 1)",
        Mutant(
            "T-from-squeezed-ids",
            L5,
            "embedding-layer",
            None,
            replace=(("        B, T = idx.shape\n", "        T = np.squeeze(idx).shape[-1]\n"),),
        ),
        lambda ns: _layer_forward(ns, 3, 4, 2),
        {"test-layer-forward", "test-layer-backward-dP"},  # backward uses the T forward kept
        ["shape (", ", 1)", "should have shape"],
    ),
    (
        "one channel (C = 1)",
        Mutant(
            "positions-squeezed",
            L4,
            "positional-embedding",
            None,
            replace=(("return x + self.P[:T]", "return x + self.P[:T].squeeze()"),),
        ),
        lambda ns: _pos_forward(ns, 3, 4, 2),
        "test-pos-forward",
        ["C=1", "should have shape"],
    ),
    (
        "a negative shift",
        Mutant(
            "shift-by-repeated-steps",
            L3,
            "shift-matrix",
            None,
            replace=(
                (
                    "    t = k / base ** (np.arange(0, C, 2, dtype=np.float64) / C)   # one angle per pair\n",
                    "    t = sum(1.0 for _ in range(k)) / base ** (np.arange(0, C, 2, dtype=np.float64) / C)\n",
                ),
            ),
        ),
        lambda ns: _shift(ns, 5, 4),
        "test-shift-matrix",
        ["shift_matrix(-", "a rotation by 0"],
    ),
    (
        "an array laid out as a transpose",
        RESHAPE_NUMGRAD,
        lambda ns: _numgrad(ns, (3, 4)),
        "test-numerical-gradient",
        ["transpose", "reshape(-1)", "all zeros"],
    ),
    (
        "arguments of opposite signs",
        Mutant(
            "rel-error-abs-of-sum",
            L2,
            "rel-error",
            None,
            replace=(("np.abs(a) + np.abs(b)", "np.abs(a + b)"),),
        ),
        lambda ns: _rel_error(ns, np.array([[1.0, 2.0], [0.5, 3.0]]), np.array([[1.1, 2.0], [0.4, 3.3]])),
        "test-rel-error",
        ["opposite signs", "|a + b|", "|a| + |b|, each absolute value taken first"],
    ),
    (
        "scores spread past what exp holds",
        Mutant(
            "softmax-minus-mean",
            L1,
            "softmax",
            None,
            replace=(("np.max(x, axis=axis, keepdims=True)", "np.mean(x, axis=axis, keepdims=True)"),),
        ),
        lambda ns: _softmax(ns, 1000.0 + np.random.default_rng(6).normal(0, 3, size=(2, 5))),
        "test-softmax-stable",
        ["spread", "mean or minimum"],
    ),
    (
        "a second call with other arguments",
        Mutant(
            "table-cached-by-T",
            L3,
            "sinusoidal-table",
            None,
            replace=(
                (
                    "    pos = np.arange(T, dtype=np.float64)[:, None]          # (T, 1)\n",
                    "    if T in _TABLES:\n        return _TABLES[T]\n"
                    "    pos = np.arange(T, dtype=np.float64)[:, None]          # (T, 1)\n",
                ),
                ("    return table", "    _TABLES[T] = table\n    return table\n\n\n_TABLES = {}"),
            ),
        ),
        lambda ns: _table_twice(ns, 5, 4),
        "test-table-even",
        ["stale-state", "of an earlier call", "too little"],
    ),
    (
        "a table changed between two calls",
        Mutant(
            "forward-reads-its-own-copy",
            L5,
            "embedding-layer",
            None,
            replace=(
                (
                    "        self.cache = (idx, T)\n",
                    "        self.cache = (idx, T)\n        self._E = getattr(self, '_E', self.E.copy())\n",
                ),
                ("return self.E[idx] + self.P[:T]", "return self._E[idx] + self.P[:T]"),
            ),
        ),
        lambda ns: _stale_layer(ns, 3, 4, 2),
        "test-layer-forward",
        ["stale-state", "replaced between two forwards", "self.E"],
    ),
    (
        "ids that never occur",
        Mutant(
            "dE-by-bincount",
            L2,
            "embedding",
            None,
            replace=(
                (
                    "        self.dE = np.zeros_like(self.E)\n        np.add.at(self.dE, idx, dout)\n",
                    "        g = dout.reshape(-1, dout.shape[-1])\n"
                    "        self.dE = np.stack([np.bincount(idx.reshape(-1), weights=g[:, c]) "
                    "for c in range(g.shape[1])], axis=1)\n",
                ),
            ),
        ),
        None,  # right whenever the highest id occurs, as in most batches
        "test-embedding-backward",
        ["no row for id(s)", "never occur", "minlength"],
    ),
]


def defined(ns, mutant) -> set[str]:
    """The names the mutated cell defines: the unit whose tests may lose points (a test about another unit may not)."""
    import ast

    return {
        node.name
        for node in ast.parse(mutant.cell_source(reference_solutions(REPO, mutant.notebook)[mutant.cell])).body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }


# The checks draw their cases from the grading's seed, fresh entropy at every grading unless AUTOGRADER_SEED is set
# (oracle.seed_of): this test grades with one fixed seed, so each run draws the same cases.  Unseeded, "a second call
# with other arguments" failed about 1 run in 8: where a drawn T first repeats with another C, the T-keyed cache
# answers with a table of the wrong shape and the diagnosis is wrong-shape, not stale-state (seeds 6, 14 and 16 of
# 1-24 do that; 1 is not one of them).
SEED = "1"


@pytest.mark.parametrize("bug", BUGS, ids=[b[0] for b in BUGS])
def test_a_bug_of_one_boundary_class_loses_the_points_of_its_test_and_is_told_what(bug, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_SEED", SEED)
    _, mutant, ordinary, test_id, words = bug
    ns, tests = load(mutant.notebook, mutant)
    if ordinary is not None:
        with np.errstate(all="ignore"):
            got, want = ordinary(ns)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=f"{mutant.name} is wrong off its class")
    failed = {}
    for grade_id, calls in tests:
        for module, function, args in calls:
            found = run_check(module, function, [ns[a] for a in args])
            if found is not None:
                failed[grade_id] = found
                break
    tests_hit = {test_id} if isinstance(test_id, str) else test_id
    unit = {grade_id for grade_id, calls in tests if any(set(args) & defined(ns, mutant) for _, _, args in calls)}
    assert tests_hit <= set(failed) <= unit, f"{mutant.name}: failed {sorted(failed)}, not {tests_hit}: {failed}"
    text = "\n".join(f"[{misconception}] {message}" for misconception, message in failed.values())
    missing = [w for w in words if w not in text]
    assert not missing, f"{mutant.name}: {missing} not in\n{text}"
