"""Hidden checks for lesson 3: sinusoidal_table and shift_matrix.

A wrong table is classified by rebuilding it under every combination of the catalogued mistakes
(column layout x frequency formula x first position) and naming the combination the student's table
matches.  The layouts are tried interleave-first, then halves, then swapped, so a table with sines in
the first half and cosines in the second is told to interleave, never that sin and cos are swapped.
Each catalogued mistake it recognises (the ``say`` calls below name them; their words are ``VOICE`` in
autograder/voice.py, which the notebook's self-checks use too) is told through ``say``; a table or matrix
that is the right one transposed or shifted by a position is named as that relationship.
"""

from __future__ import annotations

import contextlib
import functools
import itertools

import numpy as np

from . import call, expect_array, expect_raises, grading_rng, hidden_check
from .calls import current as this_grading
from .diagnostics import Diagnosis, fmt, relationship, say

DEFAULT_BASE = 10000.0
PASS_ATOL = 1e-9  # a correct table or matrix agrees with the reference to ~1e-12
MATCH_ATOL = 1e-6  # looser: only used to recognise which mistake a failing answer makes
CLASSIFY_ROWS = 64  # the variants are rebuilt on at most this many leading rows


# ----------------------------------------------------------------------------------------------
# reference and the catalogued variants
# ----------------------------------------------------------------------------------------------


def _reference_table(T: int, C: int, base: float) -> np.ndarray:
    return _variant_table(T, C, base, "interleave", "right", 0)


def _column_frequency(j: int, i: int, C: int, base: float, freq: str) -> float:
    """The frequency (radians per position) a variant gives column j, which belongs to pair i."""
    if freq == "right":
        return base ** (-2.0 * i / C)
    if freq == "sign":
        return base ** (2.0 * i / C)
    if freq == "per-column":
        return base ** (-1.0 * j / C)
    if freq == "pair-index":
        return base ** (-1.0 * i / C)
    if freq == "base-ignored":
        return DEFAULT_BASE ** (-2.0 * i / C)
    raise ValueError(freq)


def _variant_table(T: int, C: int, base: float, layout: str, freq: str, offset: int) -> np.ndarray:
    """The table a student writes with one column layout, one frequency formula, positions from ``offset``."""
    pos = np.arange(offset, offset + T, dtype=np.float64)
    table = np.empty((T, C))
    half = (C + 1) // 2
    for j in range(C):
        if layout == "halves":
            is_sin, i = (True, j) if j < half else (False, j - half)
        else:
            is_sin, i = (j % 2 == 0), j // 2
            if layout == "swap":
                is_sin = not is_sin
        w = _column_frequency(j, i, C, base, freq)
        table[:, j] = np.sin(pos * w) if is_sin else np.cos(pos * w)
    return table


LAYOUTS = ("interleave", "halves", "swap")
FREQS = ("right", "sign", "per-column", "pair-index", "base-ignored")
OFFSETS = (0, 1)


def _matching_variant(S: np.ndarray, T: int, C: int, base: float):
    """(layout, freq, offset) of the first catalogued variant that S matches, or None."""
    rows = min(T, CLASSIFY_ROWS)
    head = S[:rows]
    for layout in LAYOUTS:
        for freq in FREQS:
            if freq == "base-ignored" and base == DEFAULT_BASE:
                continue
            for offset in OFFSETS:
                if (layout, freq, offset) == ("interleave", "right", 0):
                    continue
                if np.allclose(head, _variant_table(rows, C, base, layout, freq, offset), rtol=0, atol=MATCH_ATOL):
                    return layout, freq, offset
    return None


# ----------------------------------------------------------------------------------------------
# messages
# ----------------------------------------------------------------------------------------------


def _entry(S, ref, p, j) -> str:
    kind = "sin" if j % 2 == 0 else "cos"
    return (
        f"column {j} at position {p} should be {kind}({p} / base**({2 * (j // 2)}/C)) = {ref[p, j]:.6g}, "
        f"got {S[p, j]:.6g} (off by {abs(S[p, j] - ref[p, j]):.3g})"
    )


def _worst(S, ref):
    diff = np.abs(S - ref)
    p, j = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return int(p), int(j)


def _first_wrong(S, ref):
    bad = np.argwhere(~np.isclose(S, ref, rtol=0, atol=PASS_ATOL))
    p, j = bad[0]
    return int(p), int(j)


def _layout_problem(layout, S, ref, C, what) -> Diagnosis:
    half = (C + 1) // 2
    if layout == "halves":
        return say(
            "halves-not-interleaved",
            detail=(
                f"{what} puts the sines in columns 0..{half - 1} and the cosines in columns {half}..{C - 1}: its row 0 is "
                f"{fmt(S[0])}, and it should alternate, {fmt(ref[0])}."
            ),
        )
    odd = f": its odd dims at pos 0 are {fmt(S[0, 1::2])}, they should be cos(0)=1" if C >= 2 else ""
    return say("sin-cos-swap", got=fmt(S[0, 0::2]), detail=f"{what} has sin and cos the other way round{odd}.")


def _freq_problem(freq, S, ref, T, C, base, what) -> Diagnosis:
    last = (C + 1) // 2 - 1  # the last pair
    p = 1 if T > 1 else 0
    if freq == "sign":
        w_last = base ** (-2.0 * last / C)
        return say(
            "freq-sign",
            detail=(
                f"In {what} the exponent has the wrong sign, so the last pair (column {2 * last}) turns {1 / w_last:.3g} "
                f"radians per position instead of {w_last:.3g}: " + _entry(S, ref, p, 2 * last) + "."
            ),
        )
    if freq == "per-column":
        return say(
            "freq-per-column",
            detail=(
                f"{what} gives every column j its own angle pos / base**(j/C), so column 1 (a cos) turns "
                f"{base ** (-1.0 / C):.4g} radians per position instead of the 1 radian of column 0: "
                + _entry(S, ref, p, 1)
                + "."
            ),
        )
    if freq == "pair-index":
        return Diagnosis(
            "wrong-value",
            (
                f"{what}: the exponent of pair i is 2i/C, where 2i is the pair's even column (0, 2, 4, ...); your table "
                f"uses i/C, the pair number, so its frequencies fall only half as fast: "
                + _entry(S, ref, p, min(2, C - 1))
                + "."
            ),
        )
    # base-ignored
    return Diagnosis(
        "wrong-value",
        (
            f"{what} ignores its base argument: with base={base:g} the angle of pair i is pos / {base:g}**(2i/C), but your "
            f"table matches base=10000; " + _entry(S, ref, p, min(2, C - 1)) + "."
        ),
    )


def _offset_problem(S, ref, what) -> Diagnosis:
    """Positions counted from 1: the right table moved up by one row (a relationship, not a catalogue entry)."""
    rows = min(len(S), CLASSIFY_ROWS)
    found = relationship(S[:rows], ref[:rows])
    words = found[1] if found is not None and found[0] == "shifted" else "built for positions 1..T instead of 0..T-1"
    return Diagnosis(
        "shifted",
        (
            f"{what} is {words}. Row p must encode position p, counting from 0: row 0 should be {fmt(ref[0])} "
            f"(sin(0)=0, cos(0)=1), but your row 0 is {fmt(S[0])}, the encoding of position 1. Use np.arange(T), not "
            "np.arange(1, T + 1)."
        ),
    )


def _raise_first(problems) -> None:
    """Raise the first problem (catalogue diagnoses come first); the others follow it as 'Also' lines."""
    first, *rest = problems
    if not rest:
        raise first
    also = "\n".join(f"Also [{d.misconception}]: {d.message}" for d in rest)
    raise Diagnosis(first.misconception, f"{first.message}\n{also}")


def _name_transposed(S, T: int, C: int, base: float, what: str) -> None:
    """Raise the relationship ``transposed`` when S is the right (T, C) table with rows and columns swapped."""
    if isinstance(S, np.ndarray) and S.shape == (C, T) and np.all(np.isfinite(S)):
        found = relationship(S, _reference_table(T, C, base))
        if found is not None and found[0] == "transposed":
            raise Diagnosis(
                "transposed",
                f"{what} is {found[1]}: it should have shape (T, C) = {(T, C)}, one row per "
                f"position and one column per dim; yours has shape {S.shape}.",
            )


def _judge_table(S, T: int, C: int, base: float, what: str) -> None:
    """Raise a Diagnosis unless S is the (T, C) sinusoidal table for ``base``."""
    if isinstance(S, np.ndarray) and S.ndim == 2 and S.shape != (T, C):
        if S.shape == (C, T):
            _name_transposed(S, T, C, base, what)
            raise Diagnosis(
                "wrong-shape",
                f"{what} should have shape (T, C) = {(T, C)}: one row per position, one "
                f"column per dim. Yours has shape {S.shape}, it looks transposed.",
            )
        if C % 2 and S.shape == (T, C - 1):
            raise Diagnosis(
                "wrong-shape",
                f"{what} should have shape {(T, C)}, got {S.shape}. With an odd C the last "
                f"column ({C - 1}) is a sin column on its own, sin(pos / base**({C - 1}/{C})); "
                "your table drops it.",
            )
        if C % 2 and S.shape == (T, C + 1):
            raise Diagnosis(
                "wrong-shape",
                f"{what} should have shape {(T, C)}, got {S.shape}. With an odd C the last "
                f"column ({C - 1}) is a sin column without a cos partner; your table adds "
                "an extra cos column.",
            )
    if isinstance(S, np.ndarray) and S.dtype == np.float32:
        raise Diagnosis(
            "wrong-dtype",
            f"{what} should be float64, got float32: float32 keeps only ~7 digits, so "
            "positions in the thousands lose their angle. Build the table with float64.",
        )
    S = expect_array(what, S, (T, C))
    if not np.all(np.isfinite(S)):
        p, j = (int(v) for v in np.argwhere(~np.isfinite(S))[0])
        raise Diagnosis("wrong-value", f"{what} has a non-finite value at position {p}, column {j}: {S[p, j]}.")
    ref = _reference_table(T, C, base)
    if np.allclose(S, ref, rtol=0, atol=PASS_ATOL):
        return
    variant = _matching_variant(S, T, C, base)
    problems = []
    if variant is not None:
        layout, freq, offset = variant
        if layout != "interleave":
            problems.append(_layout_problem(layout, S, ref, C, what))
        if freq != "right":
            problems.append(_freq_problem(freq, S, ref, T, C, base, what))
        if offset:
            problems.append(_offset_problem(S, ref, what))
    _raise_first(problems or _heuristic_problems(S, ref, T, C, what))


def _pairs_share_angles(S, sines, offset: int) -> bool:
    """Whether each column j of ``sines`` and column j + ``offset`` are a sine and cosine of one angle, row by row."""
    return all(np.allclose(S[:, j] ** 2 + S[:, j + offset] ** 2, 1.0, atol=MATCH_ATOL) for j in sines)


def _heuristic_problems(S, ref, T, C, what) -> list[Diagnosis]:
    """A table outside the catalogued combinations: name the first symptom, in an order that tells them apart
    (the catalogued layouts first, then a recognisable transform of the right table, then where it is off)."""
    half = (C + 1) // 2
    row0 = S[0]
    halves0 = np.r_[np.zeros(half), np.ones(C - half)]
    # a layout is named only where the table is that layout's, whatever its frequencies: row 0 holds sin(0) = 0 and
    # cos(0) = 1 in that layout's columns, and the sine and cosine of each pair share an angle (sin**2 + cos**2 = 1)
    if C >= 3 and np.allclose(row0, halves0, atol=MATCH_ATOL) and _pairs_share_angles(S, range(C - half), half):
        return [_layout_problem("halves", S, ref, C, what)]
    if (
        C >= 2
        and np.allclose(row0[0::2], 1, atol=MATCH_ATOL)
        and np.allclose(row0[1::2], 0, atol=MATCH_ATOL)
        and _pairs_share_angles(S, range(1, C, 2), -1)
    ):
        return [_layout_problem("swap", S, ref, C, what)]
    rows = min(T, CLASSIFY_ROWS)  # the leading rows are enough to name a transform, and quick
    found = relationship(S[:rows], ref[:rows], sizes={"T": T, "C": C})
    if found is not None:
        return [Diagnosis(found[0], f"{what} is {found[1]}.")]
    if not np.allclose(row0, ref[0], rtol=0, atol=PASS_ATOL):
        j = int(np.argmax(np.abs(row0 - ref[0])))
        return [
            Diagnosis(
                "wrong-value",
                f"{what}: row 0 (position 0) should be {fmt(ref[0])}: sin(0)=0 in the even "
                f"columns and cos(0)=1 in the odd ones; your row 0 is {fmt(row0)}, column {j} "
                f"is off by {abs(row0[j] - ref[0, j]):.3g}.",
            )
        ]
    p, j = _first_wrong(S, ref)
    pw, jw = _worst(S, ref)
    where = f"{what}: the first wrong entry: {_entry(S, ref, p, j)}"
    if (pw, jw) != (p, j):
        where += f"; the largest error: {_entry(S, ref, pw, jw)}"
    return [Diagnosis("wrong-value", where + ".")]


# ----------------------------------------------------------------------------------------------
# the table checks
# ----------------------------------------------------------------------------------------------


PROBES = itertools.count()  # a new fresh key at every probe: a probe's own call fills a cache too


def fresh_sizes(name: str, first: int, C: int) -> tuple[int, int]:
    """A first argument (T, or k with its sign) and a C, of C's parity, that no check and no case of the input space
    uses: a key no cache holds yet, whichever of the sizes it is keyed on."""
    n = next(PROBES)
    if name == "sinusoidal_table":
        return 1000 + n % 1000, 50 + 2 * (n % 25) + C % 2  # the checks draw T up to 70 and from 2000, C below 50
    return (3_000_017 + n) * (1 if first >= 0 else -1), 52 + 2 * (n % 24)  # k up to 10**6 in size, C up to 32


def right_when_fresh(fn, name: str, first: int, C: int, base) -> bool:
    """Whether ``fn`` is right on the call with this base and sizes no call of the grading used (fresh_sizes).  A
    wrong result that is the right one of an earlier call comes from kept state only if so: a cache keyed on too
    little builds a fresh key rightly, while code that ignores an argument is as wrong there and is told as that."""
    fresh, C = fresh_sizes(name, first, C)
    made, reference = (_table, _reference_table) if name == "sinusoidal_table" else (_shift, _reference_shift)
    try:
        _, got = made(fn, fresh, C, base)
    except Diagnosis:  # whatever the student's code raised (``call``): not right
        return False
    want = reference(fresh, C, DEFAULT_BASE if base is None else base)
    return isinstance(got, np.ndarray) and got.shape == want.shape and np.allclose(got, want, rtol=0, atol=1e-7)


class Earlier:
    """The calls of one student's function in this grading (``calls``: every check's, not only this one's).  A wrong
    result that is the very right result of an earlier call with other arguments, where a fresh key is built
    rightly, comes from a cache keyed on too little (or state kept between calls), and is told as that."""

    NOUNS = {"sinusoidal_table": "table", "shift_matrix": "matrix"}

    def __init__(self, name: str, fn):
        self.name, self.fn, self.noun = name, fn, self.NOUNS[name]

    @contextlib.contextmanager
    def judging(self, what: str, got, first: int, C: int, base):
        try:
            yield
        except Diagnosis:
            # of any shape: a table kept for T alone has the earlier call's C columns
            before = this_grading().earlier(self.fn, what, got)
            if before is not None and right_when_fresh(self.fn, self.name, first, C, base):
                raise Diagnosis(
                    "stale-state",
                    f"{what} returned the very {self.noun} of an earlier call, {before}: a {self.noun} kept "
                    "from an earlier call is looked up by too little (every argument decides it). Build it "
                    "from the arguments at every call, or key a cache on all of them.",
                ) from None
            raise
        this_grading().right(self.fn, what, got)


def _table(sinusoidal_table, T, C, base=None):
    if base is None:
        what = f"sinusoidal_table({T}, {C})"
        return what, call(what, sinusoidal_table, T, C)
    what = f"sinusoidal_table({T}, {C}, base={base:g})"
    return what, call(what, sinusoidal_table, T, C, base=base)


def _even(rng, lo, hi):
    return 2 * int(rng.integers(lo // 2, hi // 2 + 1))


def _other(rng, lo, hi, avoid):
    """An integer in [lo, hi) that differs from ``avoid``: T != C in every table case, so a transposed table has the
    wrong shape, never by chance the right one."""
    options = [v for v in range(lo, hi) if v != avoid]
    return int(rng.choice(options))


@hidden_check
def table_even_values(sinusoidal_table):
    rng = grading_rng()
    C1, C2 = _even(rng, 6, 32), _even(rng, 2, 8)
    cases = [(_other(rng, 12, 70, C1), C1, None), (_other(rng, 2, 12, C2), C2, None), (1, _even(rng, 2, 10), None)]
    # the boundary classes: one position and one pair (T = 1, C = 2), then calls with the same T and another C, a
    # wider one and the narrower again (a table kept from an earlier call under too little of its arguments, or cut
    # from a wider one, is wrong there whatever the calls before this check were)
    T = int(rng.integers(3, 9))
    _judge_again(sinusoidal_table, *cases, (1, 2, None), (T, 4, None), (T, 6, None), (T, 4, None))


def _judge_again(sinusoidal_table, *calls) -> None:
    """Calls of sinusoidal_table in turn, each judged (a result of an earlier call is told as a stale cache)."""
    earlier = Earlier("sinusoidal_table", sinusoidal_table)
    for T, C, base in calls:
        what, S = _table(sinusoidal_table, T, C, base)
        with earlier.judging(what, S, T, C, base):
            _judge_table(S, T, C, DEFAULT_BASE if base is None else base, what)


@hidden_check
def table_odd_values(sinusoidal_table):
    rng = grading_rng()
    C1 = 2 * int(rng.integers(2, 16)) + 1
    cases = [(_other(rng, 12, 70, C1), C1, None), (_other(rng, 2, 12, 3), 3, None), (int(rng.integers(2, 12)), 1, None)]
    # and the same T with another odd C, a wider one and the narrower again (as table_even_values does)
    T = int(rng.integers(6, 12))
    _judge_again(sinusoidal_table, *cases, (T, 3, None), (T, 5, None), (T, 3, None))


@hidden_check
def table_base_and_length(sinusoidal_table):
    rng = grading_rng()
    base = float(np.round(10.0 ** rng.uniform(1.5, 5.5), 1))
    if base == DEFAULT_BASE:
        base += 1.0
    C_odd = 2 * int(rng.integers(2, 10)) + 1
    cases = [
        (int(rng.integers(2000, 6000)), _even(rng, 8, 48), base),
        (_other(rng, 12, 40, C_odd), C_odd, base),
        (int(rng.integers(3000, 6000)), _even(rng, 4, 16), None),
    ]
    # and a repeated call with another base only (a cache keyed on T and C)
    T, C = int(rng.integers(3, 9)), _even(rng, 4, 8)  # C >= 4 and T >= 2: a table that depends on the base
    _judge_again(sinusoidal_table, *cases, (T, C, None), (T, C, base))


@hidden_check
def table_bad_sizes(sinusoidal_table):
    rng = grading_rng()
    C = _even(rng, 2, 10)
    T = _other(rng, 2, 9, C)  # T != C: a transposed table shows as a wrong shape
    what, S = _table(sinusoidal_table, T, C)
    _name_transposed(S, T, C, DEFAULT_BASE, what)
    expect_array(what, S, (T, C))
    good_C = _even(rng, 2, 10)
    good_T = _other(rng, 2, 9, good_C)
    bad = [
        (0, good_C, "T = 0 is not a positive integer"),
        (good_T, 0, "C = 0 is not a positive integer"),
        (-int(rng.integers(1, 6)), good_C, "a negative T is not a positive integer"),
        (good_T, -int(rng.integers(1, 6)), "a negative C is not a positive integer"),
        (
            int(rng.integers(2, 6)) + 0.5,
            good_C,
            "a fractional T is not a positive integer, even if np.arange accepts it",
        ),
        (good_T, int(rng.integers(2, 6)) + 0.5, "a fractional C is not a positive integer"),
    ]
    for t, c, hint in bad:
        expect_raises(f"sinusoidal_table({t}, {c})", lambda t=t, c=c: sinusoidal_table(t, c), (ValueError,), hint)


# ----------------------------------------------------------------------------------------------
# shift_matrix
# ----------------------------------------------------------------------------------------------


def _reference_shift(k, C, base, freq="right") -> np.ndarray:
    """The shift matrix, or with ``freq`` one of the catalogued frequency mistakes ("sign", "per-column"): the
    sin row of block i turns by k times the frequency of column 2i, its cos row by that of column 2i + 1."""
    M = np.zeros((C, C))
    for i in range(C // 2):
        a = k * _column_frequency(2 * i, i, C, base, freq)
        b = k * _column_frequency(2 * i + 1, i, C, base, freq)
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(b), np.cos(b)]]
    return M


def _block(b) -> str:
    """A 2x2 block on one line."""
    return "[[{:.4f}, {:.4f}], [{:.4f}, {:.4f}]]".format(*np.asarray(b, dtype=np.float64).ravel())


def _same_angle(a, b) -> bool:
    return abs(np.cos(a) - np.cos(b)) + abs(np.sin(a) - np.sin(b)) < MATCH_ATOL


def _judge_shift(M, k, C, base, what: str) -> None:
    if isinstance(M, np.ndarray) and M.dtype == np.float32:
        raise Diagnosis("wrong-dtype", f"{what} should be float64, got float32.")
    M = expect_array(what, M, (C, C))
    if not np.all(np.isfinite(M)):
        raise Diagnosis("wrong-value", f"{what} has non-finite entries.")
    ref = _reference_shift(k, C, base)
    if np.allclose(M, ref, rtol=0, atol=PASS_ATOL):
        return
    p0 = max(0, -k)  # eight positions p whose p + k is a position too
    rows = _variant_table(8, C, base, "interleave", "right", p0)
    gap = float(np.abs(_variant_table(8, C, base, "interleave", "right", p0 + k) - rows @ M.T).max())
    law = (
        f"table[p + {k}] == M @ table[p] fails by up to {gap:.3g} (on a correct table for base={base:g}, "
        f"positions {p0}..{p0 + 7})."
    )
    # 1. block structure
    blocks = np.kron(np.eye(C // 2), np.ones((2, 2))).astype(bool)
    off = np.where(blocks, 0.0, np.abs(M))
    if off.max() > MATCH_ATOL:
        r, c = (int(v) for v in np.unravel_index(int(np.argmax(off)), off.shape))
        raise Diagnosis(
            "wrong-value",
            (
                f"{what} must be block diagonal: a shift only mixes the sin and cos of one frequency, so every entry "
                f"outside the 2x2 blocks on the diagonal is 0. Your M[{r}, {c}] = {M[r, c]:.4g} couples pair {r // 2} "
                f"with pair {c // 2}. {law}"
            ),
        )
    # 2. the catalogued frequency mistakes, told as in the table
    last = C // 2 - 1
    if C >= 4 and np.allclose(M, _reference_shift(k, C, base, "sign"), rtol=0, atol=MATCH_ATOL):
        raise say(
            "freq-sign",
            detail=(
                f"{what} rotates pair i by k * base**(+2i/C): the block of pair {last} turns by "
                f"{k * base ** (2.0 * last / C):.6g} where it should turn by k / base**({2 * last}/C) = "
                f"{k * base ** (-2.0 * last / C):.6g}. {law}"
            ),
        )
    if C >= 2 and np.allclose(M, _reference_shift(k, C, base, "per-column"), rtol=0, atol=MATCH_ATOL):
        raise say(
            "freq-per-column",
            detail=(
                f"In {what} the cos row of each block turns with a frequency of its own: the block of pair 0 is "
                f"{_block(M[:2, :2])}, whose second row uses the angle k * base**(-1/C) = {k * base ** (-1.0 / C):.6g} "
                f"where both rows rotate by the same t = {k:g}. {law}"
            ),
        )
    # 3. each block: a rotation, and by which angle
    transposed, notes = True, []
    for i in range(C // 2):
        blk = M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        want = ref[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        if not np.allclose(blk, want.T, rtol=0, atol=MATCH_ATOL):
            transposed = False
        if np.allclose(blk, want, rtol=0, atol=PASS_ATOL):
            continue
        t = k * base ** (-2.0 * i / C)
        head = (
            f"the block of pair {i} (rows and columns {2 * i}, {2 * i + 1}) should rotate by t = k / base**({2 * i}/C) "
            f"= {t:.6g}: [[cos t, sin t], [-sin t, cos t]] = {_block(want)}; yours is {_block(blk)}"
        )
        is_rotation = (
            abs(blk[0, 0] - blk[1, 1]) < MATCH_ATOL
            and abs(blk[0, 1] + blk[1, 0]) < MATCH_ATOL
            and abs(blk[0, 0] ** 2 + blk[0, 1] ** 2 - 1) < MATCH_ATOL
        )
        if is_rotation:
            phi = float(np.arctan2(blk[0, 1], blk[0, 0]))
            guesses = [
                (base ** (-2.0 * i / C), "one step of pair i, whatever k is: the angle must be multiplied by k"),
                (k * base ** (2.0 * i / C), "k * base**(+2i/C): the frequency exponent has the wrong sign"),
                (k * base ** (-1.0 * i / C), "k / base**(i/C): the exponent uses the pair number i instead of 2i"),
                (k * DEFAULT_BASE ** (-2.0 * i / C), "base=10000 whatever base is passed: use the base argument"),
            ]
            reason = next((why for angle, why in guesses if _same_angle(phi, angle)), None)
            head += f", a rotation by {phi:.6g} (mod 2 pi)" + (f", which is {reason}" if reason else "")
        elif (
            abs(blk[0, 0] ** 2 + blk[0, 1] ** 2 - 1) < MATCH_ATOL
            and abs(blk[1, 0] ** 2 + blk[1, 1] ** 2 - 1) < MATCH_ATOL
            and abs(blk[0, 0] - blk[1, 1]) > MATCH_ATOL
        ):
            a0 = float(np.arctan2(blk[0, 1], blk[0, 0]))
            a1 = float(np.arctan2(-blk[1, 0], blk[1, 1]))
            head += (
                f"; its first row (which gives the new sin) uses the angle {a0:.6g} and its second row (the new cos) "
                f"the angle {a1:.6g} (mod 2 pi), but the two columns of a pair share one frequency, so both rows "
                "use the same t"
            )
        notes.append(head)
    if transposed and C >= 2:
        found = relationship(M, ref)
        words = found[1] if found is not None and found[0] == "transposed" else "the transpose of the right matrix"
        raise Diagnosis(
            "transposed",
            (
                f"{what} is {words}, so it rotates the wrong way: it maps table[p] to table[p - {k}], not table[p + {k}]. "
                "Acting on the column (sin a, cos a), sin(a + t) = cos t * sin a + sin t * cos a and cos(a + t) = "
                "-sin t * sin a + cos t * cos a, so each block is [[cos t, sin t], [-sin t, cos t]]; yours is its transpose. "
                f"Pair 0: should be {_block(ref[:2, :2])}, got {_block(M[:2, :2])}."
            ),
        )
    found = relationship(M, ref)
    if found is not None:
        raise Diagnosis(found[0], f"{what} is {found[1]}: {notes[0]}. {law}")
    raise Diagnosis("wrong-value", f"{what}: {notes[0]}. {law}")


def _shift(shift_matrix, k, C, base=None):
    if base is None:
        what = f"shift_matrix({k}, {C})"
        return what, call(what, shift_matrix, k, C)
    what = f"shift_matrix({k}, {C}, base={base:g})"
    return what, call(what, shift_matrix, k, C, base=base)


@hidden_check
def shift_matrix_values(shift_matrix):
    rng = grading_rng()
    C0 = _even(rng, 2, 8)
    cases = [
        (int(rng.integers(2, 60)), _even(rng, 6, 32)),
        (int(rng.integers(2, 9)), 2),
        (1, _even(rng, 4, 12)),
        (0, C0),
    ]
    # the boundary classes: a negative shift, a large one, and a second call with the same k and another C.  The
    # negative shift's C is not k = 0's: a code whose every negative shift is the identity (no rotation) would give
    # k = 0's very matrix and be told a stale cache instead of what it does
    C_negative = _even(rng, 4, 12)
    C_negative = C_negative if C_negative != C0 else C_negative + 2
    cases += [(-int(rng.integers(1, 40)), C_negative), (int(rng.integers(10**5, 10**6)), _even(rng, 4, 10))]
    k = int(rng.integers(2, 9))
    _shift_again(shift_matrix, *[(k, C, None) for k, C in cases], (k, 2, None), (k, 4, None))


def _shift_again(shift_matrix, *calls) -> None:
    """Calls of shift_matrix in turn, each judged (a result of an earlier call is told as a stale cache)."""
    earlier = Earlier("shift_matrix", shift_matrix)
    for k, C, base in calls:
        what, M = _shift(shift_matrix, k, C, base)
        with earlier.judging(what, M, k, C, base):
            _judge_shift(M, k, C, DEFAULT_BASE if base is None else base, what)


@hidden_check
def shift_matrix_base(shift_matrix):
    rng = grading_rng()
    base = float(np.round(10.0 ** rng.uniform(1.5, 5.5), 1))
    if base == DEFAULT_BASE:
        base += 1.0
    cases = [
        (int(rng.integers(2, 40)), _even(rng, 4, 24), base),
        (int(rng.integers(500, 3000)), _even(rng, 4, 16), base),
    ]
    k = int(rng.integers(2, 9))
    # then another base only; and a negative shift with this base, then its positive twin (a matrix kept for one sign
    # and changed for the other is wrong there whatever the calls before this check were)
    k2, C2 = int(rng.integers(10, 40)), _even(rng, 4, 12)
    _shift_again(shift_matrix, *cases, (k, 4, None), (k, 4, base), (-k2, C2, base), (k2, C2, base))


@hidden_check
def shift_matrix_odd_C(shift_matrix):
    rng = grading_rng()
    k, C = int(rng.integers(1, 9)), _even(rng, 2, 12)
    what, M = _shift(shift_matrix, k, C)
    expect_array(what, M, (C, C))
    C_odd = 2 * int(rng.integers(0, 8)) + 1
    expect_raises(
        f"shift_matrix({k}, {C_odd})",
        lambda: shift_matrix(k, C_odd),
        (ValueError,),
        "with an odd C the last sin column has no cos partner, so no (C, C) matrix shifts it",
    )


# ----------------------------------------------------------------------------------------------
# the input space's trials (hidden.space)
# ----------------------------------------------------------------------------------------------


def integer(value: int, kind: str):
    """``value`` as a Python int or a NumPy integer scalar of ``kind``, widened where it does not fit."""
    if kind == "int":
        return int(value)
    t = np.dtype(kind)
    if not np.iinfo(t).min <= value <= np.iinfo(t).max:
        t = np.dtype("int64") if value < 0 else np.dtype("uint16" if value < 65536 else "uint64")
    return t.type(value)


def _base_of(base):
    """(the base argument, or None to leave it out; its value)"""
    if base == "default":
        return None, DEFAULT_BASE
    if base == "int 100":
        return 100, 100.0
    return base, base


def _written(name, n, C, base) -> str:
    kind = "" if type(n) is int else f" (NumPy {type(n).__name__})"
    return f"{name}({n}{kind}, {C}" + ("" if base is None else f", base={base!r}") + ")"


def _sizes_trial(name, reference, first, case, rng, before_of):
    from .oracle import Result, Trial

    kind = case["int type"]
    n, C = integer(case[first], kind), integer(case["C"], kind)
    base, b = _base_of(case["base"])
    before = before_of(case["before"], case[first], case["C"], base)
    words = words_now = _written(name, n, C, base)
    if before is not None:
        words = f"{_written(name, *before)}, then {words}"
    trial = Trial(words, None)

    def run(fn):
        results, earlier = [], ()
        if before is not None:  # a call judged too: its right result is one a cache may hand out again
            first = fn(*before[:2]) if before[2] is None else fn(*before[:2], base=before[2])
            handed = np.array(first, copy=True) if isinstance(first, np.ndarray) else None
            earlier = (reference(int(before[0]), int(before[1]), DEFAULT_BASE if before[2] is None else before[2]),)
            fresh = functools.partial(right_when_fresh, fn, name, int(before[0]), int(before[1]), before[2])
            results.append(
                Result(
                    "first result",  # the caller's, held while the second call runs
                    first,
                    earlier[0],
                    1e-7,
                    call=_written(name, *before),
                    fresh=fresh,
                    recall=True,  # asked after the second call: what the caller holds then
                    handed=handed,
                )
            )
        got = fn(n, C) if base is None else fn(n, C, base=base)
        fresh = functools.partial(right_when_fresh, fn, name, int(n), int(C), base)
        results.append(
            Result(name, got, reference(int(n), int(C), b), 1e-7, earlier=earlier, call=words_now, fresh=fresh)
        )
        return results

    trial.run = run
    return trial


def _table_before(before, T, C, base):
    return {
        "none": None,
        "same T other C": (T, C + 1, base),
        "other T": (T + 3, C, base),
        "other base": (T, C, 50.0),
    }[before]


def _shift_before(before, k, C, base):
    return {"none": None, "same k other C": (k, C + 2, base), "other k": (k + 5, C, base), "other base": (k, C, 50.0)}[
        before
    ]


def _table_trial(case, rng):
    return _sizes_trial("sinusoidal_table", _reference_table, "T", case, rng, _table_before)


def _shift_trial(case, rng):
    return _sizes_trial("shift_matrix", _reference_shift, "k", case, rng, _shift_before)


def _bad_table_trial(case, rng):
    from .oracle import Trial

    T, C = {"T = 0": (0, 4), "C = 0": (3, 0), "T = -2": (-2, 4), "T = 2.5": (2.5, 4), "C = 3.0": (3, 3.0)}[case["bad"]]
    trial = Trial(f"sinusoidal_table({T!r}, {C!r})", None, raises=(ValueError,))
    trial.run = lambda fn: [fn(T, C)]
    return trial


def _bad_shift_trial(case, rng):
    from .oracle import Trial

    C = int(case["bad"].split("= ")[1])
    trial = Trial(f"shift_matrix(2, {C})", None, raises=(ValueError,))
    trial.run = lambda fn: [fn(2, C)]
    return trial


from .oracle import cover, sweeping  # noqa: E402 - after the checks it extends

cover(
    globals(),
    {
        "table_base_and_length": sweeping("sinusoidal_table(T, C, base)", _table_trial),
        "table_bad_sizes": sweeping("sinusoidal_table(T, C, base)", _bad_table_trial, invalid=True),
        "shift_matrix_values": sweeping("shift_matrix(k, C, base)", _shift_trial),
        "shift_matrix_odd_C": sweeping("shift_matrix(k, C, base)", _bad_shift_trial, invalid=True),
    },
)
