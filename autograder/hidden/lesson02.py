"""Hidden checks for lesson 2: Embedding, numerical_gradient, rel_error."""

from __future__ import annotations

import numpy as np

from ..channel.fixtures import Fixture
from . import call, expect_array, expect_raises, grading_rng, hidden_check, watch
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
    """The SPEC's canonical example: ids [0, 0], dout of ones, C = 2."""
    emb = Embedding(3, 2)
    emb.forward(np.array([0, 0]))
    emb.backward(np.ones((2, 2)))
    return np.asarray(emb.dE)[0]


def scatter_add(idx, G, V):
    """The true dE of L = sum(E[idx] * G): row v sums G over every place where id v was looked up."""
    dE = np.zeros((V,) + G.shape[idx.ndim :])
    np.add.at(dE, idx, G)
    return dE


def dE_diagnosis(dE, numeric, idx, G, probe) -> None:
    """Compare ``dE`` with the numerical gradient; on failure raise the matching diagnosis: the catalogue's
    scatter-overwrite first (its headline from ``probe()``, row 0 of dE for the ids [0, 0]), then a recognisable
    transform of the right dE, then where it is off."""
    report = compare("dE", dE, numeric)
    if report.ok:
        return
    once = np.zeros_like(numeric)
    once[idx] = G  # what dE[idx] += dout leaves: one write per distinct id
    if np.allclose(dE, once):
        values, counts = np.unique(idx, return_counts=True)
        v, n = int(values[np.argmax(counts)]), int(counts.max())
        raise say(
            "scatter-overwrite",
            row=0,
            want="[2, 2]",
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
        dE = expect_array("self.dE after backward", emb.dE, emb.E.shape)
        if ret is not None:
            raise Diagnosis(
                "wrong-value", f"backward should return None (the gradient lives in self.dE), got {type(ret).__name__}."
            )
        # the true loss L = sum(E[idx] * G), not the student's forward: a backward that merely agrees
        # with a wrong forward must not pass
        E = np.array(emb.E, dtype=np.float64, copy=True)
        numeric = reference_numerical_gradient(lambda: np.sum(E[idx] * G), E)  # noqa: B023 - called here, at once
        dE_diagnosis(dE, numeric, idx, G, lambda: _scatter_overwrite_probe(Embedding))


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
    second = np.asarray(emb.dE, dtype=np.float64)
    if not np.allclose(second, first):
        ratio = np.abs(second).sum() / max(np.abs(first).sum(), 1e-300)
        raise say(
            "grad-accumulates",
            grad="dE",
            table="E",
            detail=f"A second backward with the same dout changed dE (it grew by a factor of {ratio:.3g}).",
        )


def _f_cubic(x):
    return Fixture("cubic", x)  # float(np.sum(x ** 3 + 2.0 * x ** 2)), built where the student's code runs


# How the central difference is taken, said wherever a numerical gradient is off by a transform.
CENTRAL = (
    "numerical_gradient is (f(x+eps) - f(x-eps)) / (2 * eps): the two evaluations lie 2 * eps apart, from "
    "x - eps to x + eps, so the difference is divided by 2 * eps."
)


def loops_over_rows(g, exact) -> bool:
    """``g`` holds one value per row of a 2-D ``x`` (a loop over range(len(x)) nudges whole rows), where the
    true gradient varies along each row."""
    return (
        g.ndim == 2
        and g.shape[1] > 1
        and np.allclose(g, g[:, :1], rtol=1e-9, atol=1e-12)
        and not np.allclose(exact, exact[:, :1])
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
    if loops_over_rows(g, exact):
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
    want = float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))
    got = call("rel_error(a, b)", rel_error, a, b)
    try:
        got = float(got)
    except (TypeError, ValueError):
        raise Diagnosis("wrong-value", f"rel_error should return one float, got {type(got).__name__}.") from None
    if not np.isclose(got, want, rtol=1e-9, atol=0):
        raise Diagnosis(
            "wrong-value",
            f"rel_error(a, b) should be the largest entry of |a - b| / max(1e-12, |a| + |b|), {want:.6g} here; got {got:.6g}.",
        )
    z = call("rel_error(0, 0)", rel_error, np.zeros(4), np.zeros(4))
    if not (np.isfinite(float(z)) and float(z) == 0.0):
        raise Diagnosis(
            "wrong-value", f"rel_error of two zero arrays should be 0.0 (the 1e-12 floor avoids 0/0), got {z}."
        )
