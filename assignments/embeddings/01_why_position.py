# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false}
# # Lesson 1 — Why attention needs position
#
# Back in Module 1 you may have noticed something odd: two copies of the same character produced
# exactly the same attention row, no matter where in the sentence they stood. That was not a bug in
# your code. Self-attention has no idea *where* a token is. It compares every token with every other
# token by content alone, so it treats a sequence like a bag of vectors: shuffle the tokens and the
# outputs come back shuffled in the same way, each one otherwise unchanged. The course overview calls
# this "permutation invariance" (the *set* of outputs does not change); the precise word is
# **permutation equivariance**: permuting the input permutes the output by the same permutation.
#
# For a language model that is fatal: "the boat" and "boat the" would look alike to it. In this
# lesson you build a small attention head, measure the symmetry numerically, and watch it break the
# moment each slot of the sequence gets a position vector added to it.
#
# What you write: `softmax`, `self_attention` and `permutation_gap`. Every graded unit is followed
# by self-check cells; run them after each step. Hidden tests draw fresh random cases when your
# notebook is graded, so make the code right, not just the examples.

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


def softmax_passes_first():
    """The checks of self_attention and permutation_gap run your softmax: when softmax fails its own worked example
    (rows of a 3-D array, the axis attention uses), the mistake is told at softmax, in the same words in every row,
    and not as one of attention's."""
    x = np.array([[[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]]])
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ok = np.allclose(softmax(x, axis=-1), [[[0.09003057317, 0.244728471055, 0.665240955775], [1 / 3] * 3]])
    except NotImplementedError:
        raise
    except Exception:
        ok = False
    require(ok, "wrong-value", (
        "This check runs your softmax (attention turns its scores into weights with it), and softmax does not pass "
        "its own self-check above yet: fix softmax first, as test-softmax-values says; this row is judged once "
        "softmax passes."))


# %% [markdown] nbgrader={"grade": false, "grade_id": "md-softmax", "locked": true, "schema_version": 3, "solution": false}
# ## 1. A softmax that never overflows
#
# Attention turns raw scores into weights with the softmax: for a vector of scores $x$,
#
# $$\mathrm{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}.$$
#
# Every weight is positive and the weights add up to 1. For `[1, 2, 3]` you get
# `[0.0900, 0.2447, 0.6652]`: the largest score wins most of the weight, but not all of it.
#
# **The overflow trap.** float64 cannot hold numbers above about `1.8e308`, and `np.exp(710)` is
# already `inf`. Scores around 1000 are not exotic (large activations, long training), and then the
# formula computes `inf / inf = nan`. Scores around -1000 fail the other way: every exponential
# underflows to 0 and you divide `0 / 0`.
#
# The fix costs one line. Subtracting the same constant $m$ from every score changes nothing, because
# $e^{x_i - m} / \sum_j e^{x_j - m} = e^{-m} e^{x_i} / (e^{-m} \sum_j e^{x_j})$ and the $e^{-m}$
# cancels. Choose $m = \max_j x_j$: the largest shifted score is exactly 0, so no exponential exceeds
# 1 and at least one equals 1, which keeps the sum away from 0. Worked example:
# `softmax([1000, 1001, 1002])` becomes `softmax([-2, -1, 0])` = `[0.0900, 0.2447, 0.6652]`, the same
# numbers as for `[1, 2, 3]`.
#
# **The axis.** `softmax(x, axis=-1)` works on arrays of any shape: every 1-D slice taken along
# `axis` is normalised on its own, so the slices along `axis` sum to 1. Take the max and the sum
# *along that axis* with `keepdims=True`, so that the reduced array broadcasts back against `x`.
# For a `(2, 3)` array, `axis=-1` normalises each row and `axis=0` each column.
#
# Do not change `x` in place (`x -= x.max(...)` would overwrite the caller's array); build a new one.

# %% nbgrader={"grade": false, "grade_id": "softmax", "locked": false, "schema_version": 3, "solution": true}
def softmax(x, axis=-1):
    """Numerically stable softmax: every slice of x along `axis` becomes positive weights summing to 1."""
    ### BEGIN SOLUTION
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-softmax-values", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson01 as _hidden
_hidden.softmax_values(softmax)
### END HIDDEN TESTS
# Self-check: the worked example, then rows (the default axis) and columns (axis=0) of a small array, and the middle
# axis of a 3-D one.
with self_check("softmax"):
    p123 = [0.09003057317, 0.244728471055, 0.665240955775]                  # softmax([1, 2, 3])
    expect_close("softmax([1, 2, 3])", softmax(np.array([1.0, 2.0, 3.0])), p123,
                 hint="Each weight is exp(x_i) / sum_j exp(x_j).")
    x = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]])
    by_rows = np.array([p123, [1 / 3, 1 / 3, 1 / 3]])                        # softmax of each row
    by_cols = np.array([[0.047425873178, 0.119202922022, 0.26894142137],     # softmax of each column
                        [0.952574126822, 0.880797077978, 0.73105857863]])
    rows = softmax(x)
    require(np.array_equal(x, [[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]]), "side-effect", (
        "softmax must not change its input x: build a new array instead of x -= ..."))
    if np.shape(rows) == x.shape and np.allclose(rows, by_cols):
        raise Diagnosis("wrong-axis", "softmax(x) normalises each column (axis 0), but with the default axis=-1 it should "
                                      "normalise each row, the last axis: check the default value of the axis parameter.")
    expect_close("softmax(x)", rows, by_rows, hint=(
        "With the default axis=-1 every row is normalised on its own: softmax([4, 4, 4]) is 1/3 each."))
    cols = softmax(x, axis=0)
    if np.shape(cols) == x.shape and np.allclose(cols, by_rows):
        raise Diagnosis("wrong-axis", "softmax(x, axis=0) normalises each row (the last axis) instead of each column: the "
                                      "axis argument seems to be ignored. Pass axis on to both the max and the sum, with "
                                      "keepdims=True.")
    # a second array, so that a pattern of the first one (its rows rise by 1) cannot pass for a shift or a scale
    x2 = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 1.0]])
    cols2 = softmax(x2, axis=0)
    by_cols2 = np.array([[0.119202922022, 0.73105857863, 0.88079707798],    # softmax([0, 2]), ([1, 0]), ([3, 1])
                         [0.88079707798, 0.26894142137, 0.119202922022]])
    expect_close("softmax(x, axis=0)", cols, by_cols, confirm=[(cols2, by_cols2)], hint=(
        "softmax(x, axis=0) normalises each column: column 2 is softmax([3, 4]) = [0.2689, 0.7311]. Take the max and "
        "the sum along the same axis, axis=axis, each with keepdims=True."))
    expect_close("softmax(x, axis=0) for x = [[0, 1, 3], [2, 0, 1]]", cols2, by_cols2, hint=(
        "Take the max and the sum along the same axis, axis=axis, each with keepdims=True."))
    x3 = np.arange(24.0).reshape(2, 3, 4) % 5                                 # three different sizes
    got = softmax(x3, axis=1)
    for other in (0, 2):
        if np.shape(got) == x3.shape and np.allclose(got, np.apply_along_axis(softmax, other, x3)):
            raise Diagnosis("wrong-axis", f"softmax(x, axis=1) for x of shape (2, 3, 4) normalises along axis {other}, "
                                          "not axis 1: take the max and the sum along axis=axis, with keepdims=True.")
    expect_close("softmax(x, axis=1) for x of shape (2, 3, 4)", got, np.apply_along_axis(softmax, 1, x3), hint=(
        "Every slice x[i, :, j] is normalised on its own, like softmax(x[i, :, j]) on its own."))

# %% nbgrader={"grade": true, "grade_id": "test-softmax-stable", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson01 as _hidden
_hidden.softmax_stable(softmax)
### END HIDDEN TESTS
# Self-check: scores around +1000 and -1000 give the same weights as small scores, without inf or nan.
with self_check("softmax is stable"):
    p123 = [0.09003057317, 0.244728471055, 0.665240955775]                  # softmax([1, 2, 3])
    big = softmax(np.array([1000.0, 1001.0, 1002.0]))

    def without_max(z):                                                      # exp(z) / sum(exp(z)), no max subtracted
        return np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True)

    def same(got, want):
        return np.shape(got) == np.shape(want) and np.allclose(got, want, equal_nan=True)

    if not np.all(np.isfinite(big)):
        if same(big, without_max(np.array([1000.0, 1001.0, 1002.0]))):
            raise say("softmax-unstable", detail=(
                f"softmax([1000, 1001, 1002]) gave {fmt(big)}, which is exp(x) / sum(exp(x)) with no max subtracted."))
        raise Diagnosis("wrong-value", (
            f"softmax([1000, 1001, 1002]) gave {fmt(big)}, not finite weights: whatever is subtracted before np.exp "
            "leaves a score far above 0. Subtract the max of each slice, x.max(axis=axis, keepdims=True), so that the "
            "largest shifted score is 0."))
    expect_close("softmax([1000, 1001, 1002])", big, p123, hint=(
        "Adding the same number to every score changes nothing: it should equal softmax([1, 2, 3])."))
    x = np.array([[-1000.0, -1001.0], [2.0, 1.0]])
    low = softmax(x)
    if not np.all(np.isfinite(low)):  # softmax passed [1000, 1001, 1002], so it subtracts something: what?
        if same(low, without_max(x - x.max())):
            raise say("softmax-unstable", detail=(
                f"softmax([[-1000, -1001], [2, 1]]) gave {fmt(low)}: you subtract one max of the whole array (2), so "
                "row 0's scores become -1002 and -1003, every exp in that row underflows to 0, and 0 / 0 is nan. "
                "Subtract the max along the axis you normalise, so that every slice keeps one exp equal to 1."))
        if same(low, without_max(x - x.max(axis=-1))):
            raise Diagnosis("wrong-value", (
                f"softmax([[-1000, -1001], [2, 1]]) gave {fmt(low)}: x.max(axis=axis) without keepdims=True has shape "
                "(2,), which lines up with the columns of x, not its rows, so entry [i, j] had the max of row j "
                "subtracted; row 1's scores became 1002 and -1, and exp(1002) is inf. Pass keepdims=True, "
                "x.max(axis=axis, keepdims=True), so that each slice has its own max subtracted."))
        raise Diagnosis("wrong-value", (
            f"softmax([[-1000, -1001], [2, 1]]) gave {fmt(low)}, not finite weights. Subtract the max of each slice along "
            "axis, x.max(axis=axis, keepdims=True): then no exp exceeds 1 and every slice keeps one exp equal to 1."))
    expect_close("softmax([[-1000, -1001], [2, 1]])", low, [[0.73105857863, 0.26894142137]] * 2, hint=(
        "Row 0 should equal softmax([2, 1]) = [0.7311, 0.2689]: subtract the max of each row, "
        "x.max(axis=axis, keepdims=True)."))

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-attention", "locked": true, "schema_version": 3, "solution": false}
# ## 2. One attention head
#
# The input is a batch of sequences `X` of shape `(B, T, C)`: `B` sequences, `T` tokens each, every
# token a vector of width `C`. Three weight matrices of shape `(C, hs)` project each token to a
# **query**, a **key** and a **value** of width `hs` (the head size):
#
# * `Q = X @ Wq`, `K = X @ Wk`, `V = X @ Wv`, each `(B, T, hs)`;
# * `scores = Q @ Kᵀ / sqrt(hs)`, shape `(B, T, T)`: entry `[b, t, s]` says how well query `t` matches
#   key `s`. Transpose only the last two axes of `K` (`K.swapaxes(-1, -2)` or
#   `K.transpose(0, 2, 1)`); `K.T` on a 3-D array would reverse all three axes;
# * `weights = softmax(scores)` over the **last** axis, the keys: row `t` of the weights is how query
#   `t` spreads its attention over the `T` tokens, and each row sums to 1;
# * `out = weights @ V`, shape `(B, T, hs)`: token `t` receives a weighted average of the values.
#
# There is no mask in this lesson: every token may look at every other token.
#
# **Why divide by `sqrt(hs)`?** A query and a key with `hs` independent entries of variance 1 have a
# dot product with variance `hs`. With `hs = 64` the raw scores spread over about ±8, the softmax
# puts nearly all the weight on one token, and its gradients vanish. Dividing by `sqrt(hs)` brings
# the spread back to about 1, whatever the head size. Note that `hs` is the head size,
# `Wq.shape[1]`, not the width `C` of the input.
#
# A worked example with `T = 2`, `C = hs = 2` and all three matrices the identity:
# `X = [[1, 0], [0, 1]]` gives `scores = [[1, 0], [0, 1]] / sqrt(2) = [[0.7071, 0], [0, 0.7071]]`, so
# row 0 of the weights is `softmax([0.7071, 0]) = [0.6698, 0.3302]`, and since `V = X`, that is also
# row 0 of the output. Forget the scaling and you get `softmax([1, 0]) = [0.7311, 0.2689]` instead.
# Here `C` and `hs` are equal, so dividing by `sqrt(C)` would look right; the self-check also runs a batch of two
# sequences with `C = 3` and `hs = 4`, where only `sqrt(hs)` gives the right weights.
#
# Use your own `softmax` from above.

# %% nbgrader={"grade": false, "grade_id": "self-attention", "locked": false, "schema_version": 3, "solution": true}
def self_attention(X, Wq, Wk, Wv):
    """One attention head, no mask: X (B, T, C), each W (C, hs) -> (B, T, hs)."""
    ### BEGIN SOLUTION
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    hs = Wq.shape[1]
    scores = Q @ K.swapaxes(-1, -2) / np.sqrt(hs)
    weights = softmax(scores, axis=-1)
    return weights @ V
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-attention-values", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson01 as _hidden
_hidden.attention_values(self_attention, softmax)
### END HIDDEN TESTS
# Self-check: B = 2 sequences, width C = 4 and head size hs = 3. With V the identity the output is the attention
# weights themselves, which sum to 1 over the keys; a small case with Wq != Wk; with Wq = 0 every score is 0 and the
# attention is uniform.
with self_check("self_attention"):
    softmax_passes_first()
    rng = np.random.default_rng(1)
    X = rng.standard_normal((2, 3, 4))
    X[:, :, :3] = np.eye(3)                  # token t has a 1 in column t and 0 in the other first 3 columns,
    weights = np.asarray(self_attention(X, rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), np.eye(4, 3)))  # V = I
    if np.shape(weights) == (2, 3, 3) and not (np.allclose(weights.sum(axis=-1), 1) and np.all(weights >= 0)):
        for axis, which in ((1, "the queries (axis 1)"), (0, "the batch (axis 0)")):
            if np.allclose(weights.sum(axis=axis), 1):
                raise Diagnosis("wrong-axis", (
                    f"With V = I the output is the attention weights, and yours sum to 1 over {which}, not over the "
                    "keys: row t of the weights is how query t spreads its attention over the keys, so the softmax "
                    "runs over the last axis of the (B, T, T) scores, softmax(scores, axis=-1)."))
        raise Diagnosis("wrong-value", (
            "With V = I the output is the attention weights, and the weights of each query are positive and sum to 1 "
            f"over the keys (softmax over the last axis); yours sum to {fmt(weights.sum(axis=-1))}."))
    # Wq != Wk, one-hot tokens, hs = 1: queries 2 and 0, keys 0 and 1, so the scores Q @ K^T are [[0, 2], [0, 0]].
    # Query 0 leans to key 1 (weights softmax([0, 2]) = [0.1192, 0.8808]), query 1 spreads evenly; V = [1, 0]. With the
    # scores K @ Q^T, [[0, 0], [2, 0]], it would be the other way round.
    out = self_attention(np.eye(2)[None], np.array([[2.0], [0.0]]), np.array([[0.0], [1.0]]), np.array([[1.0], [0.0]]))
    w = 1 / (1 + np.exp(2.0))
    if np.shape(out) == (1, 2, 1) and np.allclose(out, [[[0.5], [1 - w]]]):
        raise Diagnosis("wrong-value", (
            "In the case Wq != Wk (queries 2 and 0, keys 0 and 1) your output is what the scores K @ Q^T give: the scores "
            "are K @ Q^T (keys by queries) instead of Q @ K^T: entry [t, s] must compare query t with key s (or Wq and "
            "Wk are swapped)."))  # (this case checks only that; a wrong scale is the next cell's to name)
    X = rng.standard_normal((2, 5, 4))
    Wk, Wv = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    out = self_attention(X, np.zeros((4, 3)), Wk, Wv)
    mean_v = np.broadcast_to((X @ Wv).mean(axis=1, keepdims=True), (2, 5, 3))
    expect_close("self_attention(X, Wq=0, Wk, Wv)", out, mean_v, sizes={"B": 2, "T": 5}, hint=(
        "The output has shape (B, T, hs) = (2, 5, 3). With Wq = 0 every score is 0, every token attends to all 5 "
        "tokens equally, and each output row is the mean of the values V = X @ Wv over the sequence."))

# %% nbgrader={"grade": true, "grade_id": "test-attention-scaling", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson01 as _hidden
_hidden.attention_scaling(self_attention, softmax)
### END HIDDEN TESTS
# Self-check: the worked example from the text (C = hs = 2), then B = 2 sequences with C = 3 and hs = 4. In both,
# Wq = Wk and the tokens are one-hot, so each query scores `score` with itself and 0 with the other token: with the
# scores scaled by s, its weights are softmax([score * s, 0]) = [w, 1 - w], w = 1 / (1 + exp(-score * s)).
with self_check("self_attention scaling"):
    softmax_passes_first()
    def output_when_scaled_by(s, X, Wv, score):
        w = 1 / (1 + np.exp(-score * s))
        return np.array([[w, 1 - w], [1 - w, w]]) @ (X @ Wv)

    X2 = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]])   # (B, T, C) = (2, 2, 3)
    W2 = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])        # (C, hs) = (3, 4)
    for X, W, Wv, score in [(np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.eye(2), np.eye(2), 1.0), (X2, W2, np.eye(3, 4), 2.0)]:
        (B, T, C), hs = X.shape, W.shape[1]
        out = self_attention(X, W, W, Wv)
        wrong = [(1.0, "not scaled at all"), (1 / hs, f"divided by hs = {hs}, not by sqrt(hs)"),
                 (C ** -0.5, f"divided by sqrt(C) = sqrt({C}), with C the width of X"), (1 / C, f"divided by C = {C}"),
                 (hs ** 0.5, f"multiplied by sqrt(hs) = sqrt({hs}), not divided")]
        for scale, how in wrong:
            if (not np.isclose(scale, hs ** -0.5) and np.shape(out) == (B, T, hs)
                    and np.allclose(out, output_when_scaled_by(scale, X, Wv, score))):
                raise say("attention-unscaled", detail=(
                    f"For X of shape {X.shape} (C = {C}) and hs = {hs}, query 0 scores {score:g} with itself and 0 with "
                    f"the other token; divided by sqrt({hs}) that is {score / hs ** 0.5:.4g}, so row 0 of the output "
                    f"should start {fmt(output_when_scaled_by(hs ** -0.5, X, Wv, score)[0, 0, :2])}. Yours starts "
                    f"{fmt(out[0, 0, :2])}: your scores are {how}."))
        expect_close(f"self_attention for X of shape {X.shape} and hs = {hs}", out,
                     output_when_scaled_by(hs ** -0.5, X, Wv, score), sizes={"B": B, "T": T},
                     hint="The scores are Q @ K^T / sqrt(hs), and the softmax turns each row into weights over the keys.")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-equivariance", "locked": true, "schema_version": 3, "solution": false}
# ## 3. Shuffle the input, and the output shuffles along
#
# Here is the blind spot in numbers. The words "lamp" and "palm" use the same four letters in a
# different order. Give every letter a made-up vector, run both words through the same attention
# head, and compare the output of each letter in the two words.

# %% nbgrader={"grade": false, "grade_id": "demo-anagram", "locked": true, "schema_version": 3, "solution": false}
rng = np.random.default_rng(0)
letter_vec = {ch: rng.standard_normal(4) for ch in "almp"}   # a made-up vector per letter
Wq, Wk, Wv = (rng.standard_normal((4, 4)) / 2 for _ in range(3))


def as_batch(word):
    """The word as a batch of one sequence, shape (1, T, C)."""
    return np.array([[letter_vec[ch] for ch in word]])


out_lamp = self_attention(as_batch("lamp"), Wq, Wk, Wv)[0]
out_palm = self_attention(as_batch("palm"), Wq, Wk, Wv)[0]
print("no positions: the output of each letter in 'lamp' and in 'palm'")
for ch in "lamp":
    i, j = "lamp".index(ch), "palm".index(ch)
    print(f"  {ch!r}  lamp: {np.round(out_lamp[i], 4)}  palm: {np.round(out_palm[j], 4)}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-why-equivariant", "locked": true, "schema_version": 3, "solution": false}
# Each letter gets exactly the same output in both words. The reason fits in three lines. Write
# the shuffle as a permutation matrix $\Pi$ acting on the sequence axis, so the shuffled input is
# $\Pi X$. Then
#
# * the projections shuffle along: $Q' = \Pi Q$, $K' = \Pi K$, $V' = \Pi V$;
# * the scores shuffle in both rows and columns: $Q' K'^\top = \Pi\, Q K^\top\, \Pi^\top$, and a
#   row-wise softmax does not care in which order rows and columns come, so the weights become
#   $\Pi A \Pi^\top$;
# * the output is $\Pi A \Pi^\top \Pi V = \Pi (A V)$, because $\Pi^\top \Pi = I$.
#
# So $f(\Pi X) = \Pi f(X)$: nothing in the formula knows which slot a token sits in. The order of
# the words is simply not part of what attention sees.
#
# ## 4. Adding position breaks the symmetry
#
# The cure is to change the input, not the attention: add to the token in slot `t` a vector `P[t]`
# that belongs to the *slot*, one row per position, `P` of shape `(block_size, C)`. A sequence of
# length `T` uses the first `T` rows, `pos = P[:T]`, and the layer sees `X + pos`. When you shuffle
# the tokens, the slots stay where they are: the shuffled input is `X[:, perm] + P[:T]`, which is
# *not* a shuffled copy of `X + P[:T]`, so the output is no longer a shuffled copy either.
# (Lessons 3 and 4 build good tables `P`; here a random one is enough to break the symmetry.)
#
# `permutation_gap(X, perm, Wq, Wk, Wv, P=None)` measures how far attention is from equivariant for
# one permutation `perm` of the `T` slots:
#
# 1. `pos = P[:T]`, or `0` when `P` is `None`;
# 2. `first = self_attention(X[:, perm] + pos, ...)`: shuffle the tokens, then attend;
# 3. `after = self_attention(X + pos, ...)[:, perm]`: attend, then shuffle the outputs the same way;
# 4. return the largest absolute difference `max |first - after|` as one Python float.
#
# Without positions the two agree up to rounding, about `1e-15`. With positions they clearly differ.
# Three ways to get this wrong that look plausible: forgetting to shuffle `after` (then you compare
# outputs of different tokens), shuffling `P` together with `X` (`P[:T][perm]` travels with the
# tokens, so the positions say nothing about slots and the gap is back to 0), and adding `pos` to the
# *output* of attention instead of its input (too late: attention has already ignored the order).

# %% nbgrader={"grade": false, "grade_id": "permutation-gap", "locked": false, "schema_version": 3, "solution": true}
def permutation_gap(X, perm, Wq, Wk, Wv, P=None):
    """max |self_attention(X[:, perm] + pos) - self_attention(X + pos)[:, perm]| with pos = P[:T] (or 0)."""
    ### BEGIN SOLUTION
    T = X.shape[1]
    pos = 0.0 if P is None else P[:T]
    first = self_attention(X[:, perm] + pos, Wq, Wk, Wv)
    after = self_attention(X + pos, Wq, Wk, Wv)[:, perm]
    return float(np.max(np.abs(first - after)))
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-permutation-gap-no-pos", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson01 as _hidden
_hidden.permutation_gap_no_pos(permutation_gap, self_attention)
### END HIDDEN TESTS
# Self-check: without positions the gap is at rounding level, with C = hs and with C != hs.
with self_check("permutation_gap without positions"):
    softmax_passes_first()
    rng = np.random.default_rng(7)
    for B, T, C, hs, perm in [(2, 6, 4, 4, [3, 0, 5, 1, 4, 2]), (3, 5, 4, 2, [2, 0, 4, 1, 3])]:
        X = rng.standard_normal((B, T, C))
        Wq, Wk, Wv = (rng.standard_normal((C, hs)) / 2 for _ in range(3))
        gap = permutation_gap(X, np.array(perm), Wq, Wk, Wv)
        require(np.ndim(gap) == 0, "wrong-shape", f"permutation_gap returns one number, the largest absolute difference; got shape {np.shape(gap)}: take the max over the whole array of differences, with no axis argument")
        # a self_attention that is itself not equivariant is charged by its own self-checks, not again here
        own = np.max(np.abs(self_attention(X[:, perm], Wq, Wk, Wv) - self_attention(X, Wq, Wk, Wv)[:, perm]))
        if own >= 1e-12 and np.isclose(gap, own):
            continue
        require(0 <= gap < 1e-12, "wrong-value", (
            f"without positions shuffling the input only shuffles the output, so the gap should be about 1e-15; got {gap:.3g} "
            f"for X of shape {X.shape} and hs = {hs}. Compare self_attention(X[:, perm]) with self_attention(X)[:, perm]."))

# %% nbgrader={"grade": true, "grade_id": "test-permutation-gap-with-pos", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson01 as _hidden
_hidden.permutation_gap_with_pos(permutation_gap, self_attention)
### END HIDDEN TESTS
# Self-check: with positions the gap is clearly above 0, except for the permutation that moves nothing.
with self_check("permutation_gap with positions"):
    softmax_passes_first()
    rng = np.random.default_rng(7)
    X = rng.standard_normal((2, 6, 4))
    Wq, Wk, Wv = (rng.standard_normal((4, 4)) / 2 for _ in range(3))
    P = rng.standard_normal((8, 4))           # block_size 8 > T = 6: only the first 6 rows are used
    X_before, P_before = X.copy(), P.copy()
    gap = permutation_gap(X, np.array([3, 0, 5, 1, 4, 2]), Wq, Wk, Wv, P)
    # first, because a changed X or P also changes the gap: the cause is told, not its effect
    require(np.array_equal(X, X_before) and np.array_equal(P, P_before), "side-effect", "permutation_gap must not change X or P (use X + pos, not X += pos)")
    require(np.ndim(gap) == 0, "wrong-shape", f"permutation_gap returns one number, the largest absolute difference; got shape {np.shape(gap)}: take the max over the whole array of differences, with no axis argument")
    perm = np.array([3, 0, 5, 1, 4, 2])
    d = (self_attention(X_before[:, perm] + P_before[:6], Wq, Wk, Wv)
         - self_attention(X_before + P_before[:6], Wq, Wk, Wv)[:, perm])  # first - after
    # judged with your own self_attention: a fault of it is charged by its own self-checks, not again here
    require(gap > 1e-3 or np.isclose(gap, np.max(np.abs(d))), "wrong-value", (
        f"with positions the gap should be clearly above 0, got {gap:.3g}. Add pos = P[:T] to the input of attention, in slot "
        "order (not shuffled with the tokens), on both sides."))
    for wrong, words in ((np.mean(np.abs(d)), "returns the mean absolute difference; the gap is the largest one, "
                                              "np.max(np.abs(...))."),
                         (np.max(d), "returns the largest signed difference; take the absolute value first, "
                                     "np.max(np.abs(...)).")):
        if np.isclose(gap, wrong) and not np.isclose(wrong, np.max(np.abs(d))):
            raise Diagnosis("wrong-value", f"permutation_gap {words} Here it gave {gap:.6g}, and max |first - after| is "
                                           f"{np.max(np.abs(d)):.6g}.")
    expect_close("permutation_gap(X, perm, Wq, Wk, Wv, P) for X of shape (2, 6, 4)", gap, np.max(np.abs(d)),
                 hint="The gap is max |self_attention(X[:, perm] + pos) - self_attention(X + pos)[:, perm]|, pos = P[:T].")
    still = permutation_gap(X, np.arange(6), Wq, Wk, Wv, P)
    require(still < 1e-12, "wrong-value", f"the identity permutation moves nothing, so its gap should be 0 even with positions; got {still:.3g}")
    X = rng.standard_normal((3, 5, 4))       # B = 3, T = 5, C = 4, head size 2, and block_size == T
    Wq, Wk, Wv = (rng.standard_normal((4, 2)) / 2 for _ in range(3))
    P = rng.standard_normal((5, 4))
    try:
        gap = permutation_gap(X, np.array([2, 0, 4, 1, 3]), Wq, Wk, Wv, P)
    except ValueError as e:
        raise Diagnosis("crashed", (
            f"permutation_gap for X of shape (3, 5, 4), W of shape (4, 2) and P of shape (5, 4) raised ValueError: {e}. "
            "pos = P[:T] has shape (T, C) and goes into the input of attention, X + pos; the output of attention has "
            "width hs, not C.")) from None
    perm = np.array([2, 0, 4, 1, 3])
    own = np.max(np.abs(self_attention(X[:, perm] + P, Wq, Wk, Wv) - self_attention(X + P, Wq, Wk, Wv)[:, perm]))
    require(gap > 1e-3 or np.isclose(gap, own), "wrong-value", f"with positions the gap should be clearly above 0, got "
            f"{gap:.3g} for X of shape (3, 5, 4) and hs = 2. Add pos = P[:T] to the input of attention, in slot order "
            "(not shuffled with the tokens), on both sides.")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-demo-gap", "locked": true, "schema_version": 3, "solution": false}
# ## 5. See the symmetry break
#
# The cell below repeats the "lamp"/"palm" comparison with a random position table added, then
# measures the gap for a few random shuffles of a longer batch: without positions, with a position
# table of unit scale, and with one scaled by `0.02`, the small initial scale of the learned table
# you build in lesson 4. Even tiny positions break the symmetry; training is what makes them large
# enough to matter.

# %% nbgrader={"grade": false, "grade_id": "demo-gap", "locked": true, "schema_version": 3, "solution": false}
rng = np.random.default_rng(0)
letter_vec = {ch: rng.standard_normal(4) for ch in "almp"}
Wq, Wk, Wv = (rng.standard_normal((4, 4)) / 2 for _ in range(3))
P = rng.standard_normal((8, 4))
out_lamp = self_attention(np.array([[letter_vec[ch] for ch in "lamp"]]) + P[:4], Wq, Wk, Wv)[0]
out_palm = self_attention(np.array([[letter_vec[ch] for ch in "palm"]]) + P[:4], Wq, Wk, Wv)[0]
print("with positions: the output of each letter in 'lamp' and in 'palm'")
for ch in "lamp":
    i, j = "lamp".index(ch), "palm".index(ch)
    print(f"  {ch!r}  lamp: {np.round(out_lamp[i], 4)}  palm: {np.round(out_palm[j], 4)}")

X = rng.standard_normal((3, 8, 4))
print("\ngap for random shuffles of 8 slots:")
print(f"  {'perm':26s} {'no P':>10s} {'P':>10s} {'0.02 * P':>10s}")
for _ in range(4):
    perm = rng.permutation(8)
    gaps = [permutation_gap(X, perm, Wq, Wk, Wv, table) for table in (None, P, 0.02 * P)]
    print(f"  {str(perm):26s} {gaps[0]:10.2e} {gaps[1]:10.2e} {gaps[2]:10.2e}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-summary", "locked": true, "schema_version": 3, "solution": false}
# ## What to take away
#
# * Self-attention compares tokens by content only. Shuffling the tokens shuffles the outputs the
#   same way (equivariance), so on its own it cannot tell "lamp" from "palm".
# * Adding a vector that belongs to each *slot*, `X + P[:T]`, gives identical tokens in different
#   places different inputs, and the symmetry is gone.
# * Positions must be added to the input before attention, in slot order; positions that travel
#   with the tokens, or that arrive after attention, change nothing.
#
# Next, lesson 2 builds the token table that turns character ids into the vectors `X`, and lessons 3
# and 4 build the position tables `P`.
