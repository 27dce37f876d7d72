# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false}
# # Lesson 3 — Sinusoidal positional encoding
#
# Lesson 1 showed that self-attention cannot tell a sequence from a shuffle of it: move the inputs
# around and the outputs just move with them. The fix is to add a vector to each slot that says
# *where* the slot is, so the token at position 3 enters attention as "token + position 3".
#
# Where should those position vectors come from? The original Transformer did not learn them; it
# computed them with a formula, one row per position, from sines and cosines of different speeds.
# The table has no parameters, and it has three properties worth understanding:
#
# * **unique** — no two positions get the same row;
# * **bounded** — every entry lies in `[-1, 1]`, whatever the position, so a late position is no
#   louder than an early one;
# * **extrapolatable** — the formula works for any position, including ones far beyond any sequence
#   seen in training, and moving `k` positions along is the *same* linear map at every position.
#
# What you write: `sinusoidal_table`, which builds the `(T, C)` table, and `shift_matrix`, the
# `(C, C)` matrix that moves any row of the table `k` positions forward. Every graded unit is
# followed by self-check cells; hidden tests draw fresh sizes, bases and shifts when your notebook
# is graded, so make the code right in general, not just for the examples.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np


# %% nbgrader={"grade": false, "grade_id": "self-check-helpers", "locked": true, "schema_version": 3, "solution": false}
# Self-check helpers: run this cell, reading it is optional. The hidden tests that grade your notebook
# word their diagnoses with this same code, so a self-check and the grader tell a mistake the same way,
# fix included, and name a wrong array that is the right one scaled, transposed, shifted or reordered.
import warnings
from contextlib import contextmanager

# kit-include: package:voice.py


# kit-include: _shared/self_check.py


def table_mistake(pe, T, C, base=10000.0):
    """Raise the diagnosis of a catalogued table mistake, in the grader's words; return quietly otherwise.
    Rows 0 and 1 are enough: row 0 shows the column layout (sin(0) = 0, cos(0) = 1), row 1 the frequencies."""
    what = f"sinusoidal_table({T}, {C})" + ("" if base == 10000.0 else f" with base={base:g}")
    if not isinstance(pe, np.ndarray) or pe.shape != (T, C) or T < 2:
        return
    row0, row1 = pe[0], pe[1]
    half = (C + 1) // 2
    if C >= 3 and np.allclose(row0, [0.0] * half + [1.0] * (C - half)):
        raise say("halves-not-interleaved", detail=(
            f"{what} has row 0 = {fmt(row0)}: the sines fill columns 0..{half - 1} and the cosines columns "
            f"{half}..{C - 1}, where row 0 should alternate 0, 1, 0, 1, ..."))
    if C >= 2 and np.allclose(row0[0::2], 1) and np.allclose(row0[1::2], 0):
        raise say("sin-cos-swap", got=fmt(row0[0::2]),
                  detail=f"In {what} the odd dims at pos 0 are {fmt(row0[1::2])}; they should be cos(0)=1.")
    flipped = base ** (np.arange(0, C, 2) / C)   # the frequency of each pair with the exponent's sign flipped
    last = 2 * ((C - 1) // 2)                    # the sin column of the last pair
    if C >= 3 and np.allclose(row1[0::2], np.sin(flipped)):
        raise say("freq-sign", detail=(
            f"In {what} the last pair turns {flipped[-1]:.4g} radians per position, the fastest of all instead of the "
            f"slowest: column {last} at position 1 is sin({flipped[-1]:.4g}) = {row1[last]:.4f}."))
    if C >= 2 and np.isclose(row1[1], np.cos(base ** (-1 / C))):
        raise say("freq-per-column", detail=(
            f"In {what} column 1 at position 1 is cos({base ** (-1 / C):.4g}) = {row1[1]:.4f}: the cos column turns "
            f"base**(-1/C) = {base ** (-1 / C):.4g} radians per position where it should turn with column 0, 1 radian "
            f"(cos(1) = {np.cos(1.0):.4f})."))


# %% [markdown] nbgrader={"grade": false, "grade_id": "md-table", "locked": true, "schema_version": 3, "solution": false}
# ## 1. The table
#
# Row `pos` of the table is the encoding of position `pos` (counting from 0), and its `C` columns
# come in pairs. Pair `i` owns columns `2i` and `2i+1` and one frequency, shared by both columns:
#
# $$\omega_i = \frac{1}{\text{base}^{\,2i/C}}, \qquad
#   \text{table}[pos, 2i] = \sin(pos\,\omega_i), \qquad
#   \text{table}[pos, 2i+1] = \cos(pos\,\omega_i)$$
#
# with `base = 10000` by default. Read it as a set of clock hands. Pair 0 has $\omega_0 = 1$: its
# angle grows by one radian per position, a fast hand. Every later pair turns more slowly, because
# the exponent `2i/C` grows with `i` and divides the angle by an ever larger power of the base. The
# last pairs barely move over thousands of positions.
#
# **Worked numbers**, `C = 4`: the pairs have $\omega_0 = 1$ and $\omega_1 = 1/10000^{2/4} = 1/100$.
#
# | pos | col 0: sin(pos) | col 1: cos(pos) | col 2: sin(pos/100) | col 3: cos(pos/100) |
# |---|---|---|---|---|
# | 0 | 0 | 1 | 0 | 1 |
# | 1 | 0.8415 | 0.5403 | 0.0100 | 0.99995 |
# | 2 | 0.9093 | -0.4161 | 0.0200 | 0.9998 |
#
# Three things to get right:
#
# * **interleave** the columns: sin, cos, sin, cos, ... — not all the sines first and all the
#   cosines after them;
# * the exponent of a pair uses `2i`, the index of its **even** column, for *both* columns of the
#   pair (column 3 above uses `2/4`, not `3/4`), and its sign makes the frequencies **shrink**;
# * an **odd** `C` is allowed: the last column, `C - 1`, is then a sine on its own, with angle
#   `pos / base**((C-1)/C)`. With `C = 5` the columns are sin, cos, sin, cos, sin, and the exponents
#   of the three pairs are `0`, `2/5` and `4/5`.
#
# Positions are rows, dims are columns: the result has shape `(T, C)` and dtype float64. `T` and `C`
# that are not positive integers (`0`, `-2`, `2.5`) raise `ValueError`. Broadcasting does the work
# without a loop: a column of positions `(T, 1)` divided by a row of `base**(2i/C)` values gives
# every angle at once, and slices like `table[:, 0::2]` address the even columns.

# %% nbgrader={"grade": false, "grade_id": "sinusoidal-table", "locked": false, "schema_version": 3, "solution": true}
def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    ### BEGIN SOLUTION
    for name, value in (("T", T), ("C", C)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    pos = np.arange(T, dtype=np.float64)[:, None]          # (T, 1)
    two_i = np.arange(0, C, 2, dtype=np.float64)           # 0, 2, 4, ...: one entry per column pair
    angle = pos / base ** (two_i / C)                      # (T, number of pairs)
    table = np.empty((T, C), dtype=np.float64)
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle[:, : C // 2])            # an odd C has one pair without a cos column
    return table
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-table-even", "locked": true, "points": 5, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson03 as _hidden
_hidden.table_even_values(sinusoidal_table)
### END HIDDEN TESTS
# Self-check: the C = 4 table from the worked example (3 positions, so T != C).
with self_check("sinusoidal_table, even C"):
    pe = sinusoidal_table(3, 4)
    table_mistake(pe, 3, 4)
    want = np.array([[np.sin(p), np.cos(p), np.sin(p / 100), np.cos(p / 100)] for p in (0.0, 1.0, 2.0)])
    expect_close("sinusoidal_table(3, 4)", pe, want, sizes={"T": 3, "C": 4}, hint=(
        "Row pos holds position pos, counting from 0 (np.arange(T)), and the columns are sin, cos, sin, cos with "
        "frequencies 1, 1, 1/100, 1/100: the worked example's table."))
    if not isinstance(pe, np.ndarray) or pe.dtype != np.float64:
        raise Diagnosis("wrong-dtype", f"the table should be a float64 array, got {getattr(pe, 'dtype', type(pe).__name__)}")

# %% nbgrader={"grade": true, "grade_id": "test-table-odd", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson03 as _hidden
_hidden.table_odd_values(sinusoidal_table)
### END HIDDEN TESTS
# Self-check: C = 5, whose last column is a sine without a cosine partner (3 positions, so T != C).
with self_check("sinusoidal_table, odd C"):
    pe = sinusoidal_table(3, 5)
    table_mistake(pe, 3, 5)
    w1, w2 = 10000.0 ** (-2 / 5), 10000.0 ** (-4 / 5)
    want = np.array([[np.sin(p), np.cos(p), np.sin(p * w1), np.cos(p * w1), np.sin(p * w2)] for p in (0.0, 1.0, 2.0)])
    expect_close("sinusoidal_table(3, 5)", pe, want, sizes={"T": 3, "C": 5}, hint=(
        "An odd C keeps its last column, a sin on its own: C = 5 gives sin, cos, sin, cos, sin, and the three pairs "
        "use the exponents 0, 2/5 and 4/5."))

# %% nbgrader={"grade": true, "grade_id": "test-table-errors", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson03 as _hidden
_hidden.table_bad_sizes(sinusoidal_table)
### END HIDDEN TESTS
# Self-check: sizes that are not positive integers are refused.
with self_check("sinusoidal_table rejects bad sizes"):
    for T, C in [(0, 4), (3, 0), (-2, 4), (2.5, 4)]:
        try:
            sinusoidal_table(T, C)
        except ValueError:
            continue
        except NotImplementedError:
            raise
        except Exception as e:
            raise Diagnosis("wrong-error", f"sinusoidal_table({T}, {C}) should raise ValueError, not {type(e).__name__} ({e})") from None
        raise Diagnosis("no-error-raised", f"sinusoidal_table({T}, {C}) should raise ValueError: T and C must be positive integers")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-properties", "locked": true, "schema_version": 3, "solution": false}
# ## 2. Unique, bounded, extrapolatable
#
# Take `C = 8`. The frequencies are $10000^{-2i/8} = 10^{-i}$, that is `1, 0.1, 0.01, 0.001` radians
# per position, and a hand with frequency $\omega$ comes back to its start every $2\pi/\omega$
# positions: about `6.3, 63, 628` and `6283` positions for the four pairs.
#
# **Unique.** One fast hand is not enough to name a position: after 44 steps pair 0 has turned 44
# radians, just 0.018 more than seven full turns, so rows 0 and 44 look almost alike in columns 0
# and 1. The slower hands tell them apart: pair 1 has turned 4.4 radians, which puts `sin` at -0.95
# instead of 0. Like the hands of a clock, the pairs together pin the position down long after the
# fastest one has wrapped around.
#
# **Bounded.** Every entry is a sine or a cosine, so it stays in `[-1, 1]` at position 5 and at
# position 50000 alike. For an even `C` every row even has the same length, $\sqrt{C/2}$, because each
# pair contributes $\sin^2 + \cos^2 = 1$. Compare the naive idea of adding the position number itself:
# position 1000 would then weigh a thousand times more than position 1 in the sum with the token
# vector, and sequences longer than any seen in training would push the inputs into values the model
# never met.
#
# **Extrapolatable.** Nothing in the formula depends on a maximum length: the table for 5000
# positions begins with the table for 100, and rows far beyond any training sequence come from the
# same smooth waves. (Section 3 shows the stronger fact behind this.)
#
# The `base` only sets how slow the slowest hand is. A smaller base squeezes the wavelengths together;
# `base = 100` with `C = 8` gives frequencies `1, 0.32, 0.1, 0.032`. The test below checks your table
# with other bases and with thousands of positions.

# %% nbgrader={"grade": true, "grade_id": "test-table-base-length", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson03 as _hidden
_hidden.table_base_and_length(sinusoidal_table)
### END HIDDEN TESTS
# Self-check: another base, and a long table that stays bounded.
with self_check("sinusoidal_table, other bases and long tables"):
    pe = sinusoidal_table(3000, 6, base=100.0)
    require(isinstance(pe, np.ndarray) and pe.shape == (3000, 6), "wrong-shape", f"sinusoidal_table(3000, 6, base=100.0) should have shape (3000, 6), got {np.shape(pe)}: one row per position (T rows) and one column per dimension (C columns), whatever the base")
    table_mistake(pe, 3000, 6, base=100.0)
    require(np.allclose(pe[:2, :2], [[0, 1], [np.sin(1.0), np.cos(1.0)]]), "wrong-value", (
        f"columns 0 and 1 do not depend on the base: rows 0 and 1 should start [0.0, 1.0] and [0.8415, 0.5403], got "
        f"{fmt(pe[:2, :2])}. Make the even-C self-check pass first."))
    w1 = 100.0 ** (-2 / 6)
    require(not np.isclose(pe[1, 2], np.sin(10000.0 ** (-2 / 6))), "wrong-value", (
        f"pe[1, 2] is sin(1 / 10000**(2/6)) = {pe[1, 2]:.4f}: the table ignores its base argument. With base=100 pair 1 "
        f"turns 1/100**(2/6) = {w1:.4f} radians per position."))
    w2 = 100.0 ** (-4 / 6)
    want = np.array([[np.sin(p), np.cos(p), np.sin(p * w1), np.cos(p * w1), np.sin(p * w2), np.cos(p * w2)]
                     for p in (1.0, 2.0, 2999.0)])
    expect_close("rows 1, 2 and 2999 of sinusoidal_table(3000, 6, base=100.0)", pe[[1, 2, 2999]], want, hint=(
        f"With base=100 and C = 6 the three pairs turn 1, 1/100**(2/6) = {w1:.4f} and 1/100**(4/6) = {w2:.4f} radians "
        "per position, and row p holds sin and cos of p times each of them, up to the last position, 2999."))
    require(np.abs(pe).max() <= 1.0, "wrong-value", f"every entry is a sin or a cos, so |entry| <= 1; got {np.abs(pe).max()}")
    pe = sinusoidal_table(4, 3, base=100.0)       # an odd C with another base: the lone sin column uses it too
    w = 100.0 ** (-2 / 3)
    want = np.array([[np.sin(p), np.cos(p), np.sin(p * w)] for p in (0.0, 1.0, 2.0, 3.0)])
    expect_close("sinusoidal_table(4, 3, base=100.0)", pe, want, sizes={"T": 4, "C": 3}, hint=(
        f"Column 2, the lone sin, turns 1/100**(2/3) = {w:.4f} radians per position with base=100."))

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-demo-properties", "locked": true, "schema_version": 3, "solution": false}
# Now look at the properties on a real table: 512 positions, `C = 16`. The cell measures the
# distance between every two distinct rows (the smallest one is clearly above zero), the range of the
# entries and the length of each row.

# %% nbgrader={"grade": false, "grade_id": "demo-properties", "locked": true, "schema_version": 3, "solution": false}
pe = sinusoidal_table(512, 16)
gaps = np.sqrt(((pe[:, None, :] - pe[None, :, :]) ** 2).sum(axis=-1))
np.fill_diagonal(gaps, np.inf)
p, q = np.unravel_index(np.argmin(gaps), gaps.shape)
print("table shape:", pe.shape, "| smallest entry:", pe.min().round(4), "| largest entry:", pe.max().round(4))
print(f"closest two distinct rows: positions {p} and {q}, distance {gaps[p, q]:.4f}")
print("row lengths (all sqrt(8) = 2.8284):", np.unique(np.linalg.norm(pe, axis=1).round(10)))
print("rows 0..99 of a 5000-row table equal a 100-row table:", np.allclose(sinusoidal_table(5000, 16)[:100], sinusoidal_table(100, 16)))
print("wavelength of each pair, in positions:", ", ".join(f"{w:.1f}" for w in 2 * np.pi * 10000.0 ** (np.arange(0, 16, 2) / 16)))

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-shift", "locked": true, "schema_version": 3, "solution": false}
# ## 3. A shift is a rotation
#
# The deepest reason for sines and cosines: **moving `k` positions forward is a linear map that does
# not depend on where you start.** Take one pair, write $a = pos\,\omega_i$ for its angle at
# position `pos` and $t = k\,\omega_i$ for the extra angle `k` steps later. The angle-sum formulas say
#
# $$\sin(a + t) = \cos t \,\sin a + \sin t\,\cos a, \qquad \cos(a + t) = -\sin t\,\sin a + \cos t\,\cos a,$$
#
# so the pair's two entries at position `pos + k` come from its two entries at `pos` through a 2x2
# matrix:
#
# $$\begin{pmatrix}\sin(a+t)\\ \cos(a+t)\end{pmatrix} =
#   \begin{pmatrix}\cos t & \sin t\\ -\sin t & \cos t\end{pmatrix}
#   \begin{pmatrix}\sin a\\ \cos a\end{pmatrix}$$
#
# The matrix holds only `t`, never `a`: the same rotation works at every position. Stack one such
# block per pair along the diagonal, zeros everywhere else, and you get the `(C, C)` matrix `M` with
#
#     table[pos + k] == M @ table[pos]     for every pos.
#
# **Worked numbers**, `C = 2`, `k = 1`: $t = 1$ and `M = [[0.5403, 0.8415], [-0.8415, 0.5403]]`.
# Row 0 is `[0, 1]`, and `M @ [0, 1] = [0.8415, 0.5403]`, which is row 1. With `C = 4` and `k = 3`
# the second block rotates by `3/100 = 0.03`.
#
# Watch the direction. The transposed block `[[cos t, -sin t], [sin t, cos t]]` is also a rotation,
# but by `-t`: it maps row `pos` to row `pos - k`. And since blocks are rotations, shifting by 2 and
# then by 5 is shifting by 7: `M(2) @ M(5) == M(7)`.
#
# `shift_matrix(k, C, base=10000.0)` returns this `M` as a float64 `(C, C)` array. An odd `C` raises
# `ValueError`: its last sine has no cosine partner, and without $\cos a$ the formula for
# $\sin(a + t)$ cannot be written as a fixed matrix acting on the row.

# %% nbgrader={"grade": false, "grade_id": "shift-matrix", "locked": false, "schema_version": 3, "solution": true}
def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    ### BEGIN SOLUTION
    if C % 2:
        raise ValueError(f"shift_matrix needs an even C (sin/cos pairs), got C={C}")
    t = k / base ** (np.arange(0, C, 2, dtype=np.float64) / C)   # one angle per pair
    even = np.arange(0, C, 2)
    M = np.zeros((C, C), dtype=np.float64)
    M[even, even] = np.cos(t)
    M[even, even + 1] = np.sin(t)
    M[even + 1, even] = -np.sin(t)
    M[even + 1, even + 1] = np.cos(t)
    return M
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-shift-matrix", "locked": true, "points": 5, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson03 as _hidden
_hidden.shift_matrix_values(shift_matrix)
### END HIDDEN TESTS
# Self-check: the worked examples, the block structure and M(2) @ M(5) == M(7).
with self_check("shift_matrix"):
    # shift_matrix(3, 4) worked out and checked in: block 0 turns by t = 3, block 1 by 3 / 10000**(2/4) = 0.03
    # (cos 3 = -0.9899924966, sin 3 = 0.14112000806, cos 0.03 = 0.999550033749, sin 0.03 = 0.0299955002025)
    right_3_4 = [[-0.9899924966, 0.14112000806, 0.0, 0.0], [-0.14112000806, -0.9899924966, 0.0, 0.0],
                 [0.0, 0.0, 0.999550033749, 0.0299955002025], [0.0, 0.0, -0.0299955002025, 0.999550033749]]
    # the same with the exponent's sign flipped (block 1 turns by 300), and with a frequency per column
    # (the second row of each block turns by 3 / 10000**(1/4) = 0.3 and 3 / 10000**(3/4) = 0.003)
    flipped_3_4 = [[-0.9899924966, 0.14112000806, 0.0, 0.0], [-0.14112000806, -0.9899924966, 0.0, 0.0],
                   [0.0, 0.0, -0.0220966192787, -0.999755839901], [0.0, 0.0, 0.999755839901, -0.0220966192787]]
    per_column_3_4 = [[-0.9899924966, 0.14112000806, 0.0, 0.0], [-0.295520206661, 0.955336489126, 0.0, 0.0],
                      [0.0, 0.0, 0.999550033749, 0.0299955002025], [0.0, 0.0, -0.0029999955, 0.999995500003]]

    M = shift_matrix(3, 4)
    if np.shape(M) == (4, 4) and np.allclose(M, flipped_3_4):
        raise say("freq-sign", detail=(
            "shift_matrix(3, 4) rotates pair 1 by 3 * 10000**(2/4) = 300, a hundred times faster than pair 0, where it "
            "should turn by 3 / 10000**(2/4) = 0.03."))
    if np.shape(M) == (4, 4) and np.allclose(M, per_column_3_4):
        raise say("freq-per-column", detail=(
            f"In shift_matrix(3, 4) the cos row of each block turns with a frequency of its own: the block of pair 0 "
            f"should rotate both rows by t = 3, but its second row, {fmt(M[1, :2])}, uses 3 / 10000**(1/4) = 0.3 where "
            f"[-sin 3, cos 3] = {fmt([-np.sin(3.0), np.cos(3.0)])} belongs."))
    expect_close("shift_matrix(3, 4)", M, right_3_4, hint=(
        "M is block diagonal, zeros outside the 2x2 blocks: the block of pair 0 rotates by k = 3 and the block of "
        "pair 1 by k / 10000**(2/4) = 0.03; each block is [[cos t, sin t], [-sin t, cos t]] (its transpose rotates by "
        "-t and maps row p to row p - k)."))
    M = shift_matrix(1, 2)
    expect_close("shift_matrix(1, 2)", M, [[0.540302305868, 0.841470984808], [-0.841470984808, 0.540302305868]], hint=(
        "The block acting on (sin a, cos a) is [[cos t, sin t], [-sin t, cos t]] with t = k * w_i: "
        "shift_matrix(1, 2) = [[0.5403, 0.8415], [-0.8415, 0.5403]], and M @ row 0 = M @ [0, 1] gives row 1. "
        "Its transpose rotates by -t: it maps row p to row p - k."))
    if not isinstance(M, np.ndarray) or M.dtype != np.float64:
        raise Diagnosis("wrong-dtype", f"M should be a float64 array, got {getattr(M, 'dtype', type(M).__name__)}")
    expect_close("shift_matrix(2, 6) @ shift_matrix(5, 6)", shift_matrix(2, 6) @ shift_matrix(5, 6), shift_matrix(7, 6),
                 hint="Shifting by 2 and then by 5 is shifting by 7: the angle of each block is k times its frequency.")

# %% nbgrader={"grade": true, "grade_id": "test-shift-matrix-base", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson03 as _hidden
_hidden.shift_matrix_base(shift_matrix)
### END HIDDEN TESTS
# Self-check: the base argument sets the speed of every pair after the first.
with self_check("shift_matrix, other bases"):
    M = shift_matrix(4, 4, base=25.0)
    require(np.allclose(M[:2, :2], [[np.cos(4.0), np.sin(4.0)], [-np.sin(4.0), np.cos(4.0)]]), "wrong-value", (
        f"the first block rotates by k = 4 whatever the base; got {fmt(M[:2, :2])}. Make the shift_matrix "
        "self-check pass first."))
    require(not np.isclose(M[2, 3], np.sin(4 / 100.0)), "wrong-value", (
        "the second block of shift_matrix(4, 4, base=25.0) rotates by 4 / 10000**(2/4) = 0.04: shift_matrix ignores "
        "its base argument."))
    t = 4 / 25.0 ** (2 / 4)
    want = np.zeros((4, 4))
    want[:2, :2] = [[np.cos(4.0), np.sin(4.0)], [-np.sin(4.0), np.cos(4.0)]]
    want[2:, 2:] = [[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]]
    expect_close("shift_matrix(4, 4, base=25.0)", M, want,
                 hint=f"With base=25 the second block of shift_matrix(4, 4) rotates by 4 / 25**(2/4) = {t}.")

# %% nbgrader={"grade": true, "grade_id": "test-shift-matrix-odd", "locked": true, "points": 1, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson03 as _hidden
_hidden.shift_matrix_odd_C(shift_matrix)
### END HIDDEN TESTS
# Self-check: an odd C has a sine with no partner, so no shift matrix exists.
with self_check("shift_matrix rejects an odd C"):
    require(np.shape(shift_matrix(1, 4)) == (4, 4), "wrong-shape", f"shift_matrix(1, 4) should work and have shape (4, 4), got {np.shape(shift_matrix(1, 4))}: a C x C matrix, one 2 x 2 block per pair of columns on its diagonal")
    try:
        shift_matrix(1, 5)
    except ValueError:
        pass
    else:
        raise Diagnosis("no-error-raised", "shift_matrix(1, 5) should raise ValueError: the last sin column has no cos partner")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-demo-shift", "locked": true, "schema_version": 3, "solution": false}
# ## 4. Relative position out of absolute encodings
#
# Each row encodes an *absolute* position, yet the relation between two rows depends only on how
# far apart they are. The cell below shows it three ways on a table with `C = 8`:
#
# * one matrix `M = shift_matrix(5, 8)` carries every row to the row five places later, including
#   rows far past the 50 positions a model might have trained on;
# * `M` is a rotation, so it is orthogonal and undoing it is just its transpose: `M.T == shift_matrix(-5, 8)`;
# * the dot product of rows `p` and `q` is $\sum_i \cos\big((p - q)\,\omega_i\big)$, a function of the
#   offset `p - q` alone. That is the quantity attention computes between two position vectors,
#   which is why this encoding makes "the token 7 places back" an easy pattern to learn.

# %% nbgrader={"grade": false, "grade_id": "demo-shift", "locked": true, "schema_version": 3, "solution": false}
pe = sinusoidal_table(10000, 8)
M = shift_matrix(5, 8)
print("max |table[p + 5] - M @ table[p]| over 9995 positions:", np.abs(pe[5:] - pe[:-5] @ M.T).max())
print("M is orthogonal:", np.allclose(M.T @ M, np.eye(8)), "| M.T shifts back by 5:", np.allclose(M.T, shift_matrix(-5, 8)))
for p, q in [(3, 10), (200, 207), (9000, 9007)]:
    print(f"table[{p}] . table[{q}] = {pe[p] @ pe[q]:.6f}")
