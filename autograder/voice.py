"""What a student reads when a check fails: the one source of that wording.

The hidden checks import this module, the build copies it, word for word, into the setup cell of
every notebook, where the visible self-checks use it, and where the checks run outside the kernel the
kernel's channel client raises the checker's verdict as this module's ``Diagnosis``.  So a misconception is told in the same
words, fix included, whether a self-check or the grader meets it, and a wrong array that is a
recognisable transform of the right one is named as that transform on both sides.

Rules for this file: NumPy only; nothing imported from the rest of the package; no
``from __future__`` (it runs as notebook cell text); nothing secret (students read it).
"""

import numpy as np

# The misconception catalogue: id -> the student's bug, in a few words.
CATALOGUE = {
    "scatter-overwrite": "dE[idx] += dout counts a repeated id once",
    "sin-cos-swap": "even columns take cos, odd columns sin",
    "freq-sign": "the frequency exponent has the wrong sign",
    "freq-per-column": "each column gets its own frequency instead of one per sin/cos pair",
    "halves-not-interleaved": "sin in the first half of the columns, cos in the second",
    "dP-not-summed": "dP takes one batch row instead of the sum over the batch",
    "dP-tail-not-zero": "rows T and beyond of dP get a value",
    "positions-missing": "forward returns E[idx] alone",
    "positions-by-token": "forward adds P[idx] instead of P[:T]",
    "freeze-ignored": "freeze_positions has no effect",
    "freeze-kills-dE": "freezing positions also changes dE",
    "grad-accumulates": "dE/dP keep growing across backward calls",
    "softmax-unstable": "softmax does not subtract the max",
    "attention-unscaled": "attention scores are not divided by sqrt(hs)",
    "one-sided-difference": "the numerical gradient uses a one-sided difference",
    "no-restore": "numerical_gradient leaves x changed",
}

# A wrong array that is a recognisable transform of the right one (any check, catalogued or not).
RELATIONSHIPS = {
    "scaled": "an output is the right one times a constant (2, 1/2, 1/B, -1, ...)",
    "transposed": "an output is the right one with two axes swapped",
    "shifted": "an output is the right one moved by one row or column",
    "wrong-axis": "an output sums (or averages) over the wrong axis",
    "wrong-rows": "an output holds the right rows in the wrong places",
}

# Mistakes outside the catalogue.
GENERIC = {
    "not-implemented": "the stub still raises NotImplementedError",
    "crashed": "the code raised an unexpected exception",
    "wrong-shape": "an output has the wrong shape",
    "wrong-dtype": "an output is not float64",
    "wrong-value": "an output has wrong values",
    "wrong-gradient": "a gradient fails the float64 gradient check",
    "no-error-raised": "bad input was accepted instead of raising",
    "wrong-error": "bad input raised the wrong kind of exception",
    "side-effect": "the code changed something it should not have",
    "stale-state": "a result comes from an earlier call: a cache keyed on too little, or a table copied before it changed",
}

KNOWN_IDS = {**CATALOGUE, **RELATIONSHIPS, **GENERIC}

# Not a mistake of the student's: where the checks run outside the notebook, a check that could not get
# its answers (the cell stopped first, the connection broke) says so with this id, and no points.
UNVERIFIED = "unverified"

# id -> (headline, fix).  The headline opens the message (the contract quotes some of them verbatim, in the table
# under "Misconceptions" of docs/contract.md: a quoted headline and its quote change together) and may take the
# student's values as plain {name} placeholders (say() writes each value as text first, with fmt: no format spec);
# the fix closes it.  Hidden checks and self-checks both go through say().
VOICE = {
    "scatter-overwrite": (
        "Row {row} is used twice so its gradient should be {want}, got {got}",
        "dE[idx] += dout keeps only one write per repeated id. Use np.add.at(dE, idx, dout), which adds the "
        "gradient of every occurrence.",
    ),
    "sin-cos-swap": (
        "Even dims at pos 0 should be sin(0)=0, got {got}",
        "Even columns take np.sin and odd columns np.cos: fill table[:, 0::2] with sines and table[:, 1::2] "
        "with cosines.",
    ),
    "freq-sign": (
        "Lower dims should oscillate faster",
        "The angle of pair i is pos / base**(2i/C), so its frequency base**(-2i/C) falls from 1 radian per "
        "position (columns 0 and 1) towards 1/base in the last pair; check the sign of the exponent.",
    ),
    "freq-per-column": (
        "Columns 2i and 2i+1 must share one frequency",
        "Both columns of pair i use the angle pos / base**(2i/C), with 2i the even column of the pair, not "
        "pos / base**(j/C) for each column j.",
    ),
    "halves-not-interleaved": (
        "Sin and cos columns interleave",
        "Column 2i holds sin(pos * w_i) and column 2i+1 holds cos(pos * w_i): fill table[:, 0::2] with sines "
        "and table[:, 1::2] with cosines, not the first and second halves.",
    ),
    "dP-not-summed": (
        "dP sums dout over the batch axis",
        "Every sequence of the batch added P[:T], so each contributes its gradient: dP[:T] = dout.sum(axis=0).",
    ),
    "dP-tail-not-zero": (
        "Rows T and beyond of dP stay zero",
        "Positions T.. were not used by this forward: start every backward from np.zeros_like(self.P) and "
        "fill only dP[:T].",
    ),
    "positions-missing": (
        "forward must add P[:T], the position rows",
        "Without them two equal tokens in different slots get equal vectors, and attention cannot tell the order.",
    ),
    "positions-by-token": (
        "Positions are looked up by slot t, not by token id",
        "The token in slot t of every sequence gets P[t]: add P[:T], not P[idx].",
    ),
    "freeze-ignored": (
        "dP must be zero while positions are frozen",
        "Read self.freeze_positions in backward, at every call (it may be switched after construction): while "
        "it is true, set self.dP = np.zeros_like(self.P) and compute dE as usual.",
    ),
    "freeze-kills-dE": (
        "Freezing positions must not change dE",
        "The token gradient never depends on P: compute dE exactly as without the flag, and let the flag "
        "decide only dP.",
    ),
    "grad-accumulates": (
        "Each backward starts from zeros",
        "A second backward with the same dout must give the same gradient: set self.{grad} = "
        "np.zeros_like(self.{table}) on every call instead of adding to the last gradient.",
    ),
    "softmax-unstable": (
        "softmax overflows on large inputs, or underflows on very negative ones; subtract the max of each slice",
        "In float64 exp(1000) is inf, and softmax(x - m) == softmax(x) for any constant m: subtract "
        "x.max(axis=axis, keepdims=True) before np.exp.",
    ),
    "attention-unscaled": (
        "Scores are scaled by 1/sqrt(head size)",
        "Divide Q @ K^T by np.sqrt(hs), where hs = Wq.shape[1] is the width of Q and K (not C, the width of X).",
    ),
    "one-sided-difference": (
        "The check needs central differences",
        "Use (f(x+eps) - f(x-eps)) / (2 * eps), accurate to eps**2; the one-sided (f(x+eps) - f(x)) / eps "
        "is only accurate to eps.",
    ),
    "no-restore": (
        "x must be restored after each nudge",
        "Save old = x[i] before nudging and write it back with x[i] = old (x[i] -= eps leaves rounding residue).",
    ),
}


class Diagnosis(AssertionError):
    """A failed check, told in the words of the misconception."""

    def __init__(self, misconception, message):
        if misconception not in KNOWN_IDS and misconception != UNVERIFIED:
            raise ValueError(f"unknown misconception id {misconception!r}")
        self.misconception = misconception
        self.message = message.strip()
        super().__init__(f"[{misconception}] {self.message}")

    def _render_traceback_(self):  # how IPython shows it: the message, no traceback
        first, *rest = self.message.splitlines() or [""]
        return [f"\x1b[0;31mDiagnosis [{self.misconception}]\x1b[0m: {first}", *rest]


def say(misconception, detail="", smallest="", **values):
    """The Diagnosis of a catalogued misconception: its headline (filled with ``values``), then
    ``detail`` (what this check saw), then the fix.

    ``smallest`` names the case the headline's values come from when it is not the case of ``detail``
    (the headline measured on the smallest case, the detail on a larger one): the message then says
    which is which, so that two cases never read as one contradicting itself."""
    headline, fix = VOICE[misconception]
    values = {k: v if isinstance(v, str) else fmt(v) for k, v in values.items()}  # one style for every value
    if smallest:
        detail = f"That is the smallest case, {smallest.strip()}. {detail.strip()}"
    return Diagnosis(
        misconception,
        headline.format(**values) + "\n" + " ".join(part for part in (detail.strip(), fix.format(**values)) if part),
    )


def require(ok, misconception, message):
    """A self-check's condition: a Diagnosis of ``misconception`` with ``message`` unless ``ok`` (never a bare assert)."""
    if not ok:
        raise Diagnosis(misconception, message)


def _shape_of(text):
    """(5, 5, 2) from "5,5,2"; None if it is not a shape."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    return tuple(int(p) for p in parts) if parts and all(p.isdigit() for p in parts) else None


def _dropped_axis(a, b):
    """(the longer shape, k) when the shorter of ``a`` and ``b`` is the longer with axis k taken away (a reduction
    without keepdims), else None."""
    big, small = (a, b) if len(a) > len(b) else (b, a)
    if len(big) != len(small) + 1:
        return None
    return next(((big, k) for k in range(len(big)) if big[:k] + big[k + 1 :] == small), None)


def explain(error, what="Your code", sizes=None):
    """An exception raised by student code, told in the kit's words: what raised, and where NumPy names two shapes
    that do not line up or an index past an axis, which axis and which sizes (``sizes`` names them: {"B": 3})."""
    name, text = type(error).__name__, str(error).strip()
    said = f"{what} raised {name}: {text}"
    if "broadcast" in text and "shapes " in text:
        shapes = [_shape_of(part.split(")")[0]) for part in text.split("shapes ", 1)[1].split("(")[1:3]]
        if len(shapes) == 2 and None not in shapes:
            a, b = shapes
            n = max(len(a), len(b))
            a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
            axes = [k for k in range(n) if a[k] != b[k] and 1 not in (a[k], b[k])]
            dropped = _dropped_axis(*shapes)
            if axes and dropped is not None:
                big, k = dropped
                return (
                    f"{said}. An array of shape {big} met one of shape {big[:k] + big[k + 1 :]}, which is the first "
                    f"with axis {k} taken away: a max, sum or mean over axis {k} dropped that axis. Pass "
                    "keepdims=True to it (x.max(axis=axis, keepdims=True)), so the result keeps size 1 there and "
                    "broadcasts back against the array it came from."
                )
            if axes:
                k = axes[0]

                def named(v):
                    names = " or ".join(key for key, size in (sizes or {}).items() if size == v)
                    return f"{v} ({names})" if names else f"{v}"

                return (
                    f"{said}. Two arrays of shapes {a} and {b} met in one operation and do not line up on axis {k} "
                    f"(size {named(a[k])} against {named(b[k])}): one of them was built along the wrong axis (an "
                    "index, a sum or a transpose over another axis than intended) or kept the wrong length there."
                )
    if (text.startswith("matmul:") and "core dimension" in text) or "remapped shapes" in text:
        return (
            f"{said}. A @ B multiplies the last axis of A with the second-to-last axis of B, and the axes in front "
            "(the batch) must match; here they do not line up. A .T on a 3-D array reverses all three axes, the batch "
            "axis too: transpose only the last two, K.swapaxes(-1, -2) or K.transpose(0, 2, 1)."
        )
    if text.startswith("could not broadcast input array from shape"):
        sizes_in = [_shape_of(part.split(")")[0]) for part in text.split("(")[1:3]]
        if len(sizes_in) == 2 and None not in sizes_in:
            values, target = sizes_in
            return (
                f"{said}. An assignment a[...] = values put values of shape {values} into a slice of shape {target}: "
                "the slice on the left and the array on the right must have the same shape. Count what the slice "
                "selects (for an odd C, table[:, 0::2] has (C + 1) // 2 columns and table[:, 1::2] has C // 2) "
                "and cut the right side to fit, such as values[:, :n] with n the slice's width."
            )
    if "truth value of an array" in text:
        return (
            f"{said}. Python's max, min, `if`, `and` and `or` want one number and were given an array of several, "
            "which has no single truth value (a.any() or a.all() is seldom what is meant). Use NumPy's forms, which "
            "work entry by entry: np.maximum(a, b) for max, np.minimum(a, b) for min, np.where(condition, a, b) for "
            "an if, & and | for and and or."
        )
    words = text.split()
    if len(words) == 12 and words[0] == "index" and words[2:6] == ["is", "out", "of", "bounds"]:
        i, k, n = words[1], words[8], words[11]  # "index 7 is out of bounds for axis 0 with size 3"
        if k.isdigit() and n.isdigit():
            return f"{said}. An index ({i}) reaches past axis {k}, which has only {n} entries (0..{int(n) - 1})."
    return said


def _number(v, digits=4):
    """One float of a message: 1.0, 0.8415, 1e-09 (``digits`` significant digits; never "-0.0")."""
    v = float(v) + 0.0
    if v.is_integer() or not np.isfinite(v):
        return repr(v)
    text = f"{v:.{digits}g}"
    return text if any(c in text for c in ".e") else text + ".0"  # 0.99999 is "1.0", a float like the rest


def fmt(value, digits=4, whole=12):
    """The one rendering of a value in a message, on one line: ids as integers ([2, 0, 2]), floats as 1.0 or
    0.8415 ([2.0, 2.0], [1.0, 1.0]), whatever the dtype; ``digits`` significant digits; an array of more than
    ``whole`` entries is summarised with its first and last entries."""
    a = np.asarray(value)
    if a.dtype.kind not in "iubfc":
        return repr(value)[:200]
    if a.ndim == 0:
        return str(a.item()) if a.dtype.kind in "iub" else _number(a.real, digits)
    numbers = {} if a.dtype.kind in "iub" else {"formatter": {"float_kind": lambda v: _number(v, digits)}}
    text = np.array2string(
        a if a.dtype.kind in "iub" else a.real,
        separator=", ",
        max_line_width=10**6,
        threshold=whole,
        edgeitems=3,
        **numbers,
    )
    return " ".join(text.split())


def fmt_apart(got, want, whole=12):
    """``got`` and ``want`` rendered at the fewest significant digits (4 at least) at which they read differently,
    when their values differ: a float32 table beside the float64 one never prints identically."""
    for digits in range(4, 18):
        mine, right = fmt(got, digits, whole), fmt(want, digits, whole)
        if mine != right:
            return mine, right
    return mine, right


# ---------------------------------------------------------------------------- relationships


def _close(a, b, scale):
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=1e-7 * scale))


def _factor_words(c, sizes):
    """How to say "times c": 2 times, 1/3 of, the negative of; naming a size (B, T, ...) that equals it."""
    if abs(c + 1) < 1e-6:
        return "the right values with the sign flipped (-1 times them)"
    for n in range(2, 1001):
        named = " or ".join(k for k, v in sizes.items() if v == n)
        if abs(c - n) < 1e-6 * n:
            return f"exactly {n} times the right values" + (f" ({named} = {n})" if named else "")
        if abs(c * n - 1) < 1e-6:
            return f"exactly 1/{n} of the right values" + (
                f", as if divided by {named} = {n} (a mean where a sum belongs)" if named else ""
            )
    return f"the right values times {c:.4g}"


def _axis_word(axis, ndim):
    """What one index along ``axis`` is called: a row or column of a matrix, an entry of a vector, else a
    slice along that axis."""
    if ndim == 1:
        return "entry"
    if ndim == 2:
        return ("row", "column")[axis]
    return f"slice along axis {axis}"


def _at(word, index):
    """One index named: "row 2", "entry k", "slice 0 along axis 1"."""
    if word.startswith("slice"):
        return f"slice {index}{word[5:]}"
    return f"{word} {index}"


def _plural(word):
    return (
        "entries" if word == "entry" else word.replace("slice", "slices", 1) if word.startswith("slice") else word + "s"
    )


def _as_floats(a):
    """``a`` as a float array, or None when it is not numbers (None, a ragged list, strings)."""
    if a is None:
        return None  # np.asarray(None, dtype=float) would be nan
    try:
        return np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        return None


def relationship(got, want, sizes=None, source=None, reduced_axis=None):
    """How ``got`` relates to the right array ``want`` when it is a recognisable transform of it:
    ``(id, words)`` where ``words`` completes "yours is ...", or None.

    Tried in turn: a constant factor (2, 1/2, -1, 1/B, ...; ``sizes`` names sizes such as
    ``{"B": 3, "T": 5}`` so a factor equal to one is named), two axes swapped, a shift by one along an
    axis, the right rows (or columns) in other places, and, when ``want`` is ``source`` reduced over
    ``reduced_axis``, a sum or mean over another axis.
    """
    got, want = _as_floats(got), _as_floats(want)
    sizes = sizes or {}
    if got is None or want is None or want.size < 2:
        return None
    if not (np.all(np.isfinite(got)) and np.all(np.isfinite(want))):
        return None
    scale = max(1e-12, float(np.abs(want).max()))
    if got.shape == want.shape and not _close(got, want, scale):
        # a factor is told from two entries or more of want that are not zero: with one, any wrong value of it is
        # "a multiple" of the right one, which says nothing of the formula
        if np.count_nonzero(np.abs(want) > 1e-7 * scale) >= 2 and np.any(got != 0):
            c = float(np.vdot(got, want) / np.vdot(want, want))
            # a factor within 1e-3 of 1 (slightly off) or of 0 (nearly all zero) is no mistake of the formula
            if abs(c - 1) > 1e-3 and abs(c) > 1e-3 and _close(got, c * want, scale):
                return "scaled", _factor_words(c, sizes)
        for axis in range(want.ndim):
            n = want.shape[axis]
            if n < 3:
                continue
            head = [slice(None)] * want.ndim
            tail = [slice(None)] * want.ndim
            head[axis], tail[axis] = slice(1, None), slice(None, -1)
            head, tail = tuple(head), tuple(tail)
            if _close(want[head], want[tail], scale):
                continue  # constant along this axis: a shift would look right by chance
            word = _axis_word(axis, want.ndim)
            if _close(got[head], want[tail], scale):
                return "shifted", (
                    f"the right values shifted forward by one {word}: your {_at(word, 'k')} holds "
                    f"what belongs in {_at(word, 'k - 1')}"
                )
            if _close(got[tail], want[head], scale):
                return "shifted", (
                    f"the right values shifted back by one {word}: your {_at(word, 'k')} holds "
                    f"what belongs in {_at(word, 'k + 1')}"
                )
        for axis in (0, want.ndim - 1) if want.ndim >= 2 else (0,):
            moved = _moved(got, want, axis, scale)
            if moved:
                return "wrong-rows", moved
    for a in range(want.ndim):
        for b in range(a + 1, want.ndim):
            swapped = np.swapaxes(want, a, b)
            if swapped.shape == got.shape and not _close(swapped, want, scale) and _close(got, swapped, scale):
                which = "rows and columns swapped (the transpose)" if want.ndim == 2 else f"axes {a} and {b} swapped"
                return "transposed", f"the right values with {which}"
    if source is not None and reduced_axis is not None:
        source = np.asarray(source, dtype=float)
        for axis in range(source.ndim):
            for how, reduce in (("sum", np.sum), ("mean", np.mean)):
                if axis == reduced_axis and how == "sum":
                    continue
                candidate = reduce(source, axis=axis)
                if _close(got, candidate, scale):
                    if axis == reduced_axis:
                        return "scaled", f"the mean over axis {axis} where the sum belongs"
                    return "wrong-axis", (
                        f"the {how} over axis {axis} (size {source.shape[axis]}); the right one is "
                        f"the sum over axis {reduced_axis} (size {source.shape[reduced_axis]})"
                    )
    return None


def _moved(got, want, axis, scale, most=1024):
    """Words for "the right rows (along ``axis``) in other places", or None.  Each row is matched against
    all rows at once; arrays of more than ``most`` rows are not searched (the search grows as rows**2)."""
    g, w = np.moveaxis(got, axis, 0), np.moveaxis(want, axis, 0)
    n = g.shape[0]
    if n < 2 or n > most:
        return None
    gf, wf = g.reshape(n, -1), w.reshape(n, -1)
    free, where = np.ones(n, dtype=bool), []
    for k in range(n):
        close = free & np.all(np.abs(gf[k] - wf) <= 1e-7 * scale + 1e-6 * np.abs(wf), axis=1)  # as _close
        if not close.any():
            return None
        j = k if close[k] else int(np.argmax(close))
        free[j] = False
        where.append(j)
    wrong = [(k, j) for k, j in enumerate(where) if k != j]
    if not wrong:
        return None
    # name a misplaced row that holds something (swapped all-zero rows, e.g. of unused ids, say little)
    wrong.sort(key=lambda kj: not np.any(np.abs(g[kj[0]]) > 1e-7 * scale))
    word = _axis_word(axis, want.ndim)
    k, j = wrong[0]
    return f"the right {_plural(word)} in the wrong places: your {_at(word, k)} is what belongs in {_at(word, j)}"


GRADIENT_NAMES = ("dE", "dP", "dx", "gradient")


def shape_fix(name, got, want):
    """What to change when ``name`` came out with shape ``got`` where ``want`` belongs: which axis is off and the
    usual cause, and for a gradient the rule that it has the shape of what it is the gradient of."""
    got, want = tuple(got), tuple(want)
    missing = len(want) - len(got)
    axes = "axis" if abs(missing) == 1 else "axes"
    if missing == 0 and sorted(got) == sorted(want):
        said = (
            "The same sizes in another order: an axis was swapped (a transpose, or the sizes passed in another order)."
        )
    elif missing > 0:
        said = (
            f"It has {missing} {axes} too few: a sum, mean or max over an axis (add keepdims=True if the axis must "
            "stay), or an index that picked single entries, took an axis away."
        )
    elif missing < 0:
        said = (
            f"It has {-missing} {axes} too many: two arrays of different shapes were broadcast against each other, "
            "or a result was kept per batch row where one for the whole batch belongs."
        )
    else:
        k = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
        said = (
            f"Axis {k} has {got[k]} entries where {want[k]} belong: check the slice or the size that built that "
            "axis (a table sliced to the T slots used, P[:T], or not sliced at all)."
        )
    if any(word in name for word in GRADIENT_NAMES):
        said += " A gradient has the shape of what it is the gradient of: start it from np.zeros_like of that array."
    return said


def expect_array(name, got, shape):
    """``got`` must be a float64 NumPy array of ``shape``; return a plain copy of it (a subclass with its own
    arithmetic or comparisons cannot fool the checks that follow)."""
    if not isinstance(got, np.ndarray):
        raise Diagnosis(
            "wrong-shape", f"{name} should be a NumPy array of shape {tuple(shape)}, got {type(got).__name__}."
        )
    if got.shape != tuple(shape):
        raise Diagnosis(
            "wrong-shape",
            f"{name} should have shape {tuple(shape)}, got {got.shape}. {shape_fix(name, got.shape, shape)}",
        )
    if got.dtype != np.float64:
        raise Diagnosis("wrong-dtype", f"{name} should be float64, got {got.dtype}.")
    return np.array(got, dtype=np.float64, copy=True, subok=False)


def expect_close(
    name, got, want, sizes=None, source=None, reduced_axis=None, hint="", rtol=1e-6, atol=1e-9, confirm=()
):
    """Raise a Diagnosis unless ``got`` matches ``want``: a named transform when there is one, else where
    and by how much it is off.  ``hint`` (a sentence on the usual cause) ends the message.

    ``confirm`` holds other cases of the same function, as (got, want) pairs: a transform is named only when each
    of them shows the same one, so that a pattern of one small example (rows that rise by 1 look shifted) is never
    told as the student's mistake."""
    want = np.asarray(want, dtype=float)
    numbers = _as_floats(got)
    if numbers is None:
        raise Diagnosis("wrong-shape", f"{name} should be an array of shape {want.shape}, got {got!r:.60}. {hint}")
    got = numbers
    if got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol):
        return
    found = relationship(got, want, sizes, source, reduced_axis)
    if found is not None and any((relationship(g, w, sizes) or (None,))[0] != found[0] for g, w in confirm):
        found = None  # not true of the other cases: a coincidence of this one
    if found is not None:
        kind, words = found
        stop = "" if words.endswith(("?", ".")) else "."
        raise Diagnosis(kind, f"{name} is {words}{stop} {hint}")
    if got.shape != want.shape:
        raise Diagnosis("wrong-shape", f"{name} should have shape {want.shape}, got {got.shape}. {hint}")
    bad = ~np.isfinite(got)
    if np.any(bad):
        k = tuple(int(i) for i in np.argwhere(bad)[0])
        raise Diagnosis(
            "wrong-value",
            f"{name} holds {np.sum(bad)} non-finite value(s): at {list(k)} it is "
            f"{got[k]} where {want[k]:.6g} belongs. {hint}",
        )
    err = np.abs(got - want)
    k = np.unravel_index(int(np.argmax(err)), err.shape)
    at = f"at {list(map(int, k))} it is" if k else "it is"  # a single number has no index to name
    raise Diagnosis(
        "wrong-value",
        f"{name} is off by up to {err[k]:.3g}: {at} {got[k]:.6g} where {want[k]:.6g} belongs. {hint}",
    )
