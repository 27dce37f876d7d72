"""Hidden checks for lesson 5: EmbeddingLayer (token table + learned positions + freeze_positions).

Every catalogued mistake is told through ``say`` (the words the notebook's self-checks use too), and
checked first; a wrong array outside the catalogue is compared with the right one through
``relationship`` / ``expect_close``, so a factor (2, 1/B, -1), a shift, a sum over the wrong axis or
rows in the wrong places is named as such.
"""

from __future__ import annotations

import numpy as np

from . import call, expect_array, expect_raises, grading_rng, hidden_check, same_gradient_again, watch
from .boundary import laid_out, layout_words, shown_on
from .diagnostics import Diagnosis, fmt, relationship, say
from .gradcheck import compare, numerical_gradient
from .lesson02 import expect_gradient_rows, overwrite_models
from .lesson04 import (
    TOO_LONG_ERRORS,
    backward_plans,
    boundary_sizes,
    call_forward,
    comparable,
    distinct_cases,
    dP_diagnosis,
    expect_grad,
    parities,
    pick,
    pick_width,
    stale_forward,
    upstream,
)
from .lesson04 import forward_diagnosis as shared_forward_diagnosis

SAME = dict(rtol=0.0, atol=1e-12)  # "exactly what it would be without the flag": same code, same numbers
EXACT = SAME  # forward values are a gather and an add: any correct code is exact


def _ids(rng, V, B, T, block_size=None):
    """Random ids (B, T) in [0, V) with a repeated id forced inside one sequence (so no row is arange(T)).

    Given ``block_size`` (and V > block_size, B > 1), another sequence also holds an id >= block_size, so code
    that indexes the position table by token id fails on every draw, not only on some.
    """
    ids = rng.integers(0, V, size=(B, T))
    b = int(rng.integers(B))
    t1, t2 = rng.choice(T, size=2, replace=False)
    ids[b, t2] = ids[b, t1]
    if block_size is not None and V > block_size and B > 1:
        other = int((b + 1 + rng.integers(B - 1)) % B)
        ids[other, int(rng.integers(T))] = int(rng.integers(block_size, V))
    return ids


def _vocab(rng, block_size, avoid=()):
    """A vocabulary larger than the position table (ids >= block_size exist), distinct from the other sizes."""
    return pick(rng, block_size + 1, block_size + 10, avoid)


def _make(EmbeddingLayer, V, block_size, C, seed, **kwargs):
    args = ", freeze_positions=True" if kwargs.get("freeze_positions") else ""
    return call(
        f"EmbeddingLayer(vocab_size, block_size, C{args})", EmbeddingLayer, V, block_size, C, seed=seed, **kwargs
    )


# ------------------------------------------------------------------------------------------------ forward


def forward_diagnosis(out, E, P, idx) -> None:
    """Lesson 4's forward diagnosis, for a forward whose output should be ``E[idx] + P[:T]`` (a position row
    chosen by token id is recognised there too)."""
    shared_forward_diagnosis(out, E[idx], P, idx.shape[1], base_name="E[idx]", idx=idx)


def _probe_forward(EmbeddingLayer) -> None:
    """Forward on a small fixed case whose ids all have a row in P (so a P[idx] computes): raise its diagnosis."""
    layer = EmbeddingLayer(6, 8, 3, seed=3)
    idx = np.array([[1, 4, 1, 0, 5], [3, 3, 2, 5, 0]])
    E = np.array(layer.E, dtype=np.float64, copy=True)
    P = np.array(layer.P, dtype=np.float64, copy=True)
    out = np.asarray(layer.forward(idx))
    if out.shape == (2, 5, 3) and np.all(np.isfinite(out)):
        forward_diagnosis(np.asarray(out, dtype=np.float64), E, P, idx)


def _forward(EmbeddingLayer, layer, idx, block_size):
    """layer.forward(idx); when it crashes on valid ids, a small probe names the forward mistake behind the crash."""
    B, T = idx.shape
    try:
        return call_forward(
            f"EmbeddingLayer.forward for ids of shape {(B, T)} (block_size={block_size})",
            layer.forward,
            idx,
            T,
            block_size,
        )
    except Diagnosis as crash:
        if crash.misconception != "crashed":
            raise
        try:
            _probe_forward(EmbeddingLayer)
        except Diagnosis as found:
            raise Diagnosis(found.misconception, f"{found.message}\nIt is also why {crash.message}") from None
        except Exception:  # noqa: BLE001 - the probe only names a cause; without one the crash is told as it is
            pass
        raise


def _backward(layer, G, layout=None):
    """layer.backward on a copy of G (the check keeps its own G intact), laid out as ``layout`` (boundary.LAYOUTS)."""
    return call("EmbeddingLayer.backward", layer.backward, laid_out(G, layout))


def _numeric(layer, idx, G, table: str):
    """Central differences of L = sum((E[idx] + P[:T]) * G) with respect to a copy of one table.

    Only the part of L that depends on that table is evaluated: the same gradient, less rounding.
    """
    if table == "E":
        E = np.array(layer.E, dtype=np.float64, copy=True)
        return numerical_gradient(lambda: np.sum(E[idx] * G), E)
    P = np.array(layer.P, dtype=np.float64, copy=True)
    T = idx.shape[1]
    return numerical_gradient(lambda: np.sum(P[:T] * G), P)


@hidden_check
def layer_forward(EmbeddingLayer):
    rng = grading_rng()
    p1, p2 = parities(rng)
    block_size = int(rng.integers(7, 12))
    # first: every id below block_size (so P[idx] is computable and recognised), T < block_size;
    # then: the full window T == block_size with a vocabulary larger than the table of positions and an id beyond it.
    # B > 1, one odd and one even C, and V, B, T, C and block_size pairwise distinct in each case.
    V1 = int(rng.integers(4, block_size))
    T1 = pick(rng, 3, block_size, (V1,))
    B1 = pick(rng, 2, 6, (V1, T1))
    B2 = pick(rng, 2, 6, (block_size,))
    V2 = _vocab(rng, block_size)
    cases = [
        (V1, B1, T1, pick_width(rng, p1, (V1, B1, T1, block_size))),
        (V2, B2, block_size, pick_width(rng, p2, (V2, B2, block_size))),
    ]
    for V, B, T, C in cases:
        layer = _make(EmbeddingLayer, V, block_size, C, int(rng.integers(1 << 30)))
        E0 = np.array(layer.E, dtype=np.float64, copy=True)
        P0 = np.array(layer.P, dtype=np.float64, copy=True)
        idx = _ids(rng, V, B, T, block_size if T == block_size else None)
        idx0 = watch(idx).copy()  # changing the ids in place has its own diagnosis
        out = _forward(EmbeddingLayer, layer, idx, block_size)
        out = expect_array(f"forward(idx) for ids of shape {(B, T)}", out, (B, T, C))
        if not (np.array_equal(layer.E, E0) and np.array_equal(layer.P, P0)):
            raise Diagnosis("side-effect", "forward changed E or P; it should only read rows of the two tables.")
        if not np.array_equal(idx, idx0):
            raise Diagnosis("side-effect", "forward changed the ids it was given; it should only read them.")
        forward_diagnosis(out, E0, P0, idx)
    for B, T, C, layout in boundary_sizes(rng, block_size):
        V = int(rng.integers(2, 6))
        layer = _make(EmbeddingLayer, V, block_size, C, int(rng.integers(1 << 30)))
        idx = rng.integers(0, V, size=(B, T))
        what = f"forward(idx) for ids of shape {(B, T)}{layout_words(layout, 'idx')}, C={C}"
        out = expect_array(what, _forward(EmbeddingLayer, layer, laid_out(idx, layout), block_size), (B, T, C))
        forward_diagnosis(out, np.asarray(layer.E, dtype=np.float64), np.asarray(layer.P, dtype=np.float64), idx)
    # an optimizer step between two forwards: E and P are replaced, and the next forward reads the new ones
    V, T, C = 5, block_size - 1, 3
    layer = _make(EmbeddingLayer, V, block_size, C, 42)
    idx = rng.integers(0, V, size=(2, T))
    old = np.array(_forward(EmbeddingLayer, layer, idx, block_size), dtype=np.float64, copy=True)
    for table, shape in (("E", (V, C)), ("P", (block_size, C))):
        setattr(layer, table, rng.standard_normal(shape))
        out = _forward(EmbeddingLayer, layer, idx, block_size)
        out = expect_array(f"forward(idx) after self.{table} was replaced", out, old.shape)
        stale_forward(out, old, np.asarray(layer.E)[idx] + np.asarray(layer.P)[:T], table)
        old = out


@hidden_check
def layer_too_long(EmbeddingLayer):
    rng = grading_rng()
    block_size = int(rng.integers(3, 9))
    T = block_size + int(rng.integers(1, 4))
    V = pick(rng, block_size + 1, 20, (T,))
    C = pick(rng, 2, 8, (2, V, T, block_size))
    layer = _make(EmbeddingLayer, V, block_size, C, 42)
    idx = _ids(rng, V, 2, T, block_size)
    expect_raises(
        f"forward with T={T} and block_size={block_size}",
        lambda: layer.forward(idx),
        TOO_LONG_ERRORS,
        "the position table has no rows for slots block_size and beyond",
    )
    T = int(rng.integers(3, 6))
    V = pick(rng, 2, 20, (T,))
    C = pick(rng, 2, 8, (1, 2, V, T))
    layer = _make(EmbeddingLayer, V, 1, C, 42)
    idx = _ids(rng, V, 2, T, 1)
    expect_raises(
        f"forward with T={T} and block_size=1",
        lambda: layer.forward(idx),
        TOO_LONG_ERRORS,
        "with block_size=1, NumPy broadcasting adds the single row P[0] to every slot instead of failing, "
        "so compare T with block_size explicitly",
    )


# ------------------------------------------------------------------------------------------------ backward


def _scatter_overwrite_probe(EmbeddingLayer):
    """The contract's canonical example: ids [[0, 0]], dout of ones, C = 2. Row 0 of dE, or None if the code fails."""
    try:
        layer = EmbeddingLayer(3, 2, 2)
        layer.forward(np.array([[0, 0]]))
        layer.backward(np.ones((1, 2, 2)))
        got = np.asarray(layer.dE, dtype=np.float64)[0]
    except Exception:  # noqa: BLE001 - the probe is only for the message
        return None
    return got if got.shape == (2,) else None


def _dE_diagnosis(EmbeddingLayer, dE, numeric, idx, report, G) -> None:
    """dE failed the gradient check: name the catalogued mistake (only where this dE is what that mistake computes
    from these ids and this dout), else how dE relates to the right one."""
    V = numeric.shape[0]
    B, T = idx.shape
    counts = np.bincount(idx.reshape(-1), minlength=V)
    row_err = np.max(np.abs(dE - numeric) / np.maximum(1e-12, np.abs(dE) + np.abs(numeric)), axis=1)
    wrong = row_err >= 1e-5
    only_repeats_wrong = bool(np.any(wrong[counts >= 2]) and not np.any(wrong[counts == 1]))
    models = overwrite_models(
        idx, G, V
    )  # scatter-overwrite's: what dE[ids] += dout leaves, written as a whole or in parts
    if only_repeats_wrong and any(np.allclose(dE, once, rtol=1e-6, atol=1e-9) for once in models):
        # only rows of repeated ids are wrong: occurrences were dropped instead of added. the contract's probe (ids [[0, 0]],
        # dout of ones) confirms it when it keeps one occurrence, and gives the message its numbers.
        got = _scatter_overwrite_probe(EmbeddingLayer)
        if got is not None and np.allclose(got, [1, 1]):
            raise say(
                "scatter-overwrite",
                row=0,
                want=np.array([2.0, 2.0]),
                got=got,
                detail="Here, with ids [[0, 0]] and dout of ones, only one of the two occurrences reached dE.",
            )
        if got is None and np.any(counts == 1):
            tok = int(np.flatnonzero(wrong & (counts >= 2))[0])
            raise say(
                "scatter-overwrite",
                row=tok,
                want=fmt(numeric[tok]),
                got=fmt(dE[tok]),
                detail=f"Token id {tok} occurs {counts[tok]} times and its row is the sum of dout at all "
                f"{counts[tok]} places; rows of ids that occur once are right.",
            )
    found = relationship(dE, numeric, sizes={"B": B, "T": T, "B*T": B * T})
    if found is not None:
        kind, words = found
        raise Diagnosis(
            kind,
            f"dE fails the gradient check ({report.error:.2e} against the bar 1e-5): it is {words}. "
            "Row v of dE is the sum of dout over every place [b, t] whose id is v: "
            "np.add.at(dE, idx, dout).",
        )
    token = report.worst_index[0]
    raise Diagnosis(
        "wrong-gradient",
        f"dE fails the gradient check. {report.describe('token id')}; token id {token} occurs {int(counts[token])} "
        f"time(s) in the batch, so its row should be the sum of dout at those {int(counts[token])} place(s).",
    )


@hidden_check
def layer_backward_dE(EmbeddingLayer):
    rng = grading_rng()
    block_size = int(rng.integers(5, 9))
    for B, T, C in distinct_cases(rng, block_size, lo_T=3):
        V = _vocab(rng, block_size, (C,))
        layer = _make(EmbeddingLayer, V, block_size, C, int(rng.integers(1 << 30)))
        idx = _ids(rng, V, B, T, block_size)
        G = upstream(rng, (B, T, C), idx, V)
        _forward(EmbeddingLayer, layer, idx, block_size)
        ret = _backward(layer, G)
        dE = np.array(expect_gradient_rows("self.dE after backward", layer.dE, (V, C), idx), copy=True)
        if ret is not None:
            raise Diagnosis(
                "wrong-value",
                f"backward should return None (ids are integers, there is no input gradient; "
                f"the results live in self.dE and self.dP), got {type(ret).__name__}.",
            )
        numeric = _numeric(layer, idx, G, "E")
        report = compare("dE", dE, numeric)
        if not report.ok:
            _dE_diagnosis(EmbeddingLayer, dE, numeric, idx, report, G)
    # the boundary classes: B = 1, T = 1, C = 1, dout laid out as a transpose and strided, the highest ids unused
    cases = [(*sizes, 0) for sizes in boundary_sizes(rng, block_size)] + [(2, block_size - 1, 2, None, 3)]
    for B, T, C, layout, unused in cases:
        V = 6
        layer = _make(EmbeddingLayer, V, block_size, C, int(rng.integers(1 << 30)))
        idx = rng.integers(0, V - unused, size=(B, T))
        G = upstream(rng, (B, T, C))
        _forward(EmbeddingLayer, layer, idx, block_size)
        _backward(layer, G, layout)
        what = f"self.dE after backward (ids of shape {(B, T)}, vocab_size={V}, C={C}{layout_words(layout, 'dout')})"
        dE = np.array(expect_gradient_rows(what, layer.dE, (V, C), idx), copy=True)
        with shown_on(what):
            right = np.zeros((V, C))
            np.add.at(right, idx, G)
            report = compare("dE", dE, right)
            if not report.ok:
                _dE_diagnosis(EmbeddingLayer, dE, right, idx, report, G)


@hidden_check
def layer_backward_dP(EmbeddingLayer):
    rng = grading_rng()
    block_size = int(rng.integers(5, 9))
    # a fresh layer with B == T < block_size, then one layer used twice: T == block_size, then T < block_size
    for C, calls in backward_plans(rng, block_size):
        V = _vocab(rng, block_size, (C,))
        layer = _make(EmbeddingLayer, V, block_size, C, int(rng.integers(1 << 30)))
        prev = None
        for B, T in calls:
            idx = _ids(rng, V, B, T, block_size)
            G = upstream(rng, (B, T, C), idx, V)
            _forward(EmbeddingLayer, layer, idx, block_size)
            _backward(layer, G)
            dP = np.array(
                expect_grad(f"self.dP after backward (T={T}, block_size={block_size})", layer.dP, (block_size, C), T),
                copy=True,
            )
            dP_diagnosis(dP, _numeric(layer, idx, G, "P"), G, T, prev)
            prev = dP
    for B, T, C, layout in boundary_sizes(rng, block_size):
        layer = _make(EmbeddingLayer, 5, block_size, C, int(rng.integers(1 << 30)))
        idx = rng.integers(0, 5, size=(B, T))
        G = upstream(rng, (B, T, C), idx, 5)
        _forward(EmbeddingLayer, layer, idx, block_size)
        _backward(layer, G, layout)
        what = f"self.dP after backward (B={B}, T={T}, C={C}, block_size={block_size}{layout_words(layout, 'dout')})"
        dP = np.array(expect_grad(what, layer.dP, (block_size, C), T), copy=True)
        with shown_on(what):
            right = np.zeros((block_size, C))
            right[:T] = G.sum(axis=0)
            dP_diagnosis(dP, right, G, T)


@hidden_check
def layer_backward_fresh(EmbeddingLayer):
    rng = grading_rng()
    block_size = int(rng.integers(4, 8))
    # a fresh layer for T < block_size and one for T == block_size: every bug that breaks either length is met
    for B, T, C in distinct_cases(rng, block_size):
        V = _vocab(rng, block_size, (C,))
        layer = _make(EmbeddingLayer, V, block_size, C, 42)
        idx = _ids(rng, V, B, T, block_size)
        G = upstream(rng, (B, T, C), idx, V)
        _forward(EmbeddingLayer, layer, idx, block_size)
        _backward(layer, G)
        first = {
            "dE": comparable("self.dE after backward", layer.dE),
            "dP": comparable("self.dP after backward", layer.dP),
        }
        _backward(layer, G)
        second = {
            "dE": comparable("self.dE after a second backward", layer.dE),
            "dP": comparable("self.dP after a second backward", layer.dP),
        }
        for name in ("dE", "dP"):
            same_gradient_again(name, first[name], second[name])


# ------------------------------------------------------------------------------------------------ freezing


def _frozen_diagnosis(layer, twin, block_size, C, V, when: str, prev_dP=None, hint=lambda: "") -> None:
    """After the same forward/backward: ``layer`` is frozen, ``twin`` (same seed, same history) is not.

    ``prev_dP`` is the layer's dP before this backward (to recognise a dP left over from the last call);
    ``hint()`` is added when the flag had no effect at all.
    """
    dP = layer.dP
    if not isinstance(dP, np.ndarray) or dP.shape != (block_size, C):
        shape = dP.shape if isinstance(dP, np.ndarray) else type(dP).__name__
        raise Diagnosis(
            "wrong-shape",
            f"With freeze_positions=True ({when}), self.dP should be an all-zero array of P's "
            f"shape {(block_size, C)} so that P -= lr * dP still works; got {shape}.",
        )
    if np.any(dP != 0):
        plain = twin.dP
        if isinstance(plain, np.ndarray) and plain.shape == dP.shape and np.allclose(dP, plain):
            # freeze-ignored's model: the unfrozen twin's dP
            raise say(
                "freeze-ignored",
                detail=f"With the flag {when}, your dP holds values up to {np.abs(dP).max():.3g} (it is the unfrozen "
                f"gradient: the flag had no effect).{hint()}",
            )
        why = (
            "the dP of the previous backward, left in place"
            if prev_dP is not None and np.allclose(dP, prev_dP)
            else "not the unfrozen gradient either"
        )
        raise Diagnosis(
            "wrong-value",
            f"dP must be zero while positions are frozen. With the flag {when}, your dP holds values up to "
            f"{np.abs(dP).max():.3g} ({why}): while the flag is true, set self.dP = np.zeros_like(self.P).",
        )
    dE, want = layer.dE, np.asarray(twin.dE)
    if not isinstance(dE, np.ndarray) or dE.shape != (V, C):
        shape = dE.shape if isinstance(dE, np.ndarray) else type(dE).__name__
        raise say(
            "freeze-kills-dE",
            detail=f"With the flag {when}, self.dE should still be the token gradient of shape {(V, C)}; got {shape}.",
        )
    if not np.allclose(dE, want, **SAME):
        what = "all zero" if np.all(dE == 0) else f"off by up to {np.abs(dE - want).max():.3g}"
        raise say(
            "freeze-kills-dE", detail=f"With the flag {when}, your dE is {what} compared with the same layer unfrozen."
        )


def _same_forward(out_frozen, out_plain, E, idx, when: str) -> None:
    if np.allclose(out_frozen, out_plain, **SAME):
        return
    if np.allclose(out_frozen, E[idx], **SAME):
        raise say(
            "positions-missing",
            detail=f"With freeze_positions=True ({when}) your forward returned E[idx] alone; "
            "frozen positions are still added, they are just not trained.",
        )
    raise Diagnosis(
        "wrong-value",
        f"With freeze_positions=True ({when}) forward gave a different output from the same "
        f"layer unfrozen (by up to {np.abs(out_frozen - out_plain).max():.3g}); the flag "
        "affects only the gradient dP.",
    )


@hidden_check
def layer_freeze_at_construction(EmbeddingLayer):
    rng = grading_rng()
    block_size = int(rng.integers(5, 9))
    when = "passed to the constructor"
    for B, T, C in distinct_cases(rng, block_size):
        V, seed = _vocab(rng, block_size, (C,)), int(rng.integers(1 << 30))
        frozen = _make(EmbeddingLayer, V, block_size, C, seed, freeze_positions=True)
        twin = _make(EmbeddingLayer, V, block_size, C, seed)
        idx = _ids(rng, V, B, T, block_size)
        G = upstream(rng, (B, T, C), idx, V)
        out_f = np.asarray(_forward(EmbeddingLayer, frozen, idx, block_size))
        out_p = np.asarray(_forward(EmbeddingLayer, twin, idx, block_size))
        _same_forward(out_f, out_p, np.asarray(twin.E), idx, when)
        _backward(frozen, G)
        _backward(twin, G)
        _frozen_diagnosis(frozen, twin, block_size, C, V, when)


def _init_copy_hint(EmbeddingLayer, idx, G) -> str:
    """If a layer frozen at construction does get dP = 0, the flag is read from a copy made in __init__."""
    try:
        probe = EmbeddingLayer(int(idx.max()) + 1, idx.shape[1], G.shape[-1], freeze_positions=True)
        probe.forward(idx)
        probe.backward(G.copy())
        works = isinstance(probe.dP, np.ndarray) and not np.any(probe.dP != 0)
    except Exception:  # noqa: BLE001 - only for the wording of the message
        works = False
    if works:
        return " Freezing at construction works, so backward reads a copy of the flag taken in __init__."
    return ""


@hidden_check
def layer_freeze_after_construction(EmbeddingLayer):
    rng = grading_rng()
    block_size = int(rng.integers(5, 9))
    # the first step uses the full window T1 == block_size, the frozen and the unfrozen steps a partial one
    # T < block_size; B > 1, and B, T, C, V and block_size pairwise distinct within each step
    (B, T, _), (B1, T1, _) = distinct_cases(rng, block_size)
    C = pick_width(rng, int(rng.integers(2)), (B, T, B1, T1, block_size))
    V, seed = _vocab(rng, block_size, (C,)), int(rng.integers(1 << 30))
    layer = _make(EmbeddingLayer, V, block_size, C, seed)
    twin = _make(EmbeddingLayer, V, block_size, C, seed)
    # one ordinary step first (on both, so they share their history), with other ids and dout: a stale dE shows
    idx1, G1 = _ids(rng, V, B1, T1, block_size), rng.standard_normal((B1, T1, C))
    for obj in (layer, twin):
        _forward(EmbeddingLayer, obj, idx1, block_size)
        _backward(obj, G1)
    # switch the flag on the existing object
    when = "set after construction with layer.freeze_positions = True"
    layer.freeze_positions = True
    idx = _ids(rng, V, B, T, block_size)
    G = upstream(rng, (B, T, C), idx, V)
    out_f = np.asarray(_forward(EmbeddingLayer, layer, idx, block_size))
    out_p = np.asarray(_forward(EmbeddingLayer, twin, idx, block_size))
    _same_forward(out_f, out_p, np.asarray(twin.E), idx, when)
    prev_dP = np.array(layer.dP, dtype=np.float64, copy=True) if isinstance(layer.dP, np.ndarray) else None
    _backward(layer, G)
    _backward(twin, G)
    _frozen_diagnosis(
        layer, twin, block_size, C, V, when, prev_dP, hint=lambda: _init_copy_hint(EmbeddingLayer, idx, G)
    )
    # and off again: positions train again
    layer.freeze_positions = False
    _forward(EmbeddingLayer, layer, idx, block_size)
    _backward(layer, G)
    # only that dP is computed again is judged here: its shape and values are test-layer-backward-dP's to judge
    dP = comparable("self.dP after freeze_positions was set back to False", layer.dP)
    if not np.any(dP != 0):
        raise Diagnosis(
            "wrong-value",
            "After layer.freeze_positions = False, backward should compute dP again, but dP stayed all zero. The "
            "flag is read at every backward; it does not stick once set.",
        )


# --------------------------------------------------------------------------- the input space's trials (hidden.space)


def _layer_trial(case, rng):
    from .lesson02 import id_array, scatter_add
    from .lesson04 import dP_of, length
    from .oracle import RTOL, Result, Trial, described, laid

    bs, B, C, V = case["block_size"], case["B"], case["C"], case["V"]
    T = length(case, rng, bs)
    E = rng.integers(-3, 4, size=(V, C)).astype(float)
    P = rng.integers(-3, 4, size=(bs, C)).astype(float)
    ids = id_array(case, rng, V, (B, T))
    idx = laid(ids.astype(case["dtype"]), case["ids layout"])
    dtype = case["dout dtype"]
    dout = laid(rng.integers(-2, 3, size=(B, T, C)).astype(dtype), case["dout layout"])
    frozen, how = case["frozen"], case["frozen how"]
    made = f"EmbeddingLayer(vocab_size={V}, block_size={bs}, C={C}" + (
        f", freeze_positions={frozen})" if how == "constructor" else f"), then layer.freeze_positions = {frozen}"
    )
    trial = Trial(
        lambda: (
            f"layer = {made}, with {described('E', E)} and {described('P', P)}, layer.forward({described('idx', idx)})"
        ),
        None,
        tail=lambda: f", layer.backward({described('dout', dout)})",
    )
    gi, gd = trial.given("idx", idx), trial.given("dout", dout)
    d64 = dout.astype(np.float64)

    def run(EmbeddingLayer):
        if how == "constructor":
            layer = EmbeddingLayer(V, bs, C, freeze_positions=frozen)
        else:
            layer = EmbeddingLayer(V, bs, C)
            layer.freeze_positions = frozen
        layer.E, layer.P = E.copy(), P.copy()
        trial.stage = "forward"
        out = layer.forward(gi)
        trial.stage = ""
        results = [Result("forward(idx)", out, E[ids] + P[:T], part="forward", recall=trial.part != "forward")]
        if trial.part == "forward":
            return results
        ret = layer.backward(gd)
        tol = RTOL[dtype]
        return results + [
            Result("backward's return value", ret, None, part="dE"),
            Result("dE", layer.dE, scatter_add(ids, d64, V), tol, part="dE"),
            Result("dP", layer.dP, np.zeros((bs, C)) if frozen else dP_of(dout, bs), tol, part="dP"),
        ]

    trial.run = run
    return trial


class LayerMachine:
    """EmbeddingLayer driven through call sequences, the flag switched between any two calls."""

    tables, grads, flag = ("E", "P"), ("dE", "dP"), "freeze_positions"

    def __init__(self, rng):
        self.rng = rng
        self.V, self.bs, self.C = int(rng.integers(2, 4)), int(rng.integers(2, 4)), int(rng.integers(1, 3))
        self.E = rng.integers(-2, 3, size=(self.V, self.C)).astype(float)
        self.P = rng.integers(-2, 3, size=(self.bs, self.C)).astype(float)
        self.seed = constructor_seed(rng)

    def construct(self, EmbeddingLayer):
        return EmbeddingLayer(self.V, self.bs, self.C, **seed_kwargs(self.seed))

    def constructor_words(self) -> str:
        return f"layer = EmbeddingLayer(vocab_size={self.V}, block_size={self.bs}, C={self.C}{seed_words(self.seed)})"

    def initial_tables(self) -> dict:
        return {"E": self.E, "P": self.P}

    def first_tables(self) -> dict:
        return drawn_tables(self.seed, {"E": (self.V, self.C), "P": (self.bs, self.C)})

    def new_input(self, shape=None):
        if shape is None:
            shape = (int(self.rng.integers(1, 3)), int(self.rng.integers(1, self.bs + 1)))
        return self.rng.integers(0, self.V, size=shape)

    def new_dout(self, idx):
        return self.rng.integers(-2, 3, size=np.shape(idx) + (self.C,)).astype(float)

    def reference_forward(self, tables, idx):
        return tables["E"][idx] + tables["P"][: idx.shape[1]]

    def reference_backward(self, tables, idx, dout, flag):
        from .lesson02 import scatter_add
        from .lesson04 import dP_of

        dP = np.zeros((self.bs, self.C)) if flag else dP_of(dout, self.bs)
        return None, {"dE": scatter_add(idx, dout, self.V), "dP": dP}


from .lesson04 import _too_long_trial  # noqa: E402
from .oracle import constructor_seed, cover, drawn_tables, seed_kwargs, seed_words, sequencing, sweeping  # noqa: E402 - after the checks it extends

UNIT = "EmbeddingLayer(vocab_size, block_size, C)"
cover(
    globals(),
    {
        "layer_forward": sweeping(UNIT, _layer_trial, "forward"),
        "layer_too_long": sweeping(UNIT, lambda case, rng: _too_long_trial(case, rng, layer=True), invalid=True),
        "layer_backward_dE": sweeping(UNIT, _layer_trial, "dE"),
        "layer_backward_dP": sweeping(UNIT, _layer_trial, "dP"),
        "layer_backward_fresh": sequencing(
            UNIT, LayerMachine, ("layer_forward", "layer_backward_dE", "layer_backward_dP")
        ),
    },
)
