"""Hidden checks for lesson 4: PositionalEmbedding.

The dP diagnosis (``dP_diagnosis``) and the forward helpers are shared with lesson 5, whose
EmbeddingLayer has the same position table.
"""

from __future__ import annotations

import numpy as np

from ..voice import explain
from . import call, expect_array, expect_raises, grading_rng, hidden_check, same_gradient_again, watch
from .boundary import each_layout, laid_out, layout_words, shown_on
from .diagnostics import Diagnosis, relationship, say
from .gradcheck import compare, numerical_gradient

TOO_LONG_ERRORS = (ValueError, AssertionError)  # the contract: ValueError; an AssertionError is accepted
EXACT = dict(rtol=0.0, atol=1e-12)  # forward values are a gather and an add: any correct code is exact


def call_forward(what: str, fn, arg, T: int, block_size: int):
    """``call`` for a forward pass, with a hint when a valid length is refused or the slab has the wrong length."""
    try:
        return fn(arg)
    except NotImplementedError:
        raise Diagnosis("not-implemented", f"{what} still raises NotImplementedError: fill in its stub.") from None
    except Diagnosis:
        raise
    except (Exception, SystemExit) as e:
        text = str(e).strip()
        hint = ""
        if isinstance(e, ValueError) and "broadcast" in text:
            hint = (
                f" The position slab must have shape (T, C) with T = {T}: add P[:T], the first T rows of the table, "
                "not the whole table or a slice of another length."
            )
        elif T == block_size and isinstance(e, TOO_LONG_ERRORS):
            hint = (
                f" A sequence with T == block_size ({T}) is allowed: the table has rows 0..{block_size - 1}, one for "
                "each slot. Only T > block_size must raise."
            )
        raise Diagnosis("crashed", explain(e, what).rstrip(".") + "." + hint) from None


def forward_diagnosis(out, base, P, T, *, base_name: str, idx=None) -> None:
    """Raise the diagnosis for a forward output ``out`` that should be ``base + P[:T]``.

    ``base`` is what forward adds positions to (x in lesson 4, E[idx] in lesson 5); ``idx`` (lesson 5)
    lets a position looked up by token id be recognised.
    """
    want = base + P[:T]
    if np.allclose(out, want, **EXACT):
        return
    block_size = P.shape[0]
    err = float(np.abs(out - want).max())
    if np.allclose(out, base, **EXACT):
        raise say("positions-missing", detail=f"Your forward returned {base_name} alone.")
    if idx is not None and int(np.max(idx)) < block_size and np.allclose(out, base + P[idx], **EXACT):
        b, t = map(int, np.argwhere(idx != np.arange(T))[0])
        raise say(
            "positions-by-token",
            detail=f"Your forward added P[idx], the position row chosen by the token id: at [b, t] = [{b}, {t}] the "
            f"id is {int(idx[b, t])}, so you added P[{int(idx[b, t])}] where P[{t}] belongs.",
        )
    if T < block_size and np.allclose(out, base + P[T], **EXACT):
        raise Diagnosis(
            "wrong-value",
            f"forward added the single row P[T] = P[{T}] to every slot. Slot t gets row t, so add the slab P[:T] "
            f"(rows 0..{T - 1}); the output is off by up to {err:.3g}.",
        )
    if T < block_size and np.allclose(out, base + P[1 : T + 1], **EXACT):
        raise Diagnosis(
            "shifted",
            f"forward added P[1:T+1], the position rows shifted by one: every slot got the row of the slot after it. "
            f"Slots count from 0, so slot t takes row t and the slab is P[:T]; the output is off by up to {err:.3g}.",
        )
    added = out - base
    if np.allclose(added, added[:1], **EXACT):  # one slab for the whole batch: name how it relates to P[:T]
        found = relationship(added[0], P[:T], sizes={"T": T})
        if found is not None:
            raise Diagnosis(
                found[0],
                f"The rows forward added to {base_name} (the same for every sequence) are "
                f"{found[1]}. Slot t of every sequence gets row t of P: add P[:T].",
            )
    worst = np.unravel_index(int(np.argmax(np.abs(out - want))), out.shape)
    b, t = int(worst[0]), int(worst[1])
    raise Diagnosis(
        "wrong-value",
        f"forward(...)[{b}, {t}] should be {base_name}[{b}, {t}] + P[{t}]; the output differs from {base_name} + P[:T] "
        f"by up to {err:.3g} (worst at batch {b}, slot {t}).",
    )


def expect_grad(name: str, got, shape, T: int):
    """expect_array for dP, with a targeted message when the zero rows T: were left off."""
    if (
        isinstance(got, np.ndarray)
        and got.ndim == 2
        and got.shape[0] == T
        and got.shape[1:] == tuple(shape[1:])
        and T != shape[0]
    ):
        raise Diagnosis(
            "wrong-shape",
            f"{name} should have P's full shape {tuple(shape)}, got {got.shape}: dP has a row for every slot of the "
            f"table. Start from np.zeros_like(self.P) and fill rows :T; rows {T} and beyond stay zero.",
        )
    return expect_array(name, got, shape)


def dP_diagnosis(dP, numeric, G, T, prev=None, *, owner: str = "backward") -> None:
    """Compare ``dP`` with the numerical gradient; on failure raise the matching diagnosis.

    ``G`` is the upstream gradient (B, T, C); ``prev`` the dP of the previous backward on the same
    object (to recognise accumulation), or None.
    """
    report = compare("dP", dP, numeric)
    if report.ok:
        return
    B = G.shape[0]
    block_size = dP.shape[0]
    right = numeric[:T]
    head, tail = dP[:T], dP[T:]
    close = lambda a, b: np.allclose(a, b, rtol=1e-6, atol=1e-8)  # noqa: E731 (numeric is good to ~1e-10)
    if prev is not None and close(dP, prev + numeric):
        raise say(
            "grad-accumulates",
            grad="dP",
            table="P",
            detail="Your dP equals the previous backward's dP plus this one's: the gradient keeps growing across "
            "calls.",
        )
    if tail.size and np.any(tail != 0):
        state = (
            "Rows :T are right. "
            if close(head, right)
            else f"Rows :T are off too, by up to {np.abs(head - right).max():.3g}. "
        )
        unused = f"row {T}" if T == block_size - 1 else f"rows {T}..{block_size - 1}"
        stale = (
            " (they look left over from an earlier, longer call)" if prev is not None and close(tail, prev[T:]) else ""
        )
        raise say(
            "dP-tail-not-zero",
            detail=f"This forward used T={T} of the block_size={block_size} slots, so {unused} received no "
            f"gradient, but your dP[{T}:] holds values up to {np.abs(tail).max():.3g}{stale}. "
            f"{state}",
        )
    for b in range(B):
        if close(head, G[b]):
            raise say(
                "dP-not-summed",
                detail=f"Your dP[:T] equals dout[{b}], the gradient of one sequence, but the batch holds B={B} "
                f"sequences (off by up to {np.abs(head - right).max():.3g}).",
            )
    found = relationship(head, G.sum(axis=0), sizes={"B": B}, source=G, reduced_axis=0)
    if found is not None:
        raise Diagnosis(
            found[0],
            f"dP[:T] is {found[1]}. Row t of P was added to slot t of all B = {B} sequences, so "
            "it collects the gradient of each: dP[:T] = dout.sum(axis=0).",
        )
    if np.all(head == 0):
        raise Diagnosis(
            "wrong-gradient",
            f"{owner} left dP[:T] all zero, but rows 0..{T - 1} of P were used: dP[:T] = dout.sum(axis=0).",
        )
    raise Diagnosis("wrong-gradient", f"dP fails the gradient check. {report.describe('position')}.")


def upstream(rng, shape, idx=None, vocab_size=None, floor=0.1):
    """A random upstream gradient G whose entries, batch sums (the true dP) and, given ``idx``, per-id sums (the
    true dE) all stay at least ``floor`` away from zero.

    The check compares relative errors; a true gradient within ~1e-6 of zero would make the ~1e-11 rounding of the
    numerical gradient look like a bug. Offending entries are simply drawn again.
    """
    G = rng.standard_normal(shape)
    for _ in range(200):
        small = np.abs(G) < floor
        G[small] = rng.standard_normal(int(small.sum()))
        cols = np.abs(G.sum(axis=0)) < floor
        G[:, cols] = rng.standard_normal((shape[0], int(cols.sum())))
        bad = small.any() or cols.any()
        if idx is not None:
            sums = np.zeros((vocab_size,) + tuple(shape[2:]))
            np.add.at(sums, idx, G)
            used = np.bincount(np.ravel(idx), minlength=vocab_size) > 0
            rows = used[:, None] & (np.abs(sums) < floor)
            for i, c in zip(*np.nonzero(rows)):
                where = np.nonzero(idx == i)
                G[where[0][0], where[1][0], c] += 2 * floor * (1 if sums[i, c] >= 0 else -1)
            bad = bad or rows.any()
        if not bad:
            return G
    return G


def comparable(name: str, got) -> np.ndarray:
    """A gradient as numbers to compare with the next call's, whatever its shape: a check of whether backward starts
    from zeros judges only that (a gradient of the wrong shape loses the points of the test that checks its shape,
    not these too)."""
    if isinstance(got, np.ndarray) and got.dtype.kind in "biuf":
        return np.array(got, dtype=np.float64, copy=True, subok=False)
    raise Diagnosis("wrong-shape", f"{name} should be a NumPy array, got {type(got).__name__}.")


def pick(rng, lo, hi, avoid=()):
    """A size in [lo, hi) different from every size in ``avoid``.

    The sizes of different axes (B, T, C, block_size, vocab_size) are kept apart wherever a check does not want them
    equal on purpose: a transpose, or a sum over the wrong axis, then never broadcasts into a right-looking result,
    and a submission gets the same verdict whatever sizes are drawn.
    """
    options = [v for v in range(lo, hi) if v not in set(avoid)]
    return int(rng.choice(options))


def parities(rng):
    """The parities of two widths C, one odd and one even, in random order (1 = odd)."""
    return (1, 0) if rng.random() < 0.5 else (0, 1)


def pick_width(rng, parity, avoid=(), lo=2, hi=14):
    """A width C in [lo, hi) of the given parity (1 = odd), different from every size in ``avoid``."""
    options = [v for v in range(lo, hi) if v % 2 == parity and v not in set(avoid)]
    return int(rng.choice(options))


@hidden_check
def positional_forward(PositionalEmbedding):
    rng = grading_rng()
    block_size = int(rng.integers(5, 10))
    # T < block_size first (so a wrong slice shows as a wrong value), then the full window T == block_size;
    # one odd and one even C; B > 1; B, T, C and block_size pairwise distinct
    cases = []
    for parity, T in zip(parities(rng), (pick(rng, 2, block_size), block_size)):
        B = pick(rng, 2, 6, (T, block_size))
        cases.append((B, T, pick_width(rng, parity, (B, T, block_size))))
    for B, T, C in cases:
        pe = call(
            "PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C, seed=int(rng.integers(1 << 30))
        )
        P0 = np.array(pe.P, dtype=np.float64, copy=True)
        x = watch(rng.standard_normal((B, T, C)))  # changing x in place has its own diagnosis
        x0 = x.copy()
        out = call_forward(
            f"PositionalEmbedding.forward for x of shape {(B, T, C)} (block_size={block_size})",
            pe.forward,
            x,
            T,
            block_size,
        )
        out = expect_array(f"forward(x) for x of shape {(B, T, C)}", out, (B, T, C))
        if not np.array_equal(x, x0):
            raise Diagnosis(
                "side-effect",
                "forward changed its input x in place (x += ...); return x + P[:T] as a new "
                "array, the caller still needs x.",
            )
        if not np.array_equal(pe.P, P0):
            raise Diagnosis("side-effect", "forward changed the table P; it should only read its first T rows.")
        forward_diagnosis(out, x0, P0, T, base_name="x")
    for B, T, C, layout in boundary_sizes(rng, block_size):
        pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
        x = laid_out(rng.standard_normal((B, T, C)), layout)
        what = f"forward(x) for x of shape {(B, T, C)}{layout_words(layout, 'x')} (block_size={block_size})"
        out = expect_array(what, call_forward(what, pe.forward, x, T, block_size), (B, T, C))
        forward_diagnosis(out, x, np.asarray(pe.P, dtype=np.float64), T, base_name="x")
    # an optimizer step between two forwards: P is replaced, and the next forward reads the new one
    B, T, C = 2, block_size - 1, 3
    pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
    x = rng.standard_normal((B, T, C))
    old = np.array(call_forward("forward(x)", pe.forward, x, T, block_size), dtype=np.float64, copy=True)
    pe.P = new = rng.standard_normal((block_size, C))
    out = expect_array(
        "forward(x) after self.P was replaced", call_forward("forward(x)", pe.forward, x, T, block_size), x.shape
    )
    stale_forward(out, old, x + new[:T], "P")


def stale_forward(out, old, want, table: str) -> None:
    """The forward after ``table`` was replaced between two forwards must use the new table."""
    if np.allclose(out, want, **EXACT):
        return
    stale = np.allclose(out, old, **EXACT)
    raise Diagnosis(
        "stale-state",
        f"After the table was replaced between two forwards (self.{table} = {table} - lr * d{table}, as an optimizer "
        "step does), forward "
        + ("still returned what it returned before" if stale else f"did not use the new {table}")
        + f": it keeps a copy of its own. Read self.{table} at every call.",
    )


def boundary_sizes(rng, block_size) -> list[tuple]:
    """(B, T, C, layout) of the boundary classes of a batch: one sequence (B = 1), one slot (T = 1), one channel
    (C = 1), and the batch laid out as a transpose and as a strided slice (T < block_size)."""
    B, T = pick(rng, 2, 5, (block_size,)), pick(rng, 2, block_size, ())
    return [
        (1, T, 3, None),
        (B, 1, 3, None),
        (B, T, 1, None),
        *[(*bt, layout) for bt, layout in each_layout(((B, T, 3), (B, T, 2)))],
    ]


@hidden_check
def positional_too_long(PositionalEmbedding):
    rng = grading_rng()
    block_size = int(rng.integers(3, 9))
    T = block_size + int(rng.integers(1, 4))
    C = pick(rng, 2, 8, (2, block_size, T))
    pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
    x = rng.standard_normal((2, T, C))
    expect_raises(
        f"forward with T={T} and block_size={block_size}",
        lambda: pe.forward(x),
        TOO_LONG_ERRORS,
        "the table has no rows for slots block_size and beyond",
    )
    T = int(rng.integers(3, 6))
    C = pick(rng, 2, 8, (1, 2, T))
    pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, 1, C)
    x = rng.standard_normal((2, T, C))
    expect_raises(
        f"forward with T={T} and block_size=1",
        lambda: pe.forward(x),
        TOO_LONG_ERRORS,
        "with block_size=1, NumPy broadcasting adds the single row P[0] to every slot instead of failing, "
        "so compare T with block_size explicitly",
    )


def backward_plans(rng, block_size):
    """(C, [(B, T), ...]) per layer: a fresh layer with B == T < block_size (a sum over the wrong axis shows as a
    value), then one layer used twice, T == block_size and then T < block_size with B != T (stale rows and
    accumulation show). One C is odd, one even; C differs from B, T and block_size."""
    p1, p2 = parities(rng)
    n = int(rng.integers(2, 5))
    B2 = pick(rng, 2, 6, (block_size,))
    T3 = pick(rng, 2, block_size, (B2,))
    B3 = pick(rng, 2, 6, (T3, block_size))
    return [
        (pick_width(rng, p1, (n, block_size)), [(n, n)]),
        (pick_width(rng, p2, (B2, B3, T3, block_size)), [(B2, block_size), (B3, T3)]),
    ]


def distinct_cases(rng, block_size, lo_T=2):
    """(B, T, C) with T < block_size, then with T == block_size: B > 1, one odd and one even C, and B, T, C and
    block_size pairwise distinct, so every check meets a partial and a full window."""
    cases = []
    for parity, T in zip(parities(rng), (pick(rng, lo_T, block_size), block_size)):
        # B below block_size: a batch longer than block_size is the forward's case (its sweep draws it every grading)
        B = pick(rng, 2, min(6, block_size), (T, block_size))
        cases.append((B, T, pick_width(rng, parity, (B, T, block_size))))
    return cases


@hidden_check
def positional_backward_dP(PositionalEmbedding):
    rng = grading_rng()
    block_size = int(rng.integers(5, 9))
    for C, calls in backward_plans(rng, block_size):
        pe = call(
            "PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C, seed=int(rng.integers(1 << 30))
        )
        prev = None
        for B, T in calls:
            x = rng.standard_normal((B, T, C))
            G = upstream(rng, (B, T, C))
            call_forward(f"PositionalEmbedding.forward for x of shape {(B, T, C)}", pe.forward, x, T, block_size)
            call("PositionalEmbedding.backward", pe.backward, G.copy())
            dP = expect_grad(f"self.dP after backward (T={T}, block_size={block_size})", pe.dP, (block_size, C), T)
            dP = np.array(dP, copy=True)
            P = np.array(pe.P, dtype=np.float64, copy=True)
            numeric = numerical_gradient(lambda: np.sum(P[:T] * G), P)  # noqa: B023 - called at once; L = sum((x + P[:T]) * G) less its x part
            dP_diagnosis(dP, numeric, G, T, prev)
            prev = dP
    for B, T, C, layout in boundary_sizes(rng, block_size):
        pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
        G = upstream(rng, (B, T, C))
        call_forward("PositionalEmbedding.forward", pe.forward, rng.standard_normal((B, T, C)), T, block_size)
        call("PositionalEmbedding.backward", pe.backward, laid_out(G, layout))
        what = f"self.dP after backward (B={B}, T={T}, C={C}, block_size={block_size}{layout_words(layout, 'dout')})"
        dP = np.array(expect_grad(what, pe.dP, (block_size, C), T), copy=True)
        with shown_on(what):
            right = np.zeros((block_size, C))
            right[:T] = G.sum(axis=0)
            dP_diagnosis(dP, right, G, T)


@hidden_check
def positional_backward_dx(PositionalEmbedding):
    rng = grading_rng()
    block_size = int(rng.integers(4, 8))
    for B, T, C in distinct_cases(rng, block_size):
        pe = call(
            "PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C, seed=int(rng.integers(1 << 30))
        )
        x = 0.1 * rng.standard_normal((B, T, C))  # a small loss keeps the rounding of the numerical gradient small
        G = upstream(rng, (B, T, C))
        call_forward(f"PositionalEmbedding.forward for x of shape {(B, T, C)}", pe.forward, x, T, block_size)
        dx = call("PositionalEmbedding.backward", pe.backward, G.copy())
        if dx is None:
            raise Diagnosis(
                "wrong-value",
                "backward returned None; it should return the gradient for x, which is dout "
                "itself: out = x + P[:T], so each entry of x passes its gradient through unchanged.",
            )
        dx = expect_array(f"the gradient for x that backward returns (x had shape {(B, T, C)})", dx, (B, T, C))
        numeric = numerical_gradient(lambda: np.sum(x * G), x)  # noqa: B023 - called at once; L = sum((x + P[:T]) * G) less its P part
        report = compare("dx", dx, numeric)
        if not report.ok:
            found = relationship(dx, G, sizes={"B": B, "T": T})
            if found is not None:
                raise Diagnosis(
                    found[0],
                    f"The gradient for x that backward returns is {found[1]}. out = x + P[:T], so "
                    "each entry of x passes its gradient through unchanged: return dout.",
                )
            raise Diagnosis(
                "wrong-gradient",
                f"The returned gradient for x fails the gradient check; it should be dout "
                f"unchanged. {report.describe('batch row')}.",
            )


@hidden_check
def positional_backward_fresh(PositionalEmbedding):
    rng = grading_rng()
    block_size = int(rng.integers(4, 8))
    # a fresh layer for T < block_size and one for T == block_size: every bug that breaks either length is met
    for B, T, C in distinct_cases(rng, block_size):
        pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
        x = rng.standard_normal((B, T, C))
        G = upstream(rng, (B, T, C))
        call_forward(
            f"PositionalEmbedding.forward for x of shape {(B, T, C)} (block_size={block_size})",
            pe.forward,
            x,
            T,
            block_size,
        )
        call("PositionalEmbedding.backward", pe.backward, G.copy())
        first = comparable(f"self.dP after backward (T={T}, block_size={block_size})", pe.dP)
        call("PositionalEmbedding.backward", pe.backward, G.copy())
        second = comparable(f"self.dP after a second backward (T={T}, block_size={block_size})", pe.dP)
        same_gradient_again("dP", first, second)


# --------------------------------------------------------------------------- the input space's trials (hidden.space)


def length(case, rng, block_size) -> int:
    """T as the space's "T" asks: block_size (the last position), 1, an odd one, block_size - 1."""
    odd = [t for t in range(1, block_size + 1, 2)]
    return {
        "block_size": block_size,
        1: 1,
        "odd": int(rng.choice(odd)),
        "block_size - 1": max(1, block_size - 1),
    }[case["T"]]


def dP_of(dout, block_size):
    dP = np.zeros((block_size, dout.shape[-1]))
    dP[: dout.shape[1]] = dout.astype(np.float64).sum(axis=0)
    return dP


def _positional_trial(case, rng):
    from .oracle import RTOL, Result, Trial, described, laid

    bs, B, C = case["block_size"], case["B"], case["C"]
    T = length(case, rng, bs)
    P = rng.integers(-3, 4, size=(bs, C)).astype(float)
    x = laid(rng.integers(-2, 3, size=(B, T, C)).astype(case["x dtype"]), case["x layout"])
    dout = laid(rng.integers(-2, 3, size=(B, T, C)).astype(case["dout dtype"]), case["dout layout"])
    trial = Trial(
        lambda: (
            f"pe = PositionalEmbedding(block_size={bs}, C={C}) with {described('P', P)}, "
            f"pe.forward({described('x', x)})"
        ),
        None,
        tail=lambda: f", pe.backward({described('dout', dout)})",
    )
    gx, gd = trial.given("x", x), trial.given("dout", dout)

    def run(PositionalEmbedding):
        pe = PositionalEmbedding(bs, C)
        pe.P = P.copy()
        trial.stage = "forward"
        out = pe.forward(gx)
        trial.stage = ""
        results = [
            Result(
                "forward(x)",
                out,
                x.astype(np.float64) + P[:T],
                RTOL[case["x dtype"]],
                "forward",
                recall=trial.part != "forward",
            )
        ]
        if trial.part == "forward":
            return results
        dx = pe.backward(gd)
        tol = RTOL[case["dout dtype"]]
        return results + [
            Result("dP", pe.dP, dP_of(dout, bs), tol, part="backward"),
            Result("gradient for x that backward returns", dx, dout.astype(np.float64), tol, part="backward"),
        ]

    trial.run = run
    return trial


def _too_long_trial(case, rng, layer=False):
    from .oracle import Trial, described

    bs, B, C = case["block_size"], case["B"], 2
    T = bs + 1 if case["too long"] == "block_size + 1" else 2 * bs
    if layer:
        V = 3
        idx = rng.integers(0, V, size=(B, T))
        trial = Trial(
            f"EmbeddingLayer(vocab_size={V}, block_size={bs}, C={C}).forward({described('idx', idx)})",
            None,
            raises=(ValueError, AssertionError),
        )
        trial.run = lambda cls: [cls(V, bs, C).forward(idx)]
        return trial
    x = rng.integers(-2, 3, size=(B, T, C)).astype(float)
    trial = Trial(
        f"PositionalEmbedding(block_size={bs}, C={C}).forward({described('x', x)})",
        None,
        raises=(ValueError, AssertionError),
    )
    trial.run = lambda cls: [cls(bs, C).forward(x)]
    return trial


class PositionalMachine:
    """PositionalEmbedding driven through call sequences (hidden.oracle.sequences)."""

    tables, grads, flag = ("P",), ("dP",), ""

    def __init__(self, rng):
        self.rng = rng
        self.bs, self.C = int(rng.integers(2, 4)), int(rng.integers(1, 3))
        self.P = rng.integers(-2, 3, size=(self.bs, self.C)).astype(float)
        self.seed = constructor_seed(rng)

    def construct(self, PositionalEmbedding):
        return PositionalEmbedding(self.bs, self.C, **seed_kwargs(self.seed))

    def constructor_words(self) -> str:
        return f"pe = PositionalEmbedding(block_size={self.bs}, C={self.C}{seed_words(self.seed)})"

    def initial_tables(self) -> dict:
        return {"P": self.P}

    def first_tables(self) -> dict:
        return drawn_tables(self.seed, {"P": (self.bs, self.C)})

    def new_input(self, shape=None):
        if shape is None:
            shape = (int(self.rng.integers(1, 3)), int(self.rng.integers(1, self.bs + 1)), self.C)
        return self.rng.integers(-2, 3, size=shape).astype(float)

    def new_dout(self, x):
        return self.rng.integers(-2, 3, size=np.shape(x)).astype(float)

    def reference_forward(self, tables, x):
        return x + tables["P"][: x.shape[1]]

    def reference_backward(self, tables, x, dout, flag):
        return dout, {"dP": dP_of(dout, self.bs)}


from .oracle import constructor_seed, cover, drawn_tables, seed_kwargs, seed_words, sequencing, sweeping  # noqa: E402 - after the checks it extends

UNIT = "PositionalEmbedding(block_size, C)"
cover(
    globals(),
    {
        "positional_forward": sweeping(UNIT, _positional_trial, "forward"),
        "positional_too_long": sweeping(UNIT, _too_long_trial, invalid=True),
        "positional_backward_dP": sweeping(UNIT, _positional_trial, "backward"),
        "positional_backward_fresh": sequencing(
            UNIT, PositionalMachine, ("positional_forward", "positional_backward_dP", "positional_backward_dx")
        ),
    },
)
