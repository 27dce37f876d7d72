"""Every correct alternative of ``autograder mutants`` is correct on the whole input space (docs/contract.md, "The
input space"): each is run beside the reference on cases of every boundary class of its unit, and gives what the
reference gives (issue 31.6).

In-process, on the notebook's namespace with the alternative's cell in place of the reference's.  The probes are
this module's own, not the hidden checks' draws: sizes of 1, odd widths, negative and large shifts, arrays laid out
as a transpose and as a strided slice, repeated and unused ids, opposite signs, scores spread past what ``exp``
holds, a second call with other arguments, a table changed between two calls.  A wrong alternative of each kind the
issue met (a numerical gradient written through ``x.reshape(-1)``, all zeros for a transpose) must fail here.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.devtools.mutants import Mutant, catalogue
from autograder.devtools.mutants.inprocess import load
from autograder.hidden.boundary import LAYOUTS as BOUNDARY_LAYOUTS
from autograder.hidden.boundary import laid_out

_, ALTERNATIVES = catalogue()
LAYOUTS = (None, *BOUNDARY_LAYOUTS)  # every layout of the registry


def rng(seed=0):
    return np.random.default_rng(seed)


def probe_softmax(ns):
    softmax = ns["softmax"]
    for shape, axis in (((1,), -1), ((3, 1), -1), ((1, 4), 0), ((2, 3, 4), 1), ((5,), 0)):
        for layout in LAYOUTS:
            yield f"softmax {shape} axis {axis} {layout}", softmax(laid_out(rng().normal(0, 2, shape), layout), axis)
    yield "spread past exp", softmax(np.array([[-800.0, 0.0, 800.0], [1.0, 2.0, 3.0]]), -1)
    yield "all negative, large", softmax(np.array([-1000.0, -1001.0, -1002.0]))
    yield "second call, other x", softmax(rng(1).normal(size=(2, 3)), -1)


def probe_attention(ns):
    attend = ns["self_attention"]
    for B, T, C, hs in ((1, 3, 4, 2), (2, 1, 3, 3), (2, 3, 1, 1), (1, 1, 1, 1), (3, 4, 5, 5)):
        r = rng(B * 100 + T * 10 + C)
        X, W = r.normal(size=(B, T, C)), [r.normal(size=(C, hs)) for _ in range(3)]
        for layout in LAYOUTS:
            yield f"attention B={B} T={T} C={C} hs={hs} {layout}", attend(laid_out(X, layout), *W)


def probe_gap(ns):
    gap = ns["permutation_gap"]
    for B, T, C, perm in ((1, 3, 2, [1, 2, 0]), (2, 4, 3, [3, 0, 1, 2]), (1, 3, 1, [2, 0, 1]), (2, 3, 2, [0, 1, 2])):
        r = rng(B + T + C)
        X, W = r.normal(size=(B, T, C)), [r.normal(size=(C, 2)) for _ in range(3)]
        perm = np.array(perm)
        yield f"gap B={B} T={T} no P", gap(X, perm, *W)
        yield f"gap B={B} T={T} P of T rows", gap(X, perm, *W, P=r.normal(size=(T, C)))
        yield f"gap B={B} T={T} P longer", gap(X, perm, *W, P=r.normal(size=(T + 3, C)))


def probe_embedding(ns):
    for V, C, idx in ((1, 1, [[0]]), (4, 1, [[3]]), (5, 2, [[0, 0, 2]]), (6, 3, [[1, 1], [1, 4]]), (3, 2, [0, 2, 0])):
        for layout in LAYOUTS:
            emb = ns["Embedding"](V, C)
            ids = laid_out(np.array(idx), layout)
            out = emb.forward(ids)
            yield f"forward V={V} C={C} {idx} {layout}", out
            emb.backward(laid_out(rng(V).normal(size=np.shape(out)), layout))
            yield f"backward V={V} C={C} {idx} {layout} (unused ids get zero rows)", emb.dE
    emb = ns["Embedding"](4, 2)
    emb.forward(np.array([[0, 1]]))
    emb.E = emb.E + 1.0  # an optimizer step between two forwards
    yield "E replaced between forwards", emb.forward(np.array([[0, 1]]))
    yield "second forward, other ids", emb.forward(np.array([[3, 3, 2]]))


def probe_numgrad(ns):
    numerical_gradient = ns["numerical_gradient"]
    for shape in ((1,), (3,), (2, 3), (2, 2, 3)):
        for layout in LAYOUTS:
            x = laid_out(rng(len(shape)).normal(size=shape), layout)
            before = x.copy()
            yield f"numerical_gradient {shape} {layout}", numerical_gradient(lambda x=x: np.sum(x**3), x)
            yield f"x restored {shape} {layout}", x - before


def probe_rel_error(ns):
    rel_error = ns["rel_error"]
    a = rng().normal(size=(2, 3))
    yield "opposite signs", rel_error(a, -a)
    yield "one entry", rel_error(np.array([2.0]), np.array([-1.0]))
    yield "both zero", rel_error(np.zeros(3), np.zeros(3))
    for layout in LAYOUTS:
        yield f"a {layout}", rel_error(laid_out(a, layout), a + 1e-3)


def probe_table(ns):
    table = ns["sinusoidal_table"]
    for T, C, base in ((1, 1, 10000.0), (1, 2, 10000.0), (5, 3, 10000.0), (4, 6, 100.0), (3000, 4, 10000.0)):
        yield f"table T={T} C={C} base={base}", table(T, C, base=base)
    yield "second call, same T, other C", table(5, 5)
    yield "third call, same T and C, other base", table(5, 5, base=10.0)


def probe_shift(ns):
    shift = ns["shift_matrix"]
    for k, C, base in ((-3, 4, 10000.0), (0, 2, 10000.0), (1, 2, 10000.0), (10**6, 6, 10000.0), (2, 4, 25.0)):
        yield f"shift k={k} C={C} base={base}", shift(k, C, base=base)
    yield "second call, same k, other C", shift(-3, 6)
    yield "third call, same k and C, other base", shift(-3, 6, base=10.0)


def laid_out_cases(plain: tuple, laid: tuple) -> list[tuple]:
    """The plain cases (contiguous), then one case per layout of the registry other than contiguous, taking the
    shapes of ``laid`` in turn (each with the layout appended): a new layout reaches every probe."""
    return [(*case, None) for case in plain] + [
        (*laid[i % len(laid)], layout) for i, layout in enumerate(BOUNDARY_LAYOUTS)
    ]


def probe_positional(ns):
    for B, T, C, layout in laid_out_cases(((1, 3, 2), (2, 1, 3), (2, 3, 1)), ((2, 3, 3), (2, 2, 2))):
        pe = ns["PositionalEmbedding"](4, C)
        r = rng(B * T * C)
        yield f"forward B={B} T={T} C={C} {layout}", pe.forward(laid_out(r.normal(size=(B, T, C)), layout))
        dout = r.normal(size=(B, T, C))
        yield f"dx B={B} T={T} C={C} {layout}", pe.backward(laid_out(dout, layout))
        yield f"dP B={B} T={T} C={C} {layout}", pe.dP
        pe.backward(dout)
        yield f"dP after a second backward B={B} T={T} C={C}", pe.dP
    pe = ns["PositionalEmbedding"](4, 2)
    x = rng(9).normal(size=(2, 3, 2))
    pe.forward(x)
    pe.P = pe.P - 0.5  # an optimizer step between two forwards
    yield "P replaced between forwards", pe.forward(x)
    yield "second forward, other T", pe.forward(x[:, :2])


def probe_layer(ns):
    for B, T, C, V, layout in laid_out_cases(((1, 3, 2, 5), (2, 1, 3, 4), (2, 3, 1, 1)), ((2, 3, 3, 6), (2, 2, 2, 7))):
        layer = ns["EmbeddingLayer"](V, 4, C)
        r = rng(B * T * C * V)
        idx = r.integers(0, min(V, 3), size=(B, T))  # repeats, and ids V-1.. unused when V > 3
        yield f"forward B={B} T={T} C={C} V={V} {layout}", layer.forward(laid_out(idx, layout))
        dout = r.normal(size=(B, T, C))
        layer.backward(laid_out(dout, layout))
        yield f"dE B={B} T={T} C={C} V={V} {layout}", layer.dE
        yield f"dP B={B} T={T} C={C} V={V} {layout}", layer.dP
        layer.freeze_positions = True  # switched after construction
        layer.backward(dout)
        yield f"dE frozen B={B} T={T}", layer.dE
        yield f"dP frozen B={B} T={T}", layer.dP
        layer.freeze_positions = False
        layer.backward(dout)
        yield f"dP unfrozen again B={B} T={T}", layer.dP
    layer = ns["EmbeddingLayer"](5, 4, 2)
    idx = np.array([[0, 4, 0]])
    layer.forward(idx)
    layer.E, layer.P = layer.E + 1.0, layer.P - 1.0  # an optimizer step between two forwards
    yield "E and P replaced between forwards", layer.forward(idx)
    yield "second forward, other T", layer.forward(idx[:, :2])


PROBES = {
    "softmax": probe_softmax,
    "self-attention": probe_attention,
    "permutation-gap": probe_gap,
    "embedding": probe_embedding,
    "numerical-gradient": probe_numgrad,
    "rel-error": probe_rel_error,
    "sinusoidal-table": probe_table,
    "shift-matrix": probe_shift,
    "positional-embedding": probe_positional,
    "embedding-layer": probe_layer,
}

_references: dict = {}


def differences(mutant: Mutant) -> list[str]:
    """The boundary cases on which ``mutant`` gives other results than the reference (or raises), by label."""
    if mutant.notebook not in _references:
        _references[mutant.notebook] = load(mutant.notebook)[0]
    probe = PROBES[mutant.cell]
    with np.errstate(all="ignore"):
        want = list(probe(_references[mutant.notebook]))
        try:
            got = list(probe(load(mutant.notebook, mutant)[0]))
        except Exception as e:  # noqa: BLE001 - a crash on a boundary case is a difference
            return [f"raised {type(e).__name__}: {e}"]
    wrong = []
    for (label, right), (_, mine) in zip(want, got, strict=True):
        right, mine = np.asarray(right, dtype=float), np.asarray(mine, dtype=float)
        if right.shape != mine.shape or not np.allclose(mine, right, rtol=1e-6, atol=1e-8):
            wrong.append(label)
    return wrong


def test_every_unit_with_an_alternative_has_a_probe():
    assert {a.cell for a in ALTERNATIVES} == set(PROBES)


@pytest.mark.parametrize("alternative", ALTERNATIVES, ids=lambda a: a.name)
def test_a_correct_alternative_gives_the_references_results_on_every_boundary_class(alternative):
    assert differences(alternative) == [], alternative.name


RESHAPE_NUMGRAD = Mutant(
    "numgrad-through-reshape",
    "02_token_embeddings",
    "numerical-gradient",
    None,
    source="""\
def numerical_gradient(f, x, eps=1e-6):
    flat = x.reshape(-1)  # a copy when x is not contiguous: the nudges never reach x
    grad = np.zeros(x.size)
    for k in range(x.size):
        keep = flat[k]
        flat[k] = keep + eps
        fp = f()
        flat[k] = keep - eps
        fm = f()
        flat[k] = keep
        grad[k] = (fp - fm) / (2 * eps)
    return grad.reshape(x.shape)
""",
)


def test_an_alternative_right_only_on_contiguous_arrays_is_found():
    """The issue's case: correct on every contiguous x, all zeros for a transpose or a strided slice."""
    wrong = differences(RESHAPE_NUMGRAD)
    assert wrong and all(any(f" {name}" in w for name in BOUNDARY_LAYOUTS) for w in wrong), wrong
    assert any(w.startswith("numerical_gradient (2, 3) transposed") for w in wrong)
