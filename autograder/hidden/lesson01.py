"""Hidden checks for lesson 1: softmax, self_attention, permutation_gap.

Partial credit is split on purpose:
- ``softmax_values`` judges the values and the axis on moderate inputs (an unstable softmax passes),
  ``softmax_stable`` judges inputs around +-1e3;
- ``attention_values`` judges the structure of attention (projections, softmax over the keys, the
  weighted sum of the values) and accepts any constant scale of the scores; ``attention_scaling``
  judges the scale 1/sqrt(hs);
- ``permutation_gap_*`` compare the student's gap with the gap computed from the student's own
  ``self_attention`` (or the reference one), so a fault in attention is not charged twice.
When attention is wrong, the checks find out whether the fault is really in the student's softmax.
The catalogued mistakes these checks recognise are told through ``say`` (the calls below name them), in
the words the notebook's self-checks use; a softmax or an attention that normalises over the wrong axis is the relationship
``wrong-axis``, an output with two axes swapped ``transposed``.
"""

from __future__ import annotations

import numpy as np

from ..voice import explain
from . import call, expect_array, grading_rng, hidden_check, watch
from .boundary import each_layout, laid_out, layout_words
from .diagnostics import Diagnosis, fmt, relationship, say

# --------------------------------------------------------------------------- references


def _softmax(x, axis=-1):
    z = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def _scores(X, Wq, Wk, scale):
    return (X @ Wq) @ (X @ Wk).swapaxes(-1, -2) * scale


def _attention(X, Wq, Wk, Wv, scale=None, softmax=_softmax):
    if scale is None:
        scale = 1.0 / np.sqrt(Wq.shape[1])
    return softmax(_scores(X, Wq, Wk, scale)) @ (X @ Wv)


def _scales(C, hs):
    """Scale factors of the scores a student may have used; the first is the right one."""
    return {
        "1/sqrt(hs)": 1.0 / np.sqrt(hs),
        "none": 1.0,
        "1/hs": 1.0 / hs,
        "1/sqrt(C)": 1.0 / np.sqrt(C),
        "1/C": 1.0 / C,
        "*sqrt(hs)": np.sqrt(hs),
    }


def _same(a, b, rtol=1e-7, atol=1e-10) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=False))


def _weights(X, Wq, Wk, scale):
    return _softmax(_scores(X, Wq, Wk, scale))


# --------------------------------------------------------------------------- softmax


def _describe_softmax(got, x, axis, default_axis=False):
    """None when ``got`` is softmax(x, axis); else (id, a sentence saying what is wrong)."""
    want = _softmax(x, axis)
    if _same(got, want, rtol=1e-9, atol=1e-12):
        return None
    nd = x.ndim
    ax = axis % nd
    call_text = "softmax(x)" if default_axis else f"softmax(x, axis={axis})"
    if not np.all(np.isfinite(got)):
        return "wrong-value", (
            f"{call_text} returned {int(np.sum(~np.isfinite(got)))} non-finite value(s) (inf or nan) "
            f"for inputs between {x.min():.3g} and {x.max():.3g}."
        )
    for other in range(nd):
        if other != ax and _same(got, _softmax(x, other)):
            if default_axis:
                return "wrong-axis", (
                    f"softmax(x) with the default axis should normalise along the last axis (axis=-1), "
                    f"so every slice along it sums to 1; yours normalises along axis {other}. Check the "
                    "default value of the axis parameter."
                )
            hint = " The axis argument seems to be ignored:" if other == nd - 1 else ""
            return "wrong-axis", (
                f"{call_text} should make every slice along axis {axis} sum to 1, but yours normalises "
                f"along axis {other}.{hint} pass axis on to both the max and the sum (with keepdims=True)."
            )
    e = np.exp(x - x.max())
    if _same(got, e / e.sum()):
        return "wrong-value", (
            f"{call_text} divides by the sum over the whole array, so all entries together sum to 1; "
            f"each slice along axis {axis} must sum to 1 on its own: sum along axis={axis} with "
            "keepdims=True."
        )
    for max_keep in (True, False):
        for sum_keep in (True, False):
            if max_keep and sum_keep:
                continue
            try:
                z = x - np.max(x, axis=axis, keepdims=max_keep)
                ez = np.exp(z)
                variant = ez / np.sum(ez, axis=axis, keepdims=sum_keep)
            except ValueError:
                continue
            if _same(got, variant):
                which = (
                    "the max and the sum" if not (max_keep or sum_keep) else ("the max" if not max_keep else "the sum")
                )
                return "wrong-value", (
                    f"{call_text} is off because {which} along axis {axis} lost that axis and "
                    f"broadcast against the wrong axis of x: reduce with keepdims=True so the result "
                    "lines up with x."
                )
    for other in range(nd):
        if other == ax:
            continue
        ez = np.exp(x - np.max(x, axis=other, keepdims=True))
        if _same(got, ez / np.sum(ez, axis=axis, keepdims=True)):
            return "wrong-value", (
                f"{call_text} subtracts the max along axis {other} but normalises along axis {axis}; "
                f"the shift only cancels when it is constant along the normalised axis: take the max "
                f"along axis {axis}."
            )
    found = relationship(got, want, sizes={f"x.shape[{axis}]": x.shape[ax]})
    if found is not None:
        return found[0], f"{call_text} is {found[1]}: every slice along axis {axis} should sum to 1."
    sums = np.sum(got, axis=axis)
    if not np.allclose(sums, 1.0):
        return "wrong-value", (
            f"{call_text}: every slice along axis {axis} should sum to 1; yours sum to values between "
            f"{sums.min():.6g} and {sums.max():.6g}."
        )
    err = np.abs(got - want)
    where = np.unravel_index(int(np.argmax(err)), err.shape)
    where_txt = ", ".join(str(int(i)) for i in where)
    return "wrong-value", (
        f"{call_text} is off by up to {err.max():.3g}; entry [{where_txt}] should be {want[where]:.6g}, "
        f"got {got[where]:.6g}."
    )


def _unshifted(x, axis, shift):
    """softmax-unstable's model: the softmax of x less ``shift`` (not the slice's maximum), overflow and all."""
    with np.errstate(all="ignore"):
        e = np.exp(x - shift)
        return e / np.sum(e, axis=axis, keepdims=True)


def _call_softmax(softmax, x, axis):
    what = "softmax(x)" if axis is None else f"softmax(x, axis={axis})"
    try:
        return softmax(x) if axis is None else softmax(x, axis=axis)
    except NotImplementedError:
        raise Diagnosis("not-implemented", "softmax still raises NotImplementedError: fill in its stub.") from None
    except ValueError as e:
        hint = (
            " (reduce along the axis with keepdims=True so the result broadcasts against x)"
            if "broadcast" in str(e)
            else ""
        )
        raise Diagnosis("crashed", explain(e, f"{what} for x of shape {x.shape}") + hint) from None
    except Exception as e:
        raise Diagnosis("crashed", explain(e, f"{what} for x of shape {x.shape}")) from None


def _softmax_case(softmax, x, axis):
    x0 = watch(x).copy()  # changing x in place has its own diagnosis
    got = _call_softmax(softmax, x, axis)
    label = "softmax(x)" if axis is None else f"softmax(x, axis={axis})"
    if not np.array_equal(x, x0, equal_nan=True):
        raise Diagnosis(
            "side-effect",
            f"{label} changed its input x (by up to {np.nanmax(np.abs(x - x0)):.3g}). Build a new array, "
            "e.g. z = x - x.max(axis=axis, keepdims=True), instead of x -= ... which overwrites the caller's scores.",
        )
    got = expect_array(f"{label} for x of shape {x.shape}", got, x0.shape)
    return got, x0


def _dims(rng, n, lo=2, hi=7):
    """n distinct sizes in [lo, hi)."""
    return [int(v) for v in rng.choice(np.arange(lo, hi), size=n, replace=False)]


@hidden_check
def softmax_values(softmax):
    rng = grading_rng()
    k = int(rng.integers(3, 7))
    a, b = _dims(rng, 2)
    p, q, r = _dims(rng, 3)
    cases = [
        ((int(rng.integers(3, 9)),), None),
        ((k, k), None),  # square: a missing keepdims shows as wrong values, not a crash
        ((a, b), 0),
        ((p, q, r), 1),
        ((q, r, p), -1),
    ]
    for shape, axis in cases:
        x = rng.normal(0.0, 2.0, size=shape) + rng.normal(0.0, 3.0)
        got, x0 = _softmax_case(softmax, x, axis)
        problem = _describe_softmax(got, x0, -1 if axis is None else axis, default_axis=axis is None)
        if problem:
            raise Diagnosis(*problem)
    # the boundary classes: one entry, slices of length 1, x laid out as a transpose and as a strided slice, and a
    # second call on an x of the same shape (a result kept from the first call is a cache keyed on too little)
    n = int(rng.integers(3, 6))
    for (shape, axis), layout in (
        (((1,), None), None),
        (((1, n), 0), None),
        *each_layout((((n, n + 1), -1), ((2, n, 3), 1))),
    ):
        x = laid_out(rng.normal(0.0, 2.0, size=shape), layout)
        got, x0 = _softmax_case(softmax, x, axis)
        problem = _describe_softmax(got, x0, -1 if axis is None else axis, default_axis=axis is None)
        if problem:
            raise Diagnosis(problem[0], f"For x of shape {shape}{layout_words(layout, 'x')}: {problem[1]}")
    x = rng.normal(0.0, 2.0, size=(2, n))
    first, _ = _softmax_case(softmax, x, None)
    again, x0 = _softmax_case(softmax, x[::-1] * 2.0 + 1.0, None)
    if _describe_softmax(again, x0, -1, default_axis=True) is not None:
        stale = _same(again, first)
        raise Diagnosis(
            "stale-state" if stale else "wrong-value",
            f"A second call softmax(x) with another x of the same shape {x.shape} "
            + (
                "returned the first call's result: softmax keeps a result keyed on too little (the shape). "
                "Compute it from x at every call."
                if stale
                else "is wrong, though the first call was right."
            ),
        )


@hidden_check
def softmax_stable(softmax):
    rng = grading_rng()
    n = int(rng.integers(3, 8))
    a, b, c = _dims(rng, 3)
    centre_rows = np.array([1000.0, 0.0, -1000.0])[rng.permutation(3)]
    cases = [
        (1000.0 + rng.normal(0, 3, size=(int(rng.integers(2, 5)), n)), None, "around 1e3"),
        (-1000.0 + rng.normal(0, 3, size=n), None, "around -1e3"),
        (1000.0 + rng.normal(0, 3, size=(a, b, c)), 0, "around 1e3"),
        (centre_rows[:, None] + rng.normal(0, 3, size=(3, n)), -1, "with rows around 1e3, 0 and -1e3"),
    ]
    # the boundary of the scores' range: one slice whose spread exceeds what exp can hold (about 709), where
    # subtracting anything but the slice's maximum (its mean, its minimum, a constant) overflows
    spread = np.array([-800.0, 0.0, 800.0])[rng.permutation(3)] + rng.normal(0, 3, size=3)
    cases.append((np.stack([spread, rng.normal(0, 3, size=3)]), -1, "with one row spread from -800 to 800"))
    for x, axis, where in cases:
        got, x0 = _softmax_case(softmax, x, axis)
        ax = -1 if axis is None else axis
        label = "softmax(x)" if axis is None else f"softmax(x, axis={axis})"
        if _describe_softmax(got, x0, ax) is None:
            continue
        bad = ~np.isfinite(got)
        if bad.any():
            slice_at = np.unravel_index(int(np.argmax(bad)), bad.shape)
            idx = list(slice_at)
            idx[ax] = slice(None)
            xs, gs = x0[tuple(idx)], got[tuple(idx)]
            e = np.exp(x0 - x0.max())
            global_max = e / np.sum(e, axis=ax, keepdims=True)
            if (
                where.startswith("with rows")
                and bad.shape == global_max.shape
                and np.array_equal(bad, ~np.isfinite(global_max))
            ):
                raise say(
                    "softmax-unstable",
                    detail=(
                        f"Subtract the max along the axis you normalise, not the max of the whole array: in {label} for x "
                        f"{where}, the slice {fmt(xs)} lies {x0.max() - xs.max():.0f} below the overall max, every exp in it "
                        f"underflows to 0 and it becomes 0/0 (it gave {fmt(gs)})."
                    ),
                )
            shifts = {
                "nothing": 0.0,
                "the mean": np.mean(x0, axis=ax, keepdims=True),
                "the minimum": np.min(x0, axis=ax, keepdims=True),
            }
            if not any(np.array_equal(bad, ~np.isfinite(_unshifted(x0, ax, c))) for c in shifts.values()):
                # inf/nan, but not where a softmax without the max's shift overflows: a mistake of another kind
                raise Diagnosis(
                    "wrong-value",
                    f"{label} for x {where} gave {int(bad.sum())} inf/nan value(s), e.g. softmax({fmt(xs)}) = "
                    f"{fmt(gs)}; every slice of a softmax is finite and sums to 1.",
                )
            if where.startswith("with one row spread"):  # every case before passed: it subtracts something else
                raise say(
                    "softmax-unstable",
                    detail=(
                        f"{label} for x {where} gave {int(bad.sum())} inf/nan value(s), e.g. softmax({fmt(xs)}) = "
                        f"{fmt(gs)}: subtracting the slice's mean or minimum (any shift but its maximum) still leaves "
                        "some exp(z) above what float64 holds (about exp(709)) when the slice spreads this wide."
                    ),
                )
            raise say(
                "softmax-unstable",
                detail=(
                    f"{label} for x {where} gave {int(bad.sum())} inf/nan value(s), e.g. softmax({fmt(xs)}) = {fmt(gs)}: "
                    "the ratio became inf/inf or 0/0."
                ),
            )
        kind, text = _describe_softmax(got, x0, ax, default_axis=axis is None)
        raise Diagnosis(kind, f"for x {where}: {text}")


# --------------------------------------------------------------------------- self_attention


def _softmax_fault(softmax, rng):
    """What is wrong with the student's softmax on (B, T, T) scores along the last axis, or None."""
    s = rng.normal(0.0, 1.5, size=(2, 3, 4))
    want = _softmax(s, -1)
    for label, form in (
        ("softmax(scores)", lambda v: softmax(v)),
        ("softmax(scores, axis=-1)", lambda v: softmax(v, axis=-1)),
    ):
        v = s.copy()
        try:
            got = form(v)
        except NotImplementedError:
            return "softmax still raises NotImplementedError"
        except Exception as e:
            return f"{label} raises {type(e).__name__}: {e}"
        if not isinstance(got, np.ndarray) or got.shape != s.shape:
            return f"{label} for scores of shape {s.shape} returns shape {np.shape(got)}"
        if not _same(got, want, rtol=1e-9, atol=1e-12):
            _, problem = _describe_softmax(
                np.asarray(got, dtype=np.float64), s, -1, default_axis=label == "softmax(scores)"
            )
            return problem.replace("softmax(x)", label)
    return None


def _student_softmax_versions(softmax):
    yield lambda v: softmax(v)
    yield lambda v: softmax(v, axis=-1)


ATTENTION_VARIANTS = {  # name -> (the wrong attention, the id it is told with, what is wrong)
    "softmax-queries": (
        lambda X, Wq, Wk, Wv, s: _softmax(_scores(X, Wq, Wk, s), axis=-2) @ (X @ Wv),
        "wrong-axis",
        "the softmax runs over the queries (axis -2 / axis 1), so each column of the weights sums to 1. It must run "
        "over the keys, the last axis: row t of the weights is how query t spreads its attention, and it sums to 1.",
    ),
    "softmax-batch": (
        lambda X, Wq, Wk, Wv, s: _softmax(_scores(X, Wq, Wk, s), axis=0) @ (X @ Wv),
        "wrong-axis",
        "the softmax runs over the batch axis (axis 0), mixing different sequences. It must run over the keys, the "
        "last axis of the (B, T, T) scores: softmax(scores, axis=-1).",
    ),
    "weights-transposed": (
        lambda X, Wq, Wk, Wv, s: _weights(X, Wq, Wk, s).swapaxes(-1, -2) @ (X @ Wv),
        "wrong-value",
        "the attention weights are transposed before multiplying V: the output is weights @ V, with row t of the "
        "weights (query t over all keys) averaging the values.",
    ),
    "keys-times-queries": (
        lambda X, Wq, Wk, Wv, s: _softmax(_scores(X, Wk, Wq, s)) @ (X @ Wv),
        "wrong-value",
        "the scores are K @ Q^T (keys by queries) instead of Q @ K^T: entry [t, s] must compare query t with key s "
        "(or Wq and Wk are swapped).",
    ),
    "no-softmax": (
        lambda X, Wq, Wk, Wv, s: _scores(X, Wq, Wk, s) @ (X @ Wv),
        "wrong-value",
        "the scores multiply V directly: turn them into weights with softmax over the last axis first.",
    ),
    "no-value-projection": (
        lambda X, Wq, Wk, Wv, s: _weights(X, Wq, Wk, s) @ X,
        "wrong-value",
        "the weights average the inputs X instead of the values: the output is weights @ V with V = X @ Wv "
        "(the value projection).",
    ),
    "values-with-wq": (
        lambda X, Wq, Wk, Wv, s: _weights(X, Wq, Wk, s) @ (X @ Wq),
        "wrong-value",
        "the values are projected with Wq: V = X @ Wv.",
    ),
    "values-with-wk": (
        lambda X, Wq, Wk, Wv, s: _weights(X, Wq, Wk, s) @ (X @ Wk),
        "wrong-value",
        "the values are projected with Wk: V = X @ Wv.",
    ),
}


def _raised_in(error, fn) -> bool:
    """True if ``error`` was raised inside the function ``fn``."""
    frames = getattr(error, "remote_frames", None)
    if frames is not None:  # raised in the student's kernel: the channel names the functions it went through
        return getattr(fn, "__name__", None) in frames
    code = getattr(fn, "__code__", None)
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return True
        tb = tb.tb_next
    return False


def _run_attention(self_attention, softmax, rng, X, Wq, Wk, Wv):
    B, T, C = X.shape
    hs = Wq.shape[1]
    saved = [watch(a).copy() for a in (X, Wq, Wk, Wv)]  # changing an input has its own diagnosis
    try:
        out = self_attention(X, Wq, Wk, Wv)
    except NotImplementedError as e:
        if _raised_in(e, softmax):
            raise Diagnosis(
                "not-implemented",
                "self_attention calls softmax, which still raises NotImplementedError: fill in softmax first.",
            ) from None
        raise Diagnosis(
            "not-implemented", "self_attention still raises NotImplementedError: fill in its stub."
        ) from None
    except (Exception, SystemExit) as e:
        message = explain(e, "self_attention(X, Wq, Wk, Wv)", sizes={"B": B, "T": T, "C": C, "hs": hs})
        if "matmul" in str(e):
            message += (
                " (on a 3-D array K.T reverses all three axes; transpose only the last two, "
                "K.swapaxes(-1, -2), and check the shapes of Q, K and V)"
            )
        fault = _softmax_fault(softmax, rng)
        if fault:
            message += f"\nIt calls your softmax, which is where the fault is: {fault}"
        raise Diagnosis("crashed", message) from None
    for name, a, a0 in zip(("X", "Wq", "Wk", "Wv"), (X, Wq, Wk, Wv), saved):
        if not np.array_equal(a, a0):
            raise Diagnosis("side-effect", f"self_attention changed its input {name}; it should only read it.")
    if isinstance(out, np.ndarray) and out.shape != (B, T, hs):
        try:
            found = relationship(out, _attention(X, Wq, Wk, Wv))
        except (TypeError, ValueError):
            found = None
        if found is not None and found[0] == "transposed":
            raise Diagnosis(
                "transposed",
                f"self_attention(X, Wq, Wk, Wv) for X of shape {X.shape} and W of shape ({C}, "
                f"{hs}) is {found[1]}: it should have shape (B, T, hs) = {(B, T, hs)}, got "
                f"{out.shape}.",
            )
        if out.shape == (B, T, C) and C != hs:
            raise Diagnosis(
                "wrong-shape",
                f"self_attention for X {X.shape} and W of shape ({C}, {hs}) returned shape {out.shape}, the width C = {C} "
                f"of X, not the head size hs = {hs}: the output is weights @ V with V = X @ Wv (the value projection), "
                f"so it should have shape {(B, T, hs)}.",
            )
        if out.shape == (B, T, T) and T != hs:
            raise Diagnosis(
                "wrong-shape",
                f"self_attention returned shape {out.shape}, the shape of the attention weights; the output is "
                f"weights @ V, shape {(B, T, hs)}.",
            )
    return expect_array(
        f"self_attention(X, Wq, Wk, Wv) for X of shape {X.shape} and W of shape ({C}, {hs})", out, (B, T, hs)
    )


def _classify_attention(out, X, Wq, Wk, Wv, softmax, rng, lead):
    """Raise the most specific diagnosis for a wrong attention output."""
    C, hs = Wq.shape
    scales = _scales(C, hs)
    fault = _softmax_fault(softmax, rng)
    if fault:
        for version in _student_softmax_versions(softmax):
            for s in scales.values():
                try:
                    with np.errstate(all="ignore"):
                        candidate = _attention(X, Wq, Wk, Wv, s, softmax=version)
                except Exception:
                    continue
                if _same(out, candidate):
                    raise Diagnosis(
                        "wrong-value",
                        f"{lead} self_attention itself looks right, but it calls your softmax, which is wrong: {fault} "
                        "Fix softmax (its own test says more) and this test passes too.",
                    )
    for variant, kind, why in ATTENTION_VARIANTS.values():
        for s in scales.values():
            candidate = variant(X, Wq, Wk, Wv, s)
            if _same(out, candidate):
                raise Diagnosis(kind, f"{lead} In your self_attention {why}")
    want = _attention(X, Wq, Wk, Wv)
    B, T, _ = X.shape
    found = relationship(out, want, sizes={"B": B, "T": T, "hs": hs})
    if found is not None:
        note = f"\nYour softmax is also wrong: {fault}" if fault else ""
        raise Diagnosis(found[0], f"{lead} self_attention(X, Wq, Wk, Wv) is {found[1]}.{note}")
    err = np.abs(out - want)
    b, t, j = (int(i) for i in np.unravel_index(int(np.argmax(err)), err.shape))
    note = f"\nYour softmax is also wrong: {fault}" if fault else ""
    raise Diagnosis(
        "wrong-value",
        f"{lead} self_attention(X, Wq, Wk, Wv) differs from softmax(Q K^T / sqrt(hs)) @ V by up to {err.max():.3g}: "
        f"out[{b}, {t}, {j}] should be {want[b, t, j]:.6g}, got {out[b, t, j]:.6g}. Check Q = X @ Wq, K = X @ Wk, "
        f"V = X @ Wv, the scores Q @ K.swapaxes(-1, -2), the softmax over the last axis, and weights @ V.{note}",
    )


def _size(rng, lo, hi, *avoid):
    """A size in [lo, hi) different from every size in ``avoid``.

    Sizes of different axes (B, T, C, hs, block_size) are kept apart wherever a check does not want them equal on
    purpose, so a transpose or a reduction that lost its axis can never broadcast into a right-looking result.
    """
    options = [v for v in range(lo, hi) if v not in avoid]
    return int(rng.choice(options))


def _draw_attention(rng, B, T, C, hs):
    X = rng.standard_normal((B, T, C))
    Ws = [rng.standard_normal((C, hs)) / np.sqrt(C) for _ in range(3)]
    return X, Ws


@hidden_check
def attention_values(self_attention, softmax):
    rng = grading_rng()
    # B, T, C and hs pairwise distinct (but hs == C in the second case and hs == 1 in the third, on purpose)
    B1 = int(rng.integers(2, 4))
    T1 = _size(rng, 3, 7, B1)
    C1 = _size(rng, 3, 8, B1, T1)
    hs1 = _size(rng, C1 - 1, C1 + 3, B1, T1, C1)
    T2 = int(rng.integers(3, 7))
    C2 = _size(rng, 2, 7, 2, T2)
    B3 = int(rng.integers(2, 4))
    T3 = _size(rng, 4, 8, B3)
    C3 = _size(rng, 2, 6, B3, T3)
    cases = [
        (B1, T1, C1, hs1),  # hs != C
        (2, T2, C2, C2),  # hs == C
        (B3, T3, C3, 1),  # hs == 1
    ]
    for B, T, C, hs in cases:
        X, (Wq, Wk, Wv) = _draw_attention(rng, B, T, C, hs)
        out = _run_attention(self_attention, softmax, rng, X, Wq, Wk, Wv)
        # this test is about the structure; the scale of the scores is judged by attention_scaling
        if any(_same(out, _attention(X, Wq, Wk, Wv, s)) for s in _scales(C, hs).values()):
            continue
        _classify_attention(out, X, Wq, Wk, Wv, softmax, rng, f"For X of shape {X.shape} and hs = {hs}:")
    # the boundary classes: one sequence (B = 1), one token (T = 1), one channel (C = 1), X laid out as a transpose
    b, t = int(rng.integers(2, 4)), int(rng.integers(3, 6))
    for (B, T, C, hs), layout in (
        ((1, t, 3, 2), None),
        ((b, 1, 3, 2), None),
        ((b, t, 1, 2), None),
        *each_layout(((b, t, 3, 2),)),
    ):
        X, (Wq, Wk, Wv) = _draw_attention(rng, B, T, C, hs)
        X = laid_out(X, layout)
        lead = f"For X of shape {X.shape}{layout_words(layout, 'X')} and hs = {hs}:"
        out = _run_attention(self_attention, softmax, rng, X, Wq, Wk, Wv)
        if not any(_same(out, _attention(X, Wq, Wk, Wv, s)) for s in _scales(C, hs).values()):
            _classify_attention(out, X, Wq, Wk, Wv, softmax, rng, lead)


@hidden_check
def attention_scaling(self_attention, softmax):
    rng = grading_rng()
    hs_even = int(rng.choice([8, 10, 12, 16]))
    hs_odd = int(rng.choice([7, 9, 11, 15]))
    for hs in (hs_even, hs_odd):
        C = hs + int(rng.choice([-3, -2, 2, 3]))
        B = int(rng.integers(2, 4))
        T = _size(rng, 3, 7, B, C)
        X, (Wq, Wk, Wv) = _draw_attention(rng, B, T, C, hs)
        out = _run_attention(self_attention, softmax, rng, X, Wq, Wk, Wv)
        if _same(out, _attention(X, Wq, Wk, Wv)):
            continue
        root = np.sqrt(hs)
        scales = _scales(C, hs)
        details = {
            "none": f"with hs = {hs} every score should be divided by sqrt({hs}) = {root:.4g}, but your output matches "
            "unscaled scores Q @ K^T. Unscaled scores grow with the head size and push the softmax towards "
            "one-hot weights.",
            "1/hs": f"your output matches Q @ K^T / {hs}, divided by the head size itself; divide by sqrt({hs}) = "
            f"{root:.4g} instead.",
            "1/sqrt(C)": f"your output matches Q @ K^T / sqrt({C}): the head size is hs = Wq.shape[1] = {hs}, not the "
            f"width of X, C = {C}.",
            "1/C": f"your output matches Q @ K^T / {C}, the width of X; divide by sqrt(hs) = sqrt({hs}) = {root:.4g}.",
            "*sqrt(hs)": f"your output matches Q @ K^T * sqrt({hs}): divide by sqrt(hs), don't multiply.",
        }
        for name, detail in details.items():
            if _same(out, _attention(X, Wq, Wk, Wv, scales[name])):
                raise say("attention-unscaled", detail=f"For X of shape {X.shape} and hs = {hs}: {detail}")
        _classify_attention(out, X, Wq, Wk, Wv, softmax, rng, f"For X of shape {X.shape} and hs = {hs}:")


# --------------------------------------------------------------------------- permutation_gap


def _perm(rng, T):
    """A permutation of T >= 3 slots that is neither the identity nor its own inverse."""
    while True:
        p = rng.permutation(T)
        if not np.array_equal(p[p], np.arange(T)):
            return p


def _as_gap(got, label):
    if isinstance(got, np.ndarray) and got.size != 1:
        raise Diagnosis(
            "wrong-value",
            f"{label} should return one float (the largest absolute difference), got an array of shape {got.shape}.",
        )
    try:
        value = float(got)
    except (TypeError, ValueError):
        raise Diagnosis("wrong-value", f"{label} should return one float, got {type(got).__name__}.") from None
    return value


def _gap_parts(sa, X, perm, Wq, Wk, Wv, P):
    T = X.shape[1]
    pos = 0.0 if P is None else P[:T]
    first = sa(X[:, perm] + pos, Wq, Wk, Wv)
    full = sa(X + pos, Wq, Wk, Wv)
    return pos, np.asarray(first, dtype=np.float64), np.asarray(full, dtype=np.float64)


def _correct_gap(sa, X, perm, Wq, Wk, Wv, P):
    _, first, full = _gap_parts(sa, X, perm, Wq, Wk, Wv, P)
    return float(np.max(np.abs(first - full[:, perm])))


def _gap_variants(sa, X, perm, Wq, Wk, Wv, P):
    """name -> (value, explanation) for the wrong gaps students compute."""
    pos, first, full = _gap_parts(sa, X, perm, Wq, Wk, Wv, P)
    after = full[:, perm]
    d = first - after
    m = lambda a: float(np.max(np.abs(a)))  # noqa: E731
    out = {
        "output-not-permuted": (
            m(first - full),
            "compares self_attention(X[:, perm] + pos) with self_attention(X + pos) without "
            "shuffling the second output: row t of the first belongs to token perm[t], so compare "
            "it with self_attention(X + pos)[:, perm].",
        ),
        "input-not-permuted": (
            m(full - after),
            "compares self_attention(X + pos) with its own shuffled copy: the first term must "
            "attend over the shuffled tokens, self_attention(X[:, perm] + pos, ...).",
        ),
        "inverse-permutation": (
            m(first - full[:, np.argsort(perm)]),
            "shuffles the output with the inverse permutation: to line up with "
            "self_attention(X[:, perm] + pos), index the other output with the same perm, [:, perm].",
        ),
        "mean": (
            float(np.mean(np.abs(d))),
            "returns the mean absolute difference; the gap is the largest one, np.max(np.abs(...)).",
        ),
        "sum": (
            float(np.sum(np.abs(d))),
            "returns the sum of the absolute differences; the gap is the largest one, np.max(np.abs(...)).",
        ),
        "norm": (
            float(np.linalg.norm(d)),
            "returns the norm of the difference; the gap is the largest absolute entry, np.max(np.abs(...)).",
        ),
        "signed": (
            float(np.max(d)),
            "returns the largest signed difference; take the absolute value first, np.max(np.abs(...)).",
        ),
        "signed-reversed": (
            float(np.max(-d)),
            "returns the largest signed difference; take the absolute value first, np.max(np.abs(...)).",
        ),
    }
    if P is not None:
        plain = np.asarray(sa(X, Wq, Wk, Wv), dtype=np.float64)
        plain_first = np.asarray(sa(X[:, perm], Wq, Wk, Wv), dtype=np.float64)
        out["pos-only-shuffled"] = (
            m(first - plain[:, perm]),
            "adds pos only to the shuffled input; add the same pos = P[:T] to both inputs, "
            "X[:, perm] + pos and X + pos.",
        )
        out["pos-only-reference"] = (
            m(plain_first - after),
            "adds pos only to the unshuffled input; add the same pos = P[:T] to both inputs, "
            "X[:, perm] + pos and X + pos.",
        )
        if first.shape[-1] == pos.shape[-1]:
            out["pos-after-attention"] = (
                m((plain_first + pos) - (plain + pos)[:, perm]),
                "adds the positions to the output of attention; they must go into its input, "
                "self_attention(X[:, perm] + pos, ...): after attention the order is already lost.",
            )
    return out


def _variant_confirmed(permutation_gap, self_attention, name: str, with_pos: bool, cases: int = 3) -> bool:
    """Whether the student's gap is the variant ``name`` on fresh cases too.  A gap is one number, and on one case
    two different mistakes can give the same number (one sequence's gap and the largest signed difference, say):
    a mistake is named only when its model gives the student's number on every one of these cases."""
    rng = np.random.default_rng(len(name) + 1000 * with_pos)  # fixed: the same submission is told the same thing
    for _ in range(cases):
        B = int(rng.integers(2, 4))
        T = _size(rng, 3, 8, B)
        C = _size(rng, 3, 7, B, T)
        X, perm, Ws, P = _gap_case(rng, B, T, C, _size(rng, 2, 8, B, T, C), T + 1 if with_pos else None)
        try:
            got = float(permutation_gap(X.copy(), perm, *Ws, P=P))
        except Exception:  # noqa: BLE001 - a gap that cannot be had confirms nothing
            return False
        matched = False
        for sa in _sa_candidates(self_attention):
            try:
                value = _gap_variants(sa, X, perm, *Ws, P).get(name, (None,))[0]
            except Exception:  # noqa: BLE001 - a self_attention that fails here is judged by its own tests
                continue
            matched = matched or (value is not None and _gap_matches(got, value))
        if not matched:
            return False
    return True


def _gap_matches(got, value):
    return abs(got - value) <= 1e-7 * abs(value) + 1e-12


def _sa_candidates(self_attention):
    yield self_attention
    yield lambda X, Wq, Wk, Wv: _attention(X, Wq, Wk, Wv)


def _innermost(error) -> str:
    frames = getattr(error, "remote_frames", None)
    if frames:
        return frames[-1]
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_name if tb is not None else ""


def _call_gap(permutation_gap, self_attention, X, perm, Ws, P, label, use_keyword=True):
    def run():
        try:
            if P is None and not use_keyword:
                return permutation_gap(X, perm, *Ws)
            return permutation_gap(X, perm, *Ws, P=P)
        except NotImplementedError as e:
            inner = _innermost(e)
            if not _raised_in(e, permutation_gap) or inner != getattr(permutation_gap, "__name__", inner):
                raise Diagnosis(
                    "not-implemented",
                    f"permutation_gap calls {inner or 'a function'}, which still raises "
                    f"NotImplementedError: fill in {inner or 'it'} first.",
                ) from None
            raise

    try:
        return call(label, run)
    except Diagnosis as d:
        B, T = X.shape[:2]
        along_batch = "(" + ",".join(map(str, (len(perm),) + X.shape[1:])) + ")"  # the shape X[perm] has
        if (
            d.misconception == "crashed"
            and B != T
            and (along_batch in d.message or "for axis 0 with size" in d.message)
        ):
            raise Diagnosis(
                "crashed",
                f"{d.message}\nperm reorders the T = {T} slots, axis 1 of X, but it was applied along axis 0, the batch "
                f"of B = {B} sequences: X[perm] has shape {(len(perm),) + X.shape[1:]} (or reaches past the batch). "
                "Index the slots, X[:, perm] and self_attention(...)[:, perm].",
            ) from None
        if d.misconception == "crashed":
            try:
                out = self_attention(X, *Ws)
            except Exception as e:
                raise Diagnosis(
                    "crashed", f"{d.message}\nIt calls your self_attention, which raises {type(e).__name__}: {e}"
                ) from None
            want = X.shape[:2] + (Ws[0].shape[1],)
            if np.shape(out) != want:
                raise Diagnosis(
                    "crashed",
                    f"{d.message}\nIt calls your self_attention, which returns shape "
                    f"{np.shape(out)} instead of (B, T, hs) = {want}: fix self_attention first "
                    "(its own tests say more).",
                ) from None
        raise


def _gap_case(rng, B, T, C, hs, block_size=None):
    X = rng.standard_normal((B, T, C))
    Ws = [rng.standard_normal((C, hs)) / np.sqrt(C) for _ in range(3)]
    P = None if block_size is None else rng.standard_normal((block_size, C))
    return X, _perm(rng, T), Ws, P


@hidden_check
def permutation_gap_no_pos(permutation_gap, self_attention):
    rng = grading_rng()
    # two drawn cases, then the boundary class of one sequence (B = 1)
    for use_keyword, one in ((False, False), (True, False), (True, True)):
        # B > 1 and B, T, C, hs pairwise distinct: a softmax whose sum lost its axis crashes on the (B, T, T)
        # scores in every case instead of broadcasting by chance
        B = 1 if one else int(rng.integers(2, 4))
        T = _size(rng, 3, 9, B)
        C = _size(rng, 3, 7, B, T)
        hs = _size(rng, 2, 8, B, T, C)
        X, perm, Ws, _ = _gap_case(rng, B, T, C, hs)
        X0 = watch(X).copy()
        label = "permutation_gap(X, perm, Wq, Wk, Wv" + (", P=None)" if use_keyword else ")")
        got = _as_gap(_call_gap(permutation_gap, self_attention, X, perm, Ws, None, label, use_keyword), label)
        if not np.array_equal(X, X0):
            raise Diagnosis("side-effect", f"{label} changed X; it should only read it.")
        if np.isfinite(got) and abs(got) < 1e-10:
            continue
        candidates = []
        for sa in _sa_candidates(self_attention):
            try:
                candidates.append((_correct_gap(sa, X, perm, *Ws, None), _gap_variants(sa, X, perm, *Ws, None)))
            except Exception:
                continue
        # a self_attention that is itself not equivariant is charged by its own tests, not here
        if any(_gap_matches(got, correct) for correct, _ in candidates):
            continue
        for _, variants in candidates:
            if (
                _gap_matches(got, variants["output-not-permuted"][0])
                and variants["output-not-permuted"][0] > 1e-8
                and _variant_confirmed(permutation_gap, self_attention, "output-not-permuted", False)
            ):
                # without positions sa(X[:, perm]) == sa(X)[:, perm], so these two mistakes give the same number
                raise Diagnosis(
                    "wrong-value",
                    f"Without positions the gap should be about 1e-15, yours is {got:.3g}: your permutation_gap compares "
                    "a shuffled output with an unshuffled one. Shuffle the tokens in the first term, "
                    "self_attention(X[:, perm] + pos), and shuffle the output of the second, "
                    "self_attention(X + pos)[:, perm], so that row t of both belongs to token perm[t].",
                )
            for name, (value, why) in variants.items():
                if (
                    value > 1e-8
                    and _gap_matches(got, value)
                    and _variant_confirmed(permutation_gap, self_attention, name, False)
                ):
                    raise Diagnosis(
                        "wrong-value",
                        f"Without positions the gap should be about 1e-15, yours is {got:.3g}: "
                        f"your permutation_gap {why}",
                    )
        raise Diagnosis(
            "wrong-value",
            f"Without positions attention is permutation-equivariant, so {label} should be about 1e-15 (rounding); "
            f"yours is {got:.3g}. It should be the largest |self_attention(X[:, perm]) - self_attention(X)[:, perm]|.",
        )


def _nan_probe(permutation_gap, X, perm, Ws, P):
    """True if the student's gap uses P (a P full of nan makes it nan), False if not, None if unknown."""
    try:
        value = float(permutation_gap(X.copy(), perm, *Ws, P=np.full_like(P, np.nan)))
    except Exception:
        return None
    return not np.isfinite(value)


def _with_pos_cases(rng):
    """Cases that pin every classification down: hs == C with T < block_size, T == block_size with hs != C,
    and the largest |difference| at a positive and at a negative entry (to catch a signed max)."""
    # B > 1, and B, T, C, hs pairwise distinct except where a case wants hs == C
    cases = []
    B = int(rng.integers(2, 4))
    T = _size(rng, 3, 8, B)
    C = _size(rng, 3, 7, B, T)
    cases.append(_gap_case(rng, B, T, C, C, _size(rng, T + 1, T + 4, B, C)))
    B = int(rng.integers(2, 4))
    T = _size(rng, 3, 8, B)
    C = _size(rng, 3, 7, B, T)
    cases.append(_gap_case(rng, B, T, C, _size(rng, 2, 8, B, T, C), T))
    need = {True, False}
    for _ in range(120):
        if not need:
            break
        B = int(rng.integers(2, 4))
        T = _size(rng, 3, 8, B)
        C = _size(rng, 3, 7, B, T)
        case = _gap_case(rng, B, T, C, _size(rng, 2, 8, B, T, C), T + int(rng.integers(0, 3)))
        X, perm, Ws, P = case
        _, first, full = _gap_parts(lambda *a: _attention(*a), X, perm, *Ws, P)
        d = first - full[:, perm]
        sign = bool(d.reshape(-1)[int(np.argmax(np.abs(d)))] > 0)
        # and the largest |difference| in a sequence other than the first, clearly above the first's own: a gap of
        # one sequence instead of the whole batch's shows
        per_sequence = np.abs(d).reshape(B, -1).max(axis=1)
        elsewhere = int(np.argmax(per_sequence)) != 0 and per_sequence.max() - per_sequence[0] > 1e-3
        if sign in need and elsewhere and np.max(np.abs(d)) > 1e-3 and abs(np.max(d) + np.max(-d)) > 1e-6:
            need.discard(sign)
            cases.append(case)
    # the boundary class of one sequence (B = 1)
    T = _size(rng, 3, 8, 1)
    C = _size(rng, 3, 7, 1, T)
    cases.append(_gap_case(rng, 1, T, C, _size(rng, 2, 8, 1, T, C), T + 1))
    return cases


@hidden_check
def permutation_gap_with_pos(permutation_gap, self_attention):
    rng = grading_rng()
    for X, perm, Ws, P in _with_pos_cases(rng):
        B, T, C = X.shape
        X0, P0 = watch(X).copy(), watch(P).copy()
        label = f"permutation_gap(X, perm, Wq, Wk, Wv, P) for T = {T} and P of shape {P.shape}"
        try:
            raw = _call_gap(permutation_gap, self_attention, X, perm, Ws, P, label)
        except Diagnosis as d:
            if d.misconception == "crashed" and P.shape[0] > T:
                try:
                    retry = float(permutation_gap(X.copy(), perm, *Ws, P=P[:T].copy()))
                except Exception:
                    retry = None
                if retry is not None and np.isfinite(retry):
                    raise Diagnosis(
                        "wrong-shape",
                        f"permutation_gap fails when P has more rows than the sequence is long (P of shape {P.shape}, "
                        f"T = {T}): it {d.message.replace(label + ' ', '', 1)}. Use pos = P[:T], the rows of the "
                        "first T slots.",
                    ) from None
            raise
        got = _as_gap(raw, label)
        if not np.array_equal(X, X0) or not np.array_equal(P, P0):
            which = "X" if not np.array_equal(X, X0) else "P"
            raise Diagnosis("side-effect", f"{label} changed {which}; build new arrays (X + pos) instead of X += pos.")
        expected = []
        for sa in _sa_candidates(self_attention):
            try:
                expected.append((sa, _correct_gap(sa, X, perm, *Ws, P)))
            except Exception:
                continue
        if any(_gap_matches(got, value) for _, value in expected):
            continue
        want = expected[-1][1]
        if np.isfinite(got) and abs(got) < 1e-10:
            uses_p = _nan_probe(permutation_gap, X, perm, Ws, P)
            if uses_p is False:
                raise Diagnosis(
                    "wrong-value",
                    f"With positions the gap should be clearly above 0 ({want:.3g} here), yours is {got:.3g}: your "
                    "permutation_gap ignores P. Add pos = P[:T] to the input on both sides, self_attention(X[:, perm] + pos) "
                    "and self_attention(X + pos)[:, perm].",
                )
            raise Diagnosis(
                "wrong-value",
                f"With positions the gap should be clearly above 0 ({want:.3g} here), yours is {got:.3g}: your positions "
                "move along with the tokens (P[:T][perm]) or are added after attention, and either way the symmetry "
                "survives. Positions belong to slots: add pos = P[:T], unshuffled, to X[:, perm] and to X, before "
                "self_attention.",
            )
        for sa, _ in expected:
            try:
                variants = _gap_variants(sa, X, perm, *Ws, P)
            except Exception:
                continue
            for name, (value, why) in variants.items():
                if _gap_matches(got, value) and _variant_confirmed(permutation_gap, self_attention, name, True):
                    raise Diagnosis(
                        "wrong-value", f"{label} should be {want:.6g}, yours is {got:.6g}: your permutation_gap {why}"
                    )
        raise Diagnosis(
            "wrong-value",
            f"{label} should be {want:.6g}, the largest |self_attention(X[:, perm] + P[:T]) - "
            f"self_attention(X + P[:T])[:, perm]|; yours returned {got:.6g}.",
        )


# --------------------------------------------------------------------------- the input space's trials (hidden.space)


def _halves(rng, shape):
    """Small numbers a student can work by hand: multiples of 1/2 from -2 to 2."""
    return rng.integers(-4, 5, size=shape) / 2.0


def _sizes(rng, rank, sizes):
    if sizes == "ones":
        return (1,) * rank
    if sizes == "odd":
        return tuple(int(rng.choice([3, 5])) for _ in range(rank))
    shape = [int(rng.integers(2, 5)) for _ in range(rank)]
    shape[int(rng.integers(rank))] = 1
    return tuple(shape)


def wide(shape, axis):
    """Scores from -800 to 800 along ``axis``: every slice of two entries or more holds both ends."""
    n = shape[axis]
    line = np.array([-800.0, 800.0, 0.0, 400.0, -400.0][:n] if n <= 5 else np.linspace(-800, 800, n))
    return np.moveaxis(
        np.broadcast_to(line, shape[: axis % len(shape)] + shape[axis % len(shape) + 1 :] + (n,)), -1, axis
    )


def _softmax_trial(case, rng):
    from .oracle import RTOL, Result, Trial, described, laid

    rank = case["rank"]
    shape = _sizes(rng, rank, case["sizes"])
    axis = {"default": None, "last": rank - 1, "-rank": -rank, "middle": rank // 2}.get(case["axis"], case["axis"])
    ax = -1 if axis is None else axis
    values = {
        "small": lambda: rng.integers(-3, 4, size=shape).astype(float),
        "wide": lambda: wide(shape, ax),
        "very negative": lambda: -1000.0 - rng.integers(0, 4, size=shape),
        "ties": lambda: np.full(shape, 2.0),
    }[case["values"]]()
    x = laid(values.astype(case["dtype"]), case["layout"])
    want = _softmax(x.astype(np.float64), ax)
    before = None
    if case["before"] != "none" and case["values"] not in ("wide", "very negative"):
        # the first call's result differs from the second's wherever a slice has two entries or more
        first = -values if case["before"] == "same shape" else rng.integers(-3, 4, size=shape + (2,))
        before = np.asarray(first, dtype=np.float64).astype(case["dtype"])

    def words():
        call = f"softmax({described('x', x)}" + ("" if axis is None else f", axis={axis}") + ")"
        return call if before is None else f"first = softmax({described('x0', before)}), then {call}"

    # scores past what exp holds are softmax_stable's to judge, the rest softmax_values's: a fault is charged once
    trial = Trial(words, None, belongs="stable" if case["values"] in ("wide", "very negative") else "values")
    given = trial.given("x", x)
    tol = RTOL[case["dtype"]]

    def run(softmax):
        results = []
        if before is not None:
            first = softmax(before.copy())
            handed = np.array(first, copy=True) if isinstance(first, np.ndarray) else None
            want_first = _softmax(before.astype(np.float64))
            results.append(Result("first (held by the caller)", first, want_first, tol, recall=True, handed=handed))
        got = softmax(given) if axis is None else softmax(given, axis=axis)
        return [Result("result", got, want, tol), *results]

    trial.run = run
    return trial


def _attention_trial(case, rng):
    from .oracle import RTOL, Result, Trial, described, laid, same

    B, T, C = case["B"], case["T"], case["C"]
    hs = C if case["hs"] == "C" else case["hs"]
    dtype = case["dtype"]
    X = laid((_halves(rng, (B, T, C)) * (15 if case["scale"] == "large" else 1)).astype(dtype), case["layout"])
    Ws = [_halves(rng, (C, hs)).astype(dtype) for _ in range(3)]
    X64, W64 = X.astype(np.float64), [w.astype(np.float64) for w in Ws]
    want = _attention(X64, *W64)
    trial = Trial(
        lambda: f"self_attention({', '.join(described(n, a) for n, a in zip(('X', 'Wq', 'Wk', 'Wv'), (X, *Ws)))})", None
    )
    args = [trial.given(n, a) for n, a in zip(("X", "Wq", "Wk", "Wv"), (X, *Ws))]

    def run(student):
        self_attention, softmax = student
        got = self_attention(*args)
        # any constant scale of the scores is attention_scaling's to judge, and a wrong softmax softmax_values's
        for s in _scales(C, hs).values():
            if same(got, _attention(X64, *W64, s), RTOL[dtype]):
                return []
        try:
            if same(
                got, _attention(X64, *W64, softmax=lambda z: np.asarray(softmax(z), dtype=np.float64)), RTOL[dtype]
            ):
                return []
        except Exception:  # noqa: BLE001 - the student's softmax is judged by its own tests
            pass
        return [Result("output", got, want, RTOL[dtype])]

    trial.run = run
    return trial


def _gap_trial(case, rng):
    from .oracle import Result, Trial, described, laid

    B, T = case["B"], case["T"]
    C, hs = 2, 2
    X = laid(_halves(rng, (B, T, C)), case["layout"])
    Ws = [_halves(rng, (C, hs)) for _ in range(3)]
    perm = {"cycle": np.roll(np.arange(T), 1), "reverse cycle": np.roll(np.arange(T), -1)}.get(case["perm"])
    if perm is None:
        perm = _perm(rng, T)
    perm = perm.astype(case["perm dtype"])
    P = None if case["P"] == "none" else _halves(rng, (T + (2 if case["P"] == "longer" else 0), C))
    ref = _correct_gap(lambda *a: _attention(*a), X, perm.astype(np.int64), *Ws, P)

    def words():
        said = [described("X", X), described("perm", perm), *(described(n, w) for n, w in zip(("Wq", "Wk", "Wv"), Ws))]
        return f"permutation_gap({', '.join(said + ([] if P is None else [described('P', P)]))})"

    trial = Trial(words, None)
    args = [trial.given("X", X), trial.given("perm", perm)] + [
        trial.given(n, w) for n, w in zip(("Wq", "Wk", "Wv"), Ws)
    ]
    P_in = None if P is None else trial.given("P", P)

    def run(student):
        permutation_gap, self_attention = student
        got = permutation_gap(*args) if P is None else permutation_gap(*args, P=P_in)
        try:
            value = float(got)
        except (TypeError, ValueError):
            return [Result("gap", got, ref)]
        if P is None:
            return [] if abs(value) < 1e-9 else [Result("gap", value, 0.0)]
        wants = [ref]
        try:  # the gap from the student's own self_attention passes too: its faults are charged once
            wants.append(_correct_gap(self_attention, X, perm, *Ws, P))
        except Exception:  # noqa: BLE001
            pass
        return [] if any(_gap_matches(value, w) for w in wants) else [Result("gap", value, ref, 1e-7)]

    trial.run = run
    return trial


from .oracle import cover, sweeping  # noqa: E402 - after the checks it extends

cover(
    globals(),
    {
        "softmax_values": sweeping("softmax(x, axis)", _softmax_trial, "values"),
        "softmax_stable": sweeping("softmax(x, axis)", _softmax_trial, "stable"),
        "attention_values": sweeping("self_attention(X, Wq, Wk, Wv)", _attention_trial),
        "permutation_gap_with_pos": sweeping("permutation_gap(X, perm, Wq, Wk, Wv, P)", _gap_trial),
    },
)
