# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false}
# # Lesson 2 — Token embeddings
#
# A language model reads integers: every character of the Lantern Bay corpus becomes an id between
# 0 and `vocab_size - 1`. The first layer of the model turns each id into a vector it can do
# arithmetic with. That layer is nothing more than a table `E` of shape `(vocab_size, C)`: the vector
# of id `i` is row `i` of the table, and training adjusts the rows.
#
# In this lesson you build the table as a class with a **forward** pass (a gather: read the rows)
# and a **backward** pass (a scatter-add: send each gradient back to the row it came from), and you
# prove the backward pass right with a **numerical gradient check**.
#
# What you write: `Embedding.forward`, `Embedding.backward`, `numerical_gradient` and `rel_error`.
# Every graded unit is followed by a self-check cell; run it after each step. Hidden tests draw
# fresh random cases when your notebook is graded, so make the code right, not just the examples.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np

# kit-include: _shared/corpus.py

chars = sorted(set(CORPUS))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
data = np.array([stoi[ch] for ch in CORPUS], dtype=np.int64)
print("vocab_size:", vocab_size, "| ids in the corpus:", len(data))


# %% nbgrader={"grade": false, "grade_id": "self-check-helpers", "locked": true, "schema_version": 3, "solution": false}
# Self-check helpers: run this cell, reading it is optional. The hidden tests that grade your notebook
# word their diagnoses with this same code, so a self-check and the grader tell a mistake the same way,
# fix included, and name a wrong array that is the right one scaled, transposed, shifted or reordered.
import warnings
from contextlib import contextmanager

# kit-include: package:voice.py


# kit-include: _shared/self_check.py


# %% [markdown] nbgrader={"grade": false, "grade_id": "md-embedding", "locked": true, "schema_version": 3, "solution": false}
# ## 1. The table, forward and backward
#
# **Forward.** `forward(idx)` accepts ids of any shape — one id, a sequence `(T,)`, a batch `(B, T)`
# — and returns `E[idx]`, whose shape is `idx.shape + (C,)`. NumPy's fancy indexing does the gather
# in one line. Two things make it a layer rather than a one-liner:
#
# * it **validates** its input: NumPy would happily read `E[-1]` (the last row) for a negative id, so
#   ids outside `[0, vocab_size)` must raise `IndexError` or `ValueError`, and non-integer ids must
#   raise too (`TypeError`, `IndexError` or `ValueError`);
# * it **caches** `idx`, because backward needs to know which rows were read.
#
# **Backward.** The loss depends on row `v` of `E` through every place id `v` was looked up, and
# each of those places passes its upstream gradient through unchanged (the lookup copies the row, a
# derivative of 1). The chain rule adds the effects, so with ids $i_0, \dots, i_{T-1}$ and upstream
# gradient `dout` (the gradient on the output rows, $dX_t$ for slot $t$):
#
# $$dE_v = \sum_{t\,:\, i_t = v} dX_t$$
#
# and rows of ids that were not looked up get zero. For a batch the sum runs over every place `[b, t]`.
# Take the ids `[2, 0, 2]` with
#
#     E   = [[0.1, 0.2], [0.3, -0.1], [0.5, 0.4], [-0.2, 0.6]]    # vocab_size = 4, C = 2
#     dX0 = [[1, 0], [0, 1], [2, 2]]                              # the gradient on the 3 output rows
#
# Forward reads rows 2, 0, 2: `E[ids] = [[0.5, 0.4], [0.1, 0.2], [0.5, 0.4]]`. Backward sends each row
# of `dX0` back to the row it came from. Id 2 sits at t = 0 and t = 2, so
# `dE[2] = dX0[0] + dX0[2] = [1, 0] + [2, 2] = [3, 2]`; id 0 sits at t = 1, so `dE[0] = [0, 1]`;
# rows 1 and 3 stay `[0, 0]`.
#
# The tempting one-liner `dE[idx] += dout` is wrong. NumPy evaluates it as
# `dE[idx] = dE[idx] + dout`, and when an id repeats, the later write simply overwrites the earlier
# one: the repeated row gets one contribution instead of two (for `[2, 0, 2]` it leaves row 2 at
# `dX0[2] = [2, 2]` instead of `[3, 2]`). `np.add.at(dE, idx, dout)` is the
# unbuffered version that adds every occurrence. Start from a fresh `np.zeros_like(E)` on every call,
# so gradients never leak from one batch into the next.

# %% nbgrader={"grade": false, "grade_id": "embedding", "locked": false, "schema_version": 3, "solution": true}
class Embedding:
    """A learned lookup table: id -> row of E."""

    def __init__(self, vocab_size, C, seed=42):
        self.vocab_size = vocab_size
        self.C = C
        self.E = np.random.default_rng(seed).standard_normal((vocab_size, C)) * 0.02
        self.cache = None
        self.dE = None

    def forward(self, idx):
        """Gather the rows of E for integer ids of any shape; cache what backward needs."""
        ### BEGIN SOLUTION
        idx = np.asarray(idx)
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"token ids must be integers, got dtype {idx.dtype}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.vocab_size):
            raise IndexError(f"token ids must lie in [0, {self.vocab_size}), got {idx.min()}..{idx.max()}")
        self.cache = idx
        return self.E[idx]
        ### END SOLUTION

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        ### BEGIN SOLUTION
        idx = self.cache
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, idx, dout)
        return None
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-embedding-forward", "locked": true, "points": 4, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.embedding_forward(Embedding)
### END HIDDEN TESTS
# Self-check: the forward gather, for a sequence, a batch, a 3-D array of ids and a single id.
with self_check("Embedding.forward"):
    emb = Embedding(vocab_size, 8)
    for ids in (data[:5], data[:12].reshape(3, 4), data[:12].reshape(2, 3, 2)):
        out = emb.forward(ids)
        require(np.shape(out) == ids.shape + (8,), "wrong-shape", (
            f"forward(ids) for ids of shape {ids.shape} should have shape {ids.shape + (8,)}, got {np.shape(out)}: "
            "index E with the ids as they come, of any shape, without flattening or reshaping them"))
        expect_close(f"forward(ids) for ids of shape {ids.shape}", out, emb.E[ids],
                     hint="Each id is replaced by its row of E: return E[idx].")
    one = np.asarray(emb.forward(np.int64(4)))
    require(one.shape == (8,), "wrong-shape", f"forward(4) for a single id should be one row of shape (8,), got {one.shape}: index E with the ids as given (E[idx] has shape idx.shape + (C,)), without reshaping them first")

# %% nbgrader={"grade": true, "grade_id": "test-embedding-bad-ids", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.embedding_bad_ids(Embedding)
### END HIDDEN TESTS
# Self-check: ids outside [0, vocab_size) must be refused, not silently wrapped around.
with self_check("Embedding.forward rejects bad ids"):
    emb = Embedding(5, 3)
    for bad in (np.array([0, 5]), np.array([-1, 2])):
        try:
            emb.forward(bad)
        except (IndexError, ValueError):
            pass
        else:
            raise Diagnosis("no-error-raised", f"forward({bad.tolist()}) should raise IndexError or ValueError for vocab_size=5")
    try:
        emb.forward(np.array([0.0, 1.5]))
    except (TypeError, IndexError, ValueError):
        pass
    else:
        raise Diagnosis("no-error-raised", "forward([0.0, 1.5]) should raise TypeError, IndexError or ValueError: token ids are integers")

# %% nbgrader={"grade": true, "grade_id": "test-embedding-backward", "locked": true, "points": 6, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.embedding_backward(Embedding)
### END HIDDEN TESTS
# Self-check: the ids [2, 0, 2] from the lesson, then a batch of B = 3 corpus sequences with repeated letters.
with self_check("Embedding.backward"):
    ids = np.array([2, 0, 2])
    dX0 = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    emb = Embedding(4, 2)
    emb.forward(ids)
    require(emb.backward(dX0) is None, "wrong-value", "backward returns None; it stores the gradient in self.dE")
    require(np.shape(emb.dE) == emb.E.shape, "wrong-shape", f"dE should have the shape of E {emb.E.shape}, got "
            f"{np.shape(emb.dE)}: one row per id of the table, not one per place in the batch. Start from "
            "np.zeros_like(self.E) and add each slice of dout to the row of its id.")
    dE = np.array(emb.dE, dtype=float)
    if np.allclose(dE, [[0, 1], [0, 0], [2, 2], [0, 0]]):  # what dE[ids] += dX0 leaves: the last write to row 2 wins
        probe = Embedding(3, 2)  # the smallest case: ids [0, 0] and a dout of ones
        probe.forward(np.array([0, 0]))
        probe.backward(np.ones((2, 2)))
        raise say("scatter-overwrite", row=0, want=np.array([2.0, 2.0]), got=np.asarray(probe.dE)[0],
                  smallest="ids [0, 0] with a dout of ones",
                  detail=f"In this self-check's case, ids [2, 0, 2] with dout = [[1, 0], [0, 1], [2, 2]], row 2 should "
                         f"be dout[0] + dout[2] = [3.0, 2.0]; yours is {fmt(dE[2])}.")
    expect_close("dE for ids [2, 0, 2]", dE, [[0, 1], [0, 0], [3, 2], [0, 0]],
                 hint="Row v of dE is the sum of dout[t] over every t with ids[t] == v.")

    ids = data[:12].reshape(3, 4)  # "the lamp kee": ' ' sits at 2 places, 'e' at 3
    dout = (np.arange(60).reshape(3, 4, 5) % 7 - 3).astype(float)  # small whole numbers, easy to add by hand
    emb = Embedding(vocab_size, 5)
    emb.forward(ids)
    emb.backward(dout)
    require(np.shape(emb.dE) == (vocab_size, 5), "wrong-shape",
            f"dE should have the shape of E {(vocab_size, 5)}, got {np.shape(emb.dE)}: start from np.zeros_like(self.E).")
    dE = np.array(emb.dE, dtype=float)
    # the right rows, worked out by hand from dout and checked in: ' ' = dout[0, 3] + dout[2, 0],
    # 'e' = dout[0, 2] + dout[2, 2] + dout[2, 3], every other letter of "the lamp kee" one slice of dout
    rows = {" ": [0, 2, -3, -1, 1], "e": [1, -3, 0, 3, -1], "a": [1, 2, 3, -3, -2], "h": [2, 3, -3, -2, -1],
            "k": [0, 1, 2, 3, -3], "l": [3, -3, -2, -1, 0], "m": [-1, 0, 1, 2, 3], "p": [-3, -2, -1, 0, 1],
            "t": [-3, -2, -1, 0, 1]}
    want = np.zeros((vocab_size, 5))
    for ch, row in rows.items():
        want[stoi[ch]] = row
    v = stoi["e"]
    if np.allclose(dE[v], dout[2, 3]) and not np.allclose(dE, want):  # the last of the three writes to 'e' won
        raise say("scatter-overwrite", row=v, want=fmt(want[v]), got=fmt(dE[v]),
                  detail=f"Id {v} (the letter e) sits at three places of this batch of shape {ids.shape}, "
                         "and its row of dE holds only the last of its three slices of dout.")
    expect_close(f"dE for ids of shape {ids.shape}", dE, want, sizes={"B": 3, "T": 4},
                 hint="Row v of dE is the sum of dout[b, t] over every place [b, t] where id v was looked up.")

# %% nbgrader={"grade": true, "grade_id": "test-embedding-backward-fresh", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.embedding_backward_fresh(Embedding)
### END HIDDEN TESTS
# Self-check: two backward calls with the same dout give the same dE (each call starts from zeros).
with self_check("Embedding.backward starts from zeros"):
    ids = data[:12].reshape(2, 6)
    g = np.random.default_rng(1).standard_normal((2, 6, 4))
    emb = Embedding(vocab_size, 4)
    emb.forward(ids)
    emb.backward(g)
    first = np.array(emb.dE, copy=True)
    emb.backward(g)
    if not np.allclose(emb.dE, first):
        raise say("grad-accumulates", grad="dE", table="E",
                  detail=f"Calling backward twice changed dE by up to {np.abs(np.asarray(emb.dE) - first).max():.3g}.")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-add-at-demo", "locked": true, "schema_version": 3, "solution": false}
# ### `np.add.at` and `+=`, side by side
#
# The cell below runs the `[2, 0, 2]` example both ways on plain arrays, then through your `backward`.
# Only row 2 differs: `np.add.at` adds both slices of `dX0` that belong to id 2, while `+=` keeps the
# last one.

# %% nbgrader={"grade": false, "grade_id": "demo-add-at", "locked": true, "schema_version": 3, "solution": false}
ids = np.array([2, 0, 2])
dX0 = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
with_add_at = np.zeros((4, 2))
np.add.at(with_add_at, ids, dX0)
with_plus_equals = np.zeros((4, 2))
with_plus_equals[ids] += dX0
print("row | np.add.at | dE[ids] += dX0")
for v in range(4):
    print(f"  {v} | {with_add_at[v]} | {with_plus_equals[v]}")
emb = Embedding(4, 2)
emb.E = np.array([[0.1, 0.2], [0.3, -0.1], [0.5, 0.4], [-0.2, 0.6]])
print("E[ids] =", emb.forward(ids).tolist())
emb.backward(dX0)
print("your backward, row 2:", emb.dE[2], "(np.add.at gives [3. 2.], += gives [2. 2.])")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-gradcheck", "locked": true, "schema_version": 3, "solution": false}
# ## 2. Checking a gradient numerically
#
# A backward pass is a claim about derivatives, and derivatives can be measured. Nudge one entry of
# a parameter up by `eps`, evaluate the loss, nudge it down by `eps`, evaluate again:
#
# $$\frac{\partial L}{\partial x_i} \approx \frac{L(x_i + \epsilon) - L(x_i - \epsilon)}{2\epsilon}$$
#
# This **central** difference is accurate to order $\epsilon^2$; the one-sided
# $(L(x_i+\epsilon) - L(x_i))/\epsilon$ is only accurate to order $\epsilon$ and can hide or fake a
# bug. The rules for `numerical_gradient(f, x, eps=1e-6)`:
#
# * `f` takes no arguments: it reads `x` (and whatever else it closes over) and returns a scalar;
#   you change `x` **in place** and call `f()` again;
# * nudge **one entry** at a time, every entry in turn: `for i in np.ndindex(x.shape)` gives the index
#   tuples of any shape (a loop over `range(len(x))` would visit whole rows of a 2-D `x`);
# * the two evaluations lie `2 * eps` apart, so the difference is divided by `2 * eps`, not `eps`;
# * after each nudge, put the **exact** old value back (`x[i] = old`, not `x[i] -= eps`, which leaves
#   rounding residue), so `x` is unchanged when you return.
#
# To compare an analytic gradient `a` with a numerical one `b`, use the relative error
# `max(|a - b| / max(1e-12, |a| + |b|))`, taken entry by entry. In float64 a correct backward reaches
# about `1e-10`; anything above `1e-5` is a bug.

# %% nbgrader={"grade": false, "grade_id": "numerical-gradient", "locked": false, "schema_version": 3, "solution": true}
def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of the scalar f() with respect to every entry of x (restored after)."""
    ### BEGIN SOLUTION
    grad = np.zeros(x.shape, dtype=np.float64)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f()
        x[i] = old - eps
        minus = f()
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-numerical-gradient", "locked": true, "points": 4, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.numerical_gradient_values(numerical_gradient)
### END HIDDEN TESTS
# Self-check: the gradient of sum(x**3) is 3 x**2, and x comes back untouched.
with self_check("numerical_gradient"):
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.1, -1.5]])
    before = x.copy()
    eps = 1e-3
    g = numerical_gradient(lambda: np.sum(x ** 3), x, eps=eps)
    require(np.shape(g) == x.shape, "wrong-shape", f"the gradient should have the shape of x {x.shape}, got {np.shape(g)}: start from np.zeros(x.shape) and fill one entry per nudge")
    g = np.asarray(g, dtype=float)
    nudged = x.copy()
    x[...] = before  # judge the values with x as it was; restoring it is checked last
    # for f = sum(x**3) both differences are exact polynomials: the central one is 3 x**2 + eps**2
    central = 3 * x ** 2 + eps ** 2
    one_sided = 3 * x ** 2 + 3 * x * eps + eps ** 2  # (f(x+eps) - f(x)) / eps
    if np.abs(g - 3 * x ** 2).max() >= 1e-5:
        if np.allclose(g, one_sided, rtol=1e-6, atol=1e-9):
            raise say("one-sided-difference", detail=f"Yours matches the one-sided (f(x+eps) - f(x)) / eps, off by up "
                                                     f"to {np.abs(g - 3 * x ** 2).max():.2e} at eps=1e-3.")
        if not np.any(g):
            raise Diagnosis("wrong-value", (
                "numerical_gradient gave all zeros: f() never saw your nudges. f reads x itself, so nudge x in place, "
                "x[i] = old + eps, not an entry of a copy (x.flatten(), x.copy(), np.array(x) and x.ravel() of a "
                "non-contiguous x are copies); for i in np.ndindex(x.shape) walks every entry of x itself."))
        # a loop over range(len(x)) nudges a whole row x[i]: each value is the row's sum of 3 x**2, plus eps**2 per entry
        by_rows = np.broadcast_to(np.sum(3 * x ** 2 + eps ** 2, axis=1, keepdims=True), x.shape)
        if np.allclose(g, by_rows, rtol=1e-6, atol=1e-7):
            raise Diagnosis(
                "wrong-value",
                f"numerical_gradient gave one value per row of x (x has shape {x.shape}): it nudges the whole row x[i] "
                "at once, as a loop over range(len(x)) does on a 2-D x, so each value mixes the derivatives of a whole "
                "row. Loop over every entry instead, for i in np.ndindex(x.shape), so x[i] is one number.")
        if np.allclose(g, one_sided / 2, rtol=1e-6, atol=1e-9):
            raise Diagnosis("scaled", "numerical_gradient is about 1/2 of the right values: it matches the one-sided "
                                      "difference (f(x+eps) - f(x)) divided by 2 * eps. Take f(x-eps) as the second "
                                      "value, as the central difference (f(x+eps) - f(x-eps)) / (2 * eps) does.")
        expect_close("numerical_gradient of sum(x**3)", g, central, rtol=1e-6, atol=1e-7,
                     hint="numerical_gradient is (f(x+eps) - f(x-eps)) / (2 * eps): the two evaluations lie 2 * eps "
                          "apart, from x - eps to x + eps, so the difference is divided by 2 * eps.")
    if not np.array_equal(nudged, before):
        raise say("no-restore", detail=f"x changed by up to {np.abs(nudged - before).max():.3g}.")

# %% nbgrader={"grade": true, "grade_id": "test-numerical-gradient-restore", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.numerical_gradient_restore(numerical_gradient)
### END HIDDEN TESTS
# Self-check: x is restored bit for bit, even for values where x + eps - eps != x: entries far smaller than
# eps = 1e-6 lose digits when eps is added (1.3e-08 + 1e-06 - 1e-06 is 1.2999999999999918e-08).
with self_check("numerical_gradient restores x"):
    x = np.array([1.3e-08, -7e-08, 2e-09, 0.7])
    before = x.copy()
    numerical_gradient(lambda: float(np.sum(np.sin(x))), x)
    if not np.array_equal(x, before):
        raise say("no-restore", detail=f"x changed in {int(np.sum(x != before))} of {x.size} entries, by up to "
                                       f"{np.abs(x - before).max():.3g}.")

# %% nbgrader={"grade": false, "grade_id": "rel-error", "locked": false, "schema_version": 3, "solution": true}
def rel_error(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|), as a float."""
    ### BEGIN SOLUTION
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-rel-error", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.rel_error_values(rel_error)
### END HIDDEN TESTS
# Self-check: relative, entry by entry, and safe when both entries are zero.
with self_check("rel_error"):
    r = rel_error(np.array([1.0, 100.0]), np.array([1.0, 101.0]))
    require(abs(r - 1 / 201) < 1e-12, "wrong-value", f"rel_error([1, 100], [1, 101]) should be 1/201 = {1 / 201:.6g}, got {r}")
    z = rel_error(np.zeros(3), np.zeros(3))
    require(z == 0.0, "wrong-value", f"rel_error of two zero arrays should be 0.0 (the 1e-12 floor avoids 0/0), got {z}")
    # a small entry far off next to a large one that agrees: entry by entry the first is off by 1/3 of |a| + |b|
    r = rel_error(np.array([0.001, 100.0]), np.array([0.002, 100.0]))
    if abs(r - 0.001 / 200.003) < 1e-12 or abs(r - 0.001 / 200) < 1e-12:
        raise Diagnosis("wrong-value", f"rel_error([0.001, 100], [0.002, 100]) should be 1/3 (entry 0: |0.001 - 0.002| / "
                                       f"(0.001 + 0.002)), got {r:.3g}: the differences and the sizes were each taken "
                                       "over the whole array, so the large entry that agrees hides the small one that "
                                       "does not. Divide entry by entry first (with np.maximum for the 1e-12 floor), "
                                       "then take the largest ratio.")
    require(abs(r - 1 / 3) < 1e-12, "wrong-value", f"rel_error([0.001, 100], [0.002, 100]) should be 1/3 (entry 0: "
                                                   f"|0.001 - 0.002| / (0.001 + 0.002)), got {r:.6g}. Take the ratio "
                                                   "entry by entry, then the largest of them.")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-check-table", "locked": true, "schema_version": 3, "solution": false}
# ## 3. The whole check, on the corpus
#
# Put the pieces together: embed a batch of real corpus ids (full of repeated letters), pick a fixed
# random `G`, and use the loss `L = sum(out * G)`. Its gradient with respect to the output is exactly
# `G`, so `backward(G)` must produce `dL/dE`, which `numerical_gradient` measures independently.
# A correct layer lands near `1e-10`.

# %% nbgrader={"grade": false, "grade_id": "demo-gradcheck", "locked": true, "schema_version": 3, "solution": false}
# kit-include: _shared/verdict.py


emb = Embedding(vocab_size, 6)
idx = data[:24].reshape(3, 8)
G = np.random.default_rng(0).standard_normal((3, 8, 6))
emb.forward(idx)
emb.backward(G)
num_dE = numerical_gradient(lambda: np.sum(emb.forward(idx) * G), emb.E)
err = rel_error(emb.dE, num_dE)
print("ids in the batch:", idx.size, "| distinct ids:", len(np.unique(idx)))
print("max relative error of dE:", err)
print(gradcheck_verdict({"dE": err}))
