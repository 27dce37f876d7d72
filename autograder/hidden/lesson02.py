"""Hidden checks for lesson 2: Embedding, numerical_gradient, rel_error."""

from __future__ import annotations

import numpy as np

from ..channel.fixtures import Fixture
from . import call, expect_array, expect_raises, grading_rng, hidden_check, same_gradient_again, watch
from .boundary import LAYOUTS, each_layout, laid_out, layout_words, shown_on, told_of
from .diagnostics import Diagnosis, expect_close, relationship, say
from .gradcheck import compare
from .gradcheck import numerical_gradient as reference_numerical_gradient


def _ids_with_repeats(rng, V, shape):
    """Random ids of ``shape`` in [0, V) in which at least one id occurs more than once."""
    ids = rng.integers(0, V, size=shape)
    flat = ids.reshape(-1)
    if flat.size >= 2:
        a, b = rng.choice(flat.size, size=2, replace=False)
        flat[b] = flat[a]
    return ids


@hidden_check
def embedding_forward(Embedding):
    rng = grading_rng()
    for shape in [(int(rng.integers(3, 9)),), (int(rng.integers(2, 5)), int(rng.integers(3, 8))), (2, 3, 2)]:
        # C differs from every length of idx, so an output with its axes mixed up is always the wrong shape
        V, C = int(rng.integers(5, 30)), int(rng.choice([c for c in range(2, 9) if c not in shape]))
        emb = call("Embedding(vocab_size, C)", Embedding, V, C, seed=int(rng.integers(1 << 30)))
        E0 = emb.E.copy()
        idx = _ids_with_repeats(rng, V, shape)
        out = call("Embedding.forward", emb.forward, idx)
        out = expect_array(f"forward(idx) for idx of shape {shape}", out, shape + (C,))
        if not np.array_equal(emb.E, E0):
            raise Diagnosis("side-effect", "forward changed the table E; it should only read rows of it.")
        want = E0[idx]
        if not np.allclose(out, want, rtol=0, atol=1e-15):
            found = relationship(out, want)
            if found is not None:
                raise Diagnosis(
                    found[0],
                    f"forward(idx) for idx of shape {shape} is {found[1]}. forward returns "
                    "E[idx], the rows of E as they are, one per id.",
                )
            bad = np.argwhere(~np.isclose(out, want, rtol=0, atol=1e-15))[0]
            pos = tuple(int(i) for i in bad[:-1])
            raise Diagnosis(
                "wrong-value",
                f"forward(idx)[{', '.join(map(str, pos))}] should be row {int(idx[pos])} of E, the row of the "
                f"id at that place; it differs by up to {np.abs(out - want).max():.3g}.",
            )
    # a single id (0-d) gives one row
    emb = call("Embedding(vocab_size, C)", Embedding, 7, 3)
    one = call("Embedding.forward", emb.forward, np.int64(4))
    expect_array("forward(4) for a single id", np.asarray(one), (3,))
    _forward_boundaries(Embedding, rng)


def _forward_boundaries(Embedding, rng) -> None:
    """The boundary classes of forward: one sequence of one id, C = 1, V = 1, ids laid out as a transpose and as a
    strided slice, and a table replaced between two forwards."""
    T = int(rng.integers(3, 6))
    cases = [((1, 1), 3, 4, None), ((2, T), 1, 5, None), ((1, T), 2, 1, None)]
    cases += [((2, T), 3, 6, layout) for layout in LAYOUTS]
    for shape, C, V, layout in cases:
        emb = call("Embedding(vocab_size, C)", Embedding, V, C, seed=int(rng.integers(1 << 30)))
        idx = rng.integers(0, V, size=shape)
        what = f"forward(idx) for idx of shape {shape}{layout_words(layout, 'idx')}, vocab_size={V}, C={C}"
        out = expect_array(what, call("Embedding.forward", emb.forward, laid_out(idx, layout)), shape + (C,))
        if not np.allclose(out, np.asarray(emb.E)[idx], rtol=0, atol=1e-15):
            found = relationship(out, np.asarray(emb.E)[idx])
            words = f"is {found[1]}" if found else "is not E[idx]"
            raise Diagnosis(found[0] if found else "wrong-value", f"{what} {words}: it returns E[idx].")
    # an optimizer step between two forwards: the table is replaced, and the next forward reads the new one
    V, C = int(rng.integers(3, 8)), int(rng.integers(2, 5))
    emb = call("Embedding(vocab_size, C)", Embedding, V, C)
    idx = rng.integers(0, V, size=(2, 3))
    old = np.array(call("Embedding.forward", emb.forward, idx), dtype=np.float64, copy=True)
    emb.E = new = rng.standard_normal((V, C))
    out = expect_array("forward(idx) after self.E was replaced", call("Embedding.forward", emb.forward, idx), old.shape)
    if not np.allclose(out, new[idx], rtol=0, atol=1e-15):
        stale = np.allclose(out, old, rtol=0, atol=1e-15)
        raise Diagnosis(
            "stale-state",
            "After the table was replaced between two forwards (emb.E = E - lr * dE, as an optimizer step does), "
            + (
                "forward(idx) still returned the rows of the old table"
                if stale
                else "forward(idx) is not the new E[idx]"
            )
            + ": it keeps a table of its own. Read self.E at every call.",
        )


@hidden_check
def embedding_bad_ids(Embedding):
    rng = grading_rng()
    V = int(rng.integers(4, 20))
    emb = call("Embedding(vocab_size, C)", Embedding, V, 3)
    ok_ids = rng.integers(0, V, size=4)
    too_big = ok_ids.copy()
    too_big[int(rng.integers(4))] = V + int(rng.integers(0, 3))
    negative = ok_ids.copy()
    negative[int(rng.integers(4))] = -int(rng.integers(1, V))
    expect_raises(
        f"forward with id {too_big.max()} and vocab_size={V}",
        lambda: emb.forward(too_big),
        (IndexError, ValueError),
        "an id must be below vocab_size",
    )
    expect_raises(
        f"forward with the negative id {negative.min()}",
        lambda: emb.forward(negative),
        (IndexError, ValueError),
        "NumPy would silently read a row from the end of E",
    )
    expect_raises(
        "forward with float ids [0.0, 1.5]",
        lambda: emb.forward(np.array([0.0, 1.5])),
        (TypeError, IndexError, ValueError),
        "token ids are integers",
    )


def _scatter_overwrite_probe(Embedding):
    """The contract's canonical example: ids [0, 0], dout of ones, C = 2."""
    emb = Embedding(3, 2)
    emb.forward(np.array([0, 0]))
    emb.backward(np.ones((2, 2)))
    return np.asarray(emb.dE)[0]


def scatter_add(idx, G, V):
    """The true dE of L = sum(E[idx] * G): row v sums G over every place where id v was looked up."""
    dE = np.zeros((V,) + G.shape[idx.ndim :])
    np.add.at(dE, idx, G)
    return dE


def overwrite_models(idx, G, V):
    """scatter-overwrite's models: what ``dE[ids] += dout`` leaves (one write per distinct id of each write), for the
    whole batch in one write, one sequence per write and one slot per write."""
    idx, G = np.asarray(idx), np.asarray(G, dtype=np.float64)
    groups = [[(...,)]]
    if idx.ndim >= 2:
        groups += [[(b,) for b in range(idx.shape[0])], [(slice(None), t) for t in range(idx.shape[1])]]
    for writes in groups:
        once = np.zeros((V,) + G.shape[idx.ndim :])
        for w in writes:
            once[idx[w]] += G[w]
        yield once


def dE_diagnosis(dE, numeric, idx, G, probe) -> None:
    """Compare ``dE`` with the numerical gradient; on failure raise the matching diagnosis: the catalogue's
    scatter-overwrite first (its headline from ``probe()``, row 0 of dE for the ids [0, 0]), then a recognisable
    transform of the right dE, then where it is off."""
    report = compare("dE", dE, numeric)
    if report.ok:
        return
    if any(np.allclose(dE, once) for once in overwrite_models(idx, G, numeric.shape[0])):
        values, counts = np.unique(idx, return_counts=True)
        v, n = int(values[np.argmax(counts)]), int(counts.max())
        raise say(
            "scatter-overwrite",
            row=0,
            want=np.array([2.0, 2.0]),
            got=probe(),
            smallest="ids [0, 0] with a dout of ones",
            detail=f"In the batch this check drew, token id {v} occurs {n} times, and its row of dE holds only "
            f"one of those {n} slices of dout.",
        )
    B, T = idx.shape[:2]
    found = relationship(dE, scatter_add(idx, G, numeric.shape[0]), sizes={"B": B, "T": T})
    if found is not None:
        raise Diagnosis(
            found[0],
            f"dE is {found[1]}. Row v of dE is the sum of dout over every place where id v was "
            "looked up: np.add.at(dE, idx, dout) on a fresh np.zeros_like(E).",
        )
    token = report.worst_index[0]
    count = int(np.sum(idx == token))
    raise Diagnosis(
        "wrong-gradient",
        f"dE fails the gradient check. {report.describe('token id')}; token id {token} occurs {count} "
        f"time(s) in the batch, so its row should be the sum of dout at those {count} place(s).",
    )


@hidden_check
def embedding_backward(Embedding):
    rng = grading_rng()
    for _ in range(2):
        V, C = int(rng.integers(4, 12)), int(rng.integers(2, 7))
        # B > 2 and T != B, so a gradient of 1/2 the right one is not taken for a mean, and a mean is named by its axis
        B = int(rng.integers(3, 5))
        T = int(rng.choice([t for t in range(3, 7) if t != B]))
        emb = call("Embedding(vocab_size, C)", Embedding, V, C, seed=int(rng.integers(1 << 30)))
        idx = _ids_with_repeats(rng, V, (B, T))
        G = rng.standard_normal((B, T, C))
        call("Embedding.forward", emb.forward, idx)
        ret = call("Embedding.backward", emb.backward, G)
        dE = expect_gradient_rows("self.dE after backward", emb.dE, (V, C), idx)
        if ret is not None:
            raise Diagnosis(
                "wrong-value", f"backward should return None (the gradient lives in self.dE), got {type(ret).__name__}."
            )
        # the true loss L = sum(E[idx] * G), not the student's forward: a backward that merely agrees
        # with a wrong forward must not pass
        E = np.array(emb.E, dtype=np.float64, copy=True)
        numeric = reference_numerical_gradient(lambda: np.sum(E[idx] * G), E)  # noqa: B023 - called here, at once
        dE_diagnosis(dE, numeric, idx, G, lambda: _scatter_overwrite_probe(Embedding))
    for B, T, C, V, unused, layout in backward_boundaries(rng):
        emb = call("Embedding(vocab_size, C)", Embedding, V, C, seed=int(rng.integers(1 << 30)))
        idx = _ids_with_repeats(rng, V - unused, (B, T))
        G = rng.standard_normal((B, T, C))
        call("Embedding.forward", emb.forward, idx)
        call("Embedding.backward", emb.backward, laid_out(G, layout))
        what = f"self.dE after backward (ids of shape {(B, T)}, vocab_size={V}, C={C}{layout_words(layout, 'dout')})"
        dE = expect_gradient_rows(what, emb.dE, (V, C), idx)
        with shown_on(what):
            dE_diagnosis(dE, scatter_add(idx, G, V), idx, G, lambda: _scatter_overwrite_probe(Embedding))


def backward_boundaries(rng) -> list[tuple]:
    """(B, T, C, V, unused, layout) of a backward's boundary cases: one sequence (B = 1), one slot (T = 1),
    C = 1, the highest ``unused`` ids never looked up, dout laid out in every layout of LAYOUTS (a transpose and a
    strided slice today)."""
    T, B = int(rng.integers(3, 6)), int(rng.integers(2, 4))
    return [
        (1, T, 3, 5, 0, None),
        (B, 1, 3, 5, 0, None),
        (B, T, 1, 5, 0, None),
        (B, T, 2, 7, 3, None),
        *[(B, T, 3, 5, 0, layout) for layout in LAYOUTS],
    ]


def expect_gradient_rows(what: str, got, shape, idx):
    """expect_array for dE, saying which ids have no row when dE stops at the highest id that occurs (np.bincount
    without minlength, or a table sized by idx.max() + 1)."""
    if isinstance(got, np.ndarray) and got.ndim == 2 and got.shape[1:] == tuple(shape[1:]) and got.shape[0] < shape[0]:
        used = np.unique(idx)
        missing = [v for v in range(got.shape[0], shape[0])]
        never = [v for v in missing if v not in used]
        ids = f"{missing[0]}" if len(missing) == 1 else f"{missing[0]}..{missing[-1]}"
        raise Diagnosis(
            "wrong-shape",
            f"{what} should have the shape of E {tuple(shape)}, got {got.shape}: it has no row for id(s) {ids}"
            + (", which never occur in this batch" if len(never) == len(missing) else "")
            + ". dE has a row for every id of the vocabulary, zero for the ids not looked up: start from "
            "np.zeros_like(self.E) (np.bincount needs minlength=vocab_size).",
        )
    return expect_array(what, got, shape)


@hidden_check
def embedding_backward_fresh(Embedding):
    rng = grading_rng()
    V, C = int(rng.integers(4, 10)), int(rng.integers(2, 6))
    emb = call("Embedding(vocab_size, C)", Embedding, V, C)
    idx = _ids_with_repeats(rng, V, (2, 5))
    G = rng.standard_normal((2, 5, C))
    call("Embedding.forward", emb.forward, idx)
    call("Embedding.backward", emb.backward, G)
    first = np.array(emb.dE, dtype=np.float64, copy=True)
    call("Embedding.backward", emb.backward, G)
    same_gradient_again("dE", first, np.asarray(emb.dE, dtype=np.float64))


def _f_cubic(x):
    return Fixture("cubic", x)  # float(np.sum(x ** 3 + 2.0 * x ** 2)), built where the student's code runs


# How the central difference is taken, said wherever a numerical gradient is off by a transform.
CENTRAL = (
    "numerical_gradient is (f(x+eps) - f(x-eps)) / (2 * eps): the two evaluations lie 2 * eps apart, from "
    "x - eps to x + eps, so the difference is divided by 2 * eps."
)


def row_loop_values(x, eps) -> tuple:
    """What a loop over range(len(x)) gives, row by row, for f = sum(x**3 + 2 x**2): each row nudged whole, and
    restored from a copy of it (a central difference) or from a view of it (then the second value is f(x) itself)."""

    def f(y):
        return float(np.sum(y**3 + 2.0 * y**2))

    central, aliased = [], []
    for i in range(len(x)):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        central.append((f(up) - f(down)) / (2 * eps))
        aliased.append((f(up) - f(x)) / (2 * eps))
    return np.array(central), np.array(aliased)


def loops_over_rows(g, exact, x, eps) -> bool:
    """``g`` is what a loop over range(len(x)) gives on a 2-D ``x`` (it nudges whole rows): one value per row, where
    the true gradient varies along each row, and that value the row loop's own (checked on this x, so a gradient of
    zeros, say, is not told it looped over rows)."""
    return (
        g.ndim == 2
        and g.shape[1] > 1
        and np.allclose(g, g[:, :1], rtol=1e-9, atol=1e-12)
        and not np.allclose(exact, exact[:, :1])
        and any(np.allclose(g[:, 0], v, rtol=1e-6, atol=1e-9) for v in row_loop_values(x, eps))
    )


def rows_words(shape) -> str:
    """What a numerical gradient with one value per row of x did, and the fix."""
    return (
        f"numerical_gradient gave one value per row of x (x has shape {shape}): it nudges the whole row x[i] at "
        "once, as a loop over range(len(x)) does on a 2-D x, so each value mixes the derivatives of a whole row. "
        "Loop over every entry instead, for i in np.ndindex(x.shape), so x[i] is one number."
    )


@hidden_check
def numerical_gradient_values(numerical_gradient):
    rng = grading_rng()
    shape = (int(rng.integers(2, 5)), int(rng.integers(2, 5)))
    x = rng.uniform(-2, 2, size=shape)
    exact = 3 * x**2 + 4 * x
    # eps large enough that a one-sided difference is visibly off (error ~ (3x + 2) eps)
    eps = 1e-3
    saved = x.copy()
    g = call("numerical_gradient(f, x, eps=1e-3)", numerical_gradient, _f_cubic(x), x, eps)
    x[...] = saved  # judge the values even if x was not restored (that has its own test)
    g = expect_array(
        "numerical_gradient(f, x)", np.asarray(g, dtype=np.float64) if isinstance(g, np.ndarray) else g, shape
    )
    err = np.abs(g - exact).max()
    if err < 1e-5:
        _gradient_boundaries(numerical_gradient, rng, eps)
        return
    # f = sum(x**3 + 2 x**2): its differences at eps are exact polynomials in x
    central = exact + eps**2
    one_sided = exact + (3 * x + 2) * eps + eps**2
    if np.allclose(g, one_sided, rtol=1e-6, atol=1e-9):
        raise say(
            "one-sided-difference",
            detail=f"numerical_gradient matches the one-sided (f(x+eps) - f(x)) / eps, which is off by up to "
            f"{err:.2e} here at eps=1e-3.",
        )
    if loops_over_rows(g, exact, saved, eps):
        raise Diagnosis("wrong-value", rows_words(shape))
    if np.allclose(g, one_sided / 2, rtol=1e-6, atol=1e-9):
        raise Diagnosis(
            "scaled",
            "numerical_gradient is about 1/2 of the right values: it matches the one-sided "
            "difference (f(x+eps) - f(x)) divided by 2 * eps. f(x+eps) and f(x) lie only eps "
            "apart; take f(x-eps) as the second value, as the central difference "
            "(f(x+eps) - f(x-eps)) / (2 * eps) does.",
        )
    expect_close("numerical_gradient(f, x)", g, central, hint=CENTRAL, rtol=1e-6, atol=1e-7)
    raise Diagnosis("wrong-value", f"numerical_gradient is off by up to {err:.2e} from the true gradient. {CENTRAL}")


def _gradient_boundaries(numerical_gradient, rng, eps) -> None:
    """x of one entry, of three axes, laid out as a transpose and as a strided slice: numerical_gradient must nudge
    x itself, whatever its shape and layout."""
    for shape, layout in (((1,), None), ((2, 1, 3), None), *each_layout(((3, 4), (5,)))):
        x = laid_out(rng.uniform(-2, 2, size=shape), layout)
        saved = x.copy()
        what = f"numerical_gradient(f, x) for x of shape {shape}{layout_words(layout, 'x')}"
        g = call(what, numerical_gradient, _f_cubic(x), x, eps)
        x[...] = saved
        g = expect_array(what, np.asarray(g, dtype=np.float64) if isinstance(g, np.ndarray) else g, shape)
        exact = 3 * saved**2 + 4 * saved + eps**2
        if np.allclose(g, exact, rtol=1e-6, atol=1e-7):
            continue
        if layout is not None and not np.any(g):
            raise Diagnosis(
                "wrong-value",
                f"{what} is all zeros: f() never changed, so the nudges did not reach x. x.reshape(-1) (like "
                "x.ravel()) copies an array that is not contiguous, and writing into the copy leaves x alone. Nudge x "
                "itself: for i in np.ndindex(x.shape), x[i] = old + eps.",
            )
        expect_close(what, g, exact, hint=CENTRAL, rtol=1e-6, atol=1e-7)


@hidden_check
def numerical_gradient_restore(numerical_gradient):
    rng = grading_rng()
    # values near 1, where x + eps - 2 eps + eps != x for most entries: an incremental "restore" shows
    x = watch(rng.standard_normal(16))  # this check is about what numerical_gradient leaves in x
    before = x.copy()
    f = Fixture("sin_sum", x)  # float(np.sum(np.sin(x))), counting its calls

    call("numerical_gradient(f, x)", numerical_gradient, f, x)
    if not np.array_equal(x, before):
        changed = int(np.sum(x != before))
        raise say(
            "no-restore",
            detail=f"numerical_gradient left x changed in {changed} of {x.size} entries (by up "
            f"to {np.abs(x - before).max():.3g}).",
        )
    if f.calls < 2 * x.size:
        raise Diagnosis(
            "wrong-value",
            f"numerical_gradient called f {f.calls} times for an x of {x.size} entries; a central difference "
            "evaluates f twice per entry, nudging x in place before each call.",
        )


@hidden_check
def rel_error_values(rel_error):
    rng = grading_rng()
    a = rng.standard_normal((3, 4))
    b = a + rng.standard_normal((3, 4)) * 1e-3
    b[0, 0] = a[0, 0] = 0.0
    _judge_rel_error(rel_error, a, b, "")
    z = call("rel_error(0, 0)", rel_error, np.zeros(4), np.zeros(4))
    if not (np.isfinite(float(z)) and float(z) == 0.0):
        raise Diagnosis(
            "wrong-value", f"rel_error of two zero arrays should be 0.0 (the 1e-12 floor avoids 0/0), got {z}."
        )
    # the boundary classes: a and b of opposite signs, arrays of one entry, a laid out as a transpose
    r = rng.uniform(0.5, 2.0, size=(2, 3))
    for a, b, words in (
        (r, -rng.uniform(0.5, 2.0, size=(2, 3)), "of opposite signs"),
        (np.array([rng.uniform(1, 2)]), np.array([rng.uniform(2, 3)]), "of one entry each"),
        *[(laid_out(r, name), r + 1e-3, f"with a {told_of(name)}") for name in LAYOUTS],
    ):
        _judge_rel_error(rel_error, a, b, f" for a and b {words}")


def _judge_rel_error(rel_error, a, b, words: str) -> None:
    want = float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))
    got = call("rel_error(a, b)", rel_error, a, b)
    try:
        got = float(got)
    except (TypeError, ValueError):
        raise Diagnosis("wrong-value", f"rel_error should return one float, got {type(got).__name__}.") from None
    if np.isclose(got, want, rtol=1e-9, atol=0):
        return
    summed = float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a + b))))
    k = _opposite(a, b)
    why = ""
    if k is not None and np.isclose(got, summed, rtol=1e-9, atol=0):
        at = ", ".join(map(str, k))
        why = (
            f" It matches |a - b| / |a + b|, which is large where a and b have opposite signs (here a[{at}] = "
            f"{a[k]:.6g} and b[{at}] = {b[k]:.6g}): the denominator is |a| + |b|, each absolute value taken first."
        )
    raise Diagnosis(
        "wrong-value",
        f"rel_error(a, b){words} should be the largest entry of |a - b| / max(1e-12, |a| + |b|), {want:.6g} here; got "
        f"{got:.6g}.{why}",
    )


def _opposite(a, b):
    """The index of the entry where a and b have opposite signs and |a + b| is smallest, or None."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    opposite = np.sign(a) * np.sign(b) < 0
    if not opposite.any():
        return None
    return tuple(int(i) for i in np.unravel_index(int(np.argmin(np.where(opposite, np.abs(a + b), np.inf))), a.shape))


# --------------------------------------------------------------------------- the input space's trials (hidden.space)


def id_array(case, rng, V, shape):
    """Ids of ``shape`` below V, as the space's "which ids" asks: any, both ends, the last id alone, one repeated."""
    which = case.get("which ids", "random")
    ids = rng.integers(0, V, size=shape)
    flat = ids.reshape(-1)
    if which == "both ends":
        flat[0], flat[-1] = V - 1, 0
        if flat.size == 1:
            flat[0] = V - 1
    elif which == "last id only":
        flat[:] = V - 1
    elif which == "repeats" and flat.size >= 2:
        flat[:] = flat[0]
    return ids


SHAPES = {
    "(1, 1)": (1, 1),
    "0-d array": (),
    "numpy scalar": (),
    "python int": (),
    "1-d": (5,),
    "(B, T)": (2, 3),
    "3-d": (2, 1, 3),
}


def ids_of(case, rng, V):
    """The ids a case hands to forward, in its container, dtype and layout."""
    from .oracle import laid

    kind = case["ids"]
    ids = id_array(case, rng, V, SHAPES[kind]).astype(case.get("dtype", "int64"))
    if kind == "python int":
        return int(ids)
    if kind == "numpy scalar":
        return ids[()]
    return laid(ids, case.get("layout", "contiguous"))


def _embedding_trial(case, rng):
    from .oracle import RTOL, Result, Trial, described, laid

    V, C = case["V"], case["C"]
    E = rng.integers(-3, 4, size=(V, C)).astype(float)
    idx = ids_of(case, rng, V)
    backward = "dout layout" in case
    if backward:
        dtype = case["dout dtype"]
        dout = laid(rng.integers(-2, 3, size=np.shape(idx) + (C,)).astype(dtype), case["dout layout"])
    trial = Trial(
        lambda: (
            f"Embedding(vocab_size={V}, C={C}) with {described('E', E)}, forward({described('idx', idx)})"
            + (f", backward({described('dout', dout)})" if backward else "")
        ),
        None,
    )
    given = trial.given("idx", idx)
    d_in = trial.given("dout", dout) if backward else None

    def run(Embedding):
        emb = Embedding(V, C)
        emb.E = E.copy()
        trial.stage = "forward"
        out = emb.forward(given)
        trial.stage = ""
        results = [Result("forward(idx)", out, E[np.asarray(idx, dtype=np.int64)], part="forward", recall=backward)]
        if backward:
            ret = emb.backward(d_in)
            want = scatter_add(np.asarray(idx, dtype=np.int64), dout.astype(np.float64), V)
            results += [Result("backward's return value", ret, None), Result("dE", emb.dE, want, RTOL[dtype])]
        return results

    trial.run = run
    return trial


def _bad_ids_trial(case, rng):
    from .oracle import Trial, described

    V = 5
    bad = {"V": V, "V + 3": V + 3, "-1": -1, "-V": -V, "float 1.5": 1.5, "float 2.0": 2.0}[case["bad id"]]
    container = case["bad container"]
    kind = np.dtype(case["float dtype"]) if isinstance(bad, float) else np.dtype(np.int64)
    if container == "python":
        idx = bad
    elif container == "numpy scalar":
        idx = kind.type(bad)
    else:
        idx = np.array([0, bad, 1], dtype=kind)
    allowed = (IndexError, ValueError, TypeError) if isinstance(bad, float) else (IndexError, ValueError)
    trial = Trial(lambda: f"Embedding(vocab_size={V}, C=2), forward({described('idx', idx)})", None, raises=allowed)

    def run(Embedding):
        return [Result_none(Embedding(V, 2).forward(idx))]

    trial.run = run
    return trial


def Result_none(got):
    from .oracle import Result

    return Result("forward(idx)", got, None)


class EmbeddingMachine:
    """Embedding driven through call sequences (hidden.oracle.sequences)."""

    tables, grads, flag = ("E",), ("dE",), ""

    def __init__(self, rng):
        self.rng = rng
        self.V, self.C = int(rng.integers(2, 5)), int(rng.integers(1, 3))
        self.E = rng.integers(-2, 3, size=(self.V, self.C)).astype(float)
        self.seed = constructor_seed(rng)

    def construct(self, Embedding):
        return Embedding(self.V, self.C, **seed_kwargs(self.seed))

    def constructor_words(self) -> str:
        return f"emb = Embedding(vocab_size={self.V}, C={self.C}{seed_words(self.seed)})"

    def initial_tables(self) -> dict:
        return {"E": self.E}

    def first_tables(self) -> dict:
        return drawn_tables(self.seed, {"E": (self.V, self.C)})

    def new_input(self, shape=None):
        if shape is None:
            shape = (int(self.rng.integers(1, 3)), int(self.rng.integers(1, 4)))
        return self.rng.integers(0, self.V, size=shape)

    def new_dout(self, inp):
        return self.rng.integers(-2, 3, size=np.shape(inp) + (self.C,)).astype(float)

    def reference_forward(self, tables, idx):
        return tables["E"][idx]

    def reference_backward(self, tables, idx, dout, flag):
        return None, {"dE": scatter_add(idx, dout, self.V)}


def _numgrad_trial(case, rng):
    from .lesson01 import _sizes
    from .oracle import Result, Trial, described, laid

    shape = _sizes(rng, case["rank"], case["sizes"])
    x = laid(rng.integers(-4, 5, size=shape) / 2.0, case["layout"])
    eps = 1e-6 if case["eps"] == "default" else case["eps"]
    want = 3 * x**2 + 4 * x + eps**2  # the central difference of sum(x**3 + 2 x**2), exactly
    f = _f_cubic(watch(x))
    trial = Trial(
        lambda: (
            f"numerical_gradient(f, {described('x', x)}"
            + ("" if case["eps"] == "default" else f", eps={eps:g}")
            + ") with f = lambda: np.sum(x**3 + 2 * x**2)"
        ),
        None,
    )
    trial.inputs.append(("x", x, x.copy()))  # put back exactly

    def run(numerical_gradient):
        got = numerical_gradient(f, x) if case["eps"] == "default" else numerical_gradient(f, x, eps)
        return [Result("gradient", got, want, 1e-5)]

    trial.run = run
    return trial


def _rel_error_trial(case, rng):
    from .lesson01 import _sizes
    from .oracle import RTOL, Result, Trial, described, laid

    shape = _sizes(rng, case["rank"], case["sizes"])
    a = rng.integers(1, 5, size=shape) / 2.0
    b = rng.integers(1, 5, size=shape) / 2.0
    if case["signs"] == "opposite":
        b = -b
    elif case["signs"] == "mixed":
        a, b = a * rng.choice([-1, 1], size=shape), b * rng.choice([-1, 1], size=shape)
    elif case["signs"] == "zeros":
        a.reshape(-1)[0] = b.reshape(-1)[0] = 0.0
    a, b = (laid(v.astype(case["dtype"]), case[k]) for v, k in ((a, "a layout"), (b, "b layout")))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = float(np.max(np.abs(a64 - b64) / np.maximum(1e-12, np.abs(a64) + np.abs(b64))))
    trial = Trial(lambda: f"rel_error({described('a', a)}, {described('b', b)})", None)
    ga, gb = trial.given("a", a), trial.given("b", b)

    def run(rel_error):
        got = rel_error(ga, gb)
        try:
            got = float(got)
        except (TypeError, ValueError):
            pass
        return [Result("value", got, want, RTOL[case["dtype"]])]

    trial.run = run
    return trial


from .oracle import constructor_seed, cover, drawn_tables, seed_kwargs, seed_words, sequencing, sweeping  # noqa: E402 - after the checks it extends

cover(
    globals(),
    {
        "embedding_forward": sweeping("Embedding.forward(idx)", _embedding_trial, "forward"),
        "embedding_bad_ids": sweeping("Embedding.forward(idx)", _bad_ids_trial, invalid=True),
        "embedding_backward": sweeping("Embedding.backward(dout)", _embedding_trial, "backward"),
        "embedding_backward_fresh": sequencing(
            "Embedding.forward(idx)", EmbeddingMachine, ("embedding_forward", "embedding_backward")
        ),
        "numerical_gradient_values": sweeping("numerical_gradient(f, x, eps)", _numgrad_trial),
        "rel_error_values": sweeping("rel_error(a, b)", _rel_error_trial),
    },
)
