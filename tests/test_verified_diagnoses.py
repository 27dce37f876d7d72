"""A misconception is named only where the student's code makes it: every catalogued diagnosis the hidden checks give
a machine-made mutant is held to that misconception's own model, run here on the mutant, and a mistake that only
looks like a catalogued one on one case is told in generic words with its smallest case.

The models below are this module's own (written from the catalogue's descriptions in docs/contract.md), not the
checks': a mutant named ``freq-sign`` must build the table with the frequency's exponent negated, one named
``scatter-overwrite`` must drop repeated ids, and so on.  A catalogued id with no model here fails the test, so a
new naming is never let through unexamined.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.devtools.mutants import Mutant, generated
from autograder.devtools.mutants.inprocess import load
from autograder.grading.checker import run_check
from autograder.hidden.diagnostics import CATALOGUE

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(7)
X3 = RNG.standard_normal((2, 4, 3))
W3 = [RNG.standard_normal((3, 2)) for _ in range(3)]


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _attention(X, Wq, Wk, Wv, scale):
    return _softmax((X @ Wq) @ (X @ Wk).swapaxes(-1, -2) * scale) @ (X @ Wv)


# the table's mistakes as the contract describes them: which column is sin, and the exponent of its frequency
# (base ** exponent) for column j of pair i in C columns; positions from 0, or from 1 (an off-by-one of its own)
COLUMNS = ("interleave", "halves", "swap")  # sin in the even columns; sines then cosines; cos in the even columns
EXPONENTS = {
    "right": lambda i, j, C: -2 * i / C,
    "sign": lambda i, j, C: 2 * i / C,  # freq-sign
    "per-column": lambda i, j, C: -j / C,  # freq-per-column: pos / base**(j / C)
    "pair-index": lambda i, j, C: -i / C,
}


def _sinusoid(T: int, C: int, columns: str, exponent: str, first: int, base: float = 10000.0) -> np.ndarray:
    """A sinusoidal table written with one column layout and one frequency formula, positions from ``first``."""
    table = np.empty((T, C))
    pos = np.arange(first, first + T, dtype=float)
    sines = (C + 1) // 2
    for j in range(C):
        if columns == "halves":
            sine, i = (j < sines), (j if j < sines else j - sines)
        else:
            sine, i = (j % 2 == 0) != (columns == "swap"), j // 2
        angle = pos * base ** EXPONENTS[exponent](i, j, C)
        table[:, j] = np.sin(angle) if sine else np.cos(angle)
    return table


def _shift(k: int, C: int, exponent: str, base: float = 10000.0) -> np.ndarray:
    """The matrix taking the (sin, cos) pair of each block from position p to p + k, with one frequency formula:
    the sin row turns by k times column 2i's frequency, the cos row by column 2i + 1's."""
    M = np.zeros((C, C))
    for i in range(C // 2):
        a = k * base ** EXPONENTS[exponent](i, 2 * i, C)
        b = k * base ** EXPONENTS[exponent](i, 2 * i + 1, C)
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(b), np.cos(b)]]
    return M


def _table_is(ns, columns: str | None, exponent: str | None) -> bool:
    """The mutant's table (or shift matrix) is the described layout / frequency mistake, whatever else it does."""
    if "shift_matrix" in ns and exponent is not None:
        M = np.asarray(ns["shift_matrix"](3, 6), dtype=float)
        if np.allclose(M, _shift(3, 6, exponent), atol=1e-6):
            return True
    S = np.asarray(ns["sinusoidal_table"](7, 6), dtype=float)
    return any(
        np.allclose(S, _sinusoid(7, 6, lay, f, first), atol=1e-6)
        for lay in ([columns] if columns else COLUMNS)
        for f in ([exponent] if exponent else EXPONENTS)
        for first in (0, 1)
    )


def _dE(ns, idx, dout, V=5, cls="Embedding"):
    obj = ns[cls](V, 4, dout.shape[-1]) if cls == "EmbeddingLayer" else ns[cls](V, dout.shape[-1])
    obj.forward(idx)
    obj.backward(dout)
    return np.asarray(obj.dE, dtype=float)


def _scatter_overwrite(ns) -> bool:
    idx, dout = np.array([[0, 0, 1]]), np.ones((1, 3, 2))
    cls = "Embedding" if "Embedding" in ns else "EmbeddingLayer"
    dE = _dE(ns, idx, dout, cls=cls)
    return np.allclose(dE[0], [1, 1]) and np.allclose(dE[1], [1, 1])  # the repeated id counted once, the other right


def _positional(ns):
    cls = "PositionalEmbedding" if "PositionalEmbedding" in ns else "EmbeddingLayer"
    return cls, (lambda bs, C: ns[cls](bs, C)) if cls == "PositionalEmbedding" else (lambda bs, C: ns[cls](5, bs, C))


def _dP_after(ns, T, block_size=4, C=2, first_T=None):
    cls, make = _positional(ns)
    obj = make(block_size, C)
    inputs = (
        (lambda t: RNG.standard_normal((3, t, C)))
        if cls == "PositionalEmbedding"
        else (lambda t: np.zeros((3, t), int))
    )
    if first_T is not None:
        obj.forward(inputs(first_T))
        obj.backward(np.ones((3, first_T, C)))
    dout = RNG.standard_normal((3, T, C))
    obj.forward(inputs(T))
    obj.backward(dout)
    return np.asarray(obj.dP, dtype=float), dout


def _forward_is(ns, model) -> bool:
    layer = ns["EmbeddingLayer"](6, 4, 2)
    idx = np.array([[3, 1, 2], [0, 1, 3]])
    return np.allclose(layer.forward(idx), model(layer, idx))


def _frozen_pair(ns):
    frozen, plain = ns["EmbeddingLayer"](6, 4, 2, freeze_positions=True), ns["EmbeddingLayer"](6, 4, 2)
    idx, dout = np.array([[3, 1, 2], [0, 1, 3]]), RNG.standard_normal((2, 3, 2))
    for layer in (frozen, plain):
        layer.forward(idx)
        layer.backward(dout)
    return frozen, plain


def _accumulates(ns) -> bool:
    for cls, name in (
        ("Embedding", "dE"),
        ("PositionalEmbedding", "dP"),
        ("EmbeddingLayer", "dE"),
        ("EmbeddingLayer", "dP"),
    ):
        if cls not in ns:
            continue
        obj = ns[cls](5, 4, 2) if cls == "EmbeddingLayer" else ns[cls](5, 2) if cls == "Embedding" else ns[cls](4, 2)
        x = np.array([[0, 1, 1]]) if cls != "PositionalEmbedding" else RNG.standard_normal((1, 3, 2))
        dout = RNG.standard_normal((1, 3, 2))
        obj.forward(x)
        obj.backward(dout)
        first = np.array(getattr(obj, name), dtype=float)
        obj.backward(dout)
        if np.allclose(getattr(obj, name), 2 * first) and np.any(first):
            return True
    return False


def _numgrad(ns, eps=1e-3):
    x = RNG.uniform(-2, 2, size=(2, 3))
    before = x.copy()
    g = ns["numerical_gradient"](lambda: float(np.sum(x**3)), x, eps)
    return np.asarray(g, dtype=float), x, before


WRONG_SCALES = (1.0, 1 / 2, 1 / np.sqrt(3), 1 / 3, np.sqrt(2))  # none, 1/hs, 1/sqrt(C), 1/C, * sqrt(hs) (C = 3, hs = 2)

# id -> does the mutant in ``ns`` make that mistake, by the catalogue's description
MODELS = {
    "scatter-overwrite": _scatter_overwrite,
    "sin-cos-swap": lambda ns: _table_is(ns, "swap", None),
    "freq-sign": lambda ns: _table_is(ns, None, "sign"),
    "freq-per-column": lambda ns: _table_is(ns, None, "per-column"),
    "halves-not-interleaved": lambda ns: _table_is(ns, "halves", None),
    "dP-not-summed": lambda ns: (lambda dP, d: any(np.allclose(dP[:3], d[b]) for b in range(3)))(*_dP_after(ns, 3)),
    "dP-tail-not-zero": lambda ns: (
        bool(np.any(_dP_after(ns, 2, first_T=4)[0][2:])) or bool(np.any(_dP_after(ns, 2)[0][2:]))
    ),
    "positions-missing": lambda ns: _forward_is(ns, lambda layer, idx: layer.E[idx]),
    "positions-by-token": lambda ns: _forward_is(ns, lambda layer, idx: layer.E[idx] + layer.P[idx]),
    "freeze-ignored": lambda ns: (lambda f, p: np.allclose(f.dP, p.dP) and np.any(p.dP))(*_frozen_pair(ns)),
    "freeze-kills-dE": lambda ns: (lambda f, p: not np.allclose(f.dE, p.dE))(*_frozen_pair(ns)),
    "grad-accumulates": _accumulates,
    "softmax-unstable": lambda ns: not np.all(np.isfinite(ns["softmax"](np.array([1000.0, 1001.0, 999.0])))),
    "attention-unscaled": lambda ns: any(
        np.allclose(ns["self_attention"](X3, *W3), _attention(X3, *W3, s)) for s in WRONG_SCALES
    ),
    "one-sided-difference": lambda ns: (lambda g, x, b: np.allclose(g, 3 * b**2 + 3 * b * 1e-3 + 1e-6, rtol=1e-6))(
        *_numgrad(ns)
    ),
    "no-restore": lambda ns: (lambda g, x, b: not np.array_equal(x, b))(*_numgrad(ns)),
}


def test_every_catalogued_id_has_a_model_here():
    assert set(MODELS) == set(CATALOGUE)


def test_no_generated_mutant_is_named_a_misconception_it_does_not_make(monkeypatch):
    # a mutant that leaves part of an np.empty array unwritten returns whatever that memory held: at one run in
    # several the reference's own freed table, which is then a real sin-cos swap for the check and none for the
    # model's fresh call. Its output is made a function of its inputs: np.empty gives zeros here
    monkeypatch.setattr(np, "empty", np.zeros)
    mutants = generated.subset(generated.generate(), 2)
    named, false = 0, []
    for verdict in generated.run(mutants, "hidden").verdicts:
        for test, diagnosis in verdict.diagnoses.items():
            if diagnosis not in CATALOGUE:
                continue
            named += 1
            ns, _ = load(verdict.mutant.notebook, verdict.mutant.as_mutant())
            with np.errstate(all="ignore"):
                if not MODELS[diagnosis](ns):
                    false.append(f"{test}: [{diagnosis}] {verdict.mutant.name}")
    assert named >= 3, "the run named no catalogued mistake: the test would prove nothing"
    assert not false, "\n".join(false)


ONE_SEQUENCE_GAP = Mutant(
    "gap-of-the-first-sequence",
    "01_why_position",
    "permutation-gap",
    None,
    replace=(("return float(np.max(np.abs(first - after)))", "return float(np.max(np.abs(first[0] - after[0])))"),),
)


def test_a_gap_that_matches_another_mistake_on_one_case_is_not_told_that_mistake():
    """One sequence's gap instead of the batch's largest can equal the largest signed difference on a case; the
    signed mistake's model gives other numbers on other cases, so it is not named: the generic message and the
    smallest case are told instead."""
    ns, _ = load(ONE_SEQUENCE_GAP.notebook, ONE_SEQUENCE_GAP)
    told = []
    for seed in range(12):
        import os

        os.environ["AUTOGRADER_SEED"] = str(seed)
        try:
            found = run_check("lesson01", "permutation_gap_with_pos", [ns["permutation_gap"], ns["self_attention"]])
        finally:
            os.environ.pop("AUTOGRADER_SEED", None)
        assert found is not None, "the bug is caught on every draw"
        told.append(found[1])
    assert not [t for t in told if "signed" in t or "mean absolute" in t or "norm of" in t], told
    assert all("the largest |self_attention(X[:, perm] + P[:T])" in t for t in told), told
    assert all("Smallest failing case: permutation_gap(" in t for t in told), told


def _rows_gradient(f, x, eps=1e-6):
    grad = np.zeros(x.shape)
    for i in range(len(x)):  # whole rows
        old = x[i]
        x[i] = old + eps
        plus = f()
        x[i] = old - eps
        minus = f()
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def _copy_gradient(f, x, eps=1e-6):
    grad, flat = np.zeros(x.shape), x.reshape(-1).copy()  # nudges a copy: f never sees them
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        plus = f()
        flat[i] = old - eps
        minus = f()
        flat[i] = old
        grad.reshape(-1)[i] = (plus - minus) / (2 * eps)
    return grad


def test_one_value_per_row_is_told_only_of_a_gradient_a_row_loop_gives():
    """'numerical_gradient gave one value per row' is checked on the case: a loop over range(len(x)) is told so, a
    gradient of zeros (x's nudges made on a copy, which f never sees) is not, though its rows are constant too."""
    rows = run_check("lesson02", "numerical_gradient_values", [_rows_gradient])
    assert rows is not None and "one value per row" in rows[1], rows
    zeros = run_check("lesson02", "numerical_gradient_values", [_copy_gradient])
    assert zeros is not None and "one value per row" not in zeros[1], zeros
