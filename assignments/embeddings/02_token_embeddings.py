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

# kit-include: package:hidden/voice.py


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
# **Backward.** The loss depends on row `i` of `E` through every place id `i` was looked up, so the
# gradient of row `i` is the *sum* of the upstream gradients `dout` at all those places. Take the
# ids `[2, 0, 2]`: row 2 was read twice and collects two slices of `dout`, row 0 collects one, the
# other rows collect nothing.
#
# The tempting one-liner `dE[idx] += dout` is wrong. NumPy evaluates it as
# `dE[idx] = dE[idx] + dout`, and when an id repeats, the later write simply overwrites the earlier
# one: the repeated row gets one contribution instead of two. `np.add.at(dE, idx, dout)` is the
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
# Self-check: the forward gather, for a single sequence and a batch.
with self_check("Embedding.forward"):
    emb = Embedding(vocab_size, 8)
    ids = data[:5]
    out = emb.forward(ids)
    assert out.shape == (5, 8), f"forward(ids) for ids of shape (5,) should have shape (5, 8), got {np.shape(out)}"
    assert np.allclose(out, emb.E[ids]), "row t of the output should be row ids[t] of E"
    batch = data[:12].reshape(3, 4)
    assert emb.forward(batch).shape == (3, 4, 8), "ids of shape (B, T) give an output of shape (B, T, C)"

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
            raise AssertionError(f"forward({bad.tolist()}) should raise IndexError or ValueError for vocab_size=5")

# %% nbgrader={"grade": true, "grade_id": "test-embedding-backward", "locked": true, "points": 6, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.embedding_backward(Embedding)
### END HIDDEN TESTS
# Self-check: the ids [2, 0, 2] from the lesson, then a repeated id.
with self_check("Embedding.backward"):
    emb = Embedding(4, 2)
    emb.forward(np.array([2, 0, 2]))
    dout = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert emb.backward(dout) is None, "backward returns None; it stores the gradient in self.dE"
    assert emb.dE.shape == emb.E.shape, f"dE should have the shape of E {emb.E.shape}, got {emb.dE.shape}"
    emb = Embedding(3, 2)
    emb.forward(np.array([0, 0]))
    emb.backward(np.ones((2, 2)))
    got = emb.dE[0]
    assert np.allclose(got, [2, 2]), (
        f"Row 0 is used twice so its gradient should be [2, 2], got {got}. "
        "dE[idx] += dout keeps one write per repeated id; np.add.at(dE, idx, dout) adds every occurrence.")
    emb = Embedding(4, 2)
    emb.forward(np.array([2, 0, 2]))
    emb.backward(dout)
    assert np.allclose(emb.dE, [[3, 4], [0, 0], [6, 8], [0, 0]]), f"dE should be [[3, 4], [0, 0], [6, 8], [0, 0]], got\n{emb.dE}"

# %% nbgrader={"grade": true, "grade_id": "test-embedding-backward-fresh", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.embedding_backward_fresh(Embedding)
### END HIDDEN TESTS
# Self-check: two backward calls with the same dout give the same dE (each call starts from zeros).
with self_check("Embedding.backward starts from zeros"):
    emb = Embedding(vocab_size, 4)
    emb.forward(data[:6])
    g = np.ones((6, 4))
    emb.backward(g)
    first = emb.dE.copy()
    emb.backward(g)
    assert np.allclose(emb.dE, first), (
        "Calling backward twice changed dE: each backward must start from zeros instead of adding to "
        f"the previous gradient (max difference {np.abs(emb.dE - first).max():.3g}).")

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
# bug. Two rules for `numerical_gradient(f, x, eps=1e-6)`:
#
# * `f` takes no arguments: it reads `x` (and whatever else it closes over) and returns a scalar;
#   you change `x` **in place** and call `f()` again;
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
    g = numerical_gradient(lambda: np.sum(x ** 3), x, eps=1e-3)
    assert np.shape(g) == x.shape, f"the gradient should have the shape of x {x.shape}, got {np.shape(g)}"
    assert np.array_equal(x, before), "x must be restored exactly after each nudge (write back the saved old value)"
    err = np.max(np.abs(g - 3 * x ** 2))
    assert err < 1e-5, (
        f"the gradient of sum(x**3) should be 3*x**2, off by up to {err:.2e} at eps=1e-3. A one-sided difference "
        "(f(x+eps) - f(x)) / eps is off by about 3*x*eps; the check needs central differences.")

# %% nbgrader={"grade": true, "grade_id": "test-numerical-gradient-restore", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson02 as _hidden
_hidden.numerical_gradient_restore(numerical_gradient)
### END HIDDEN TESTS
# Self-check: x is restored bit for bit, even for values where x + eps - eps != x.
with self_check("numerical_gradient restores x"):
    x = np.array([0.1, 0.7, 1e8, -3.3])
    before = x.copy()
    numerical_gradient(lambda: float(np.sum(np.sin(x))), x)
    assert np.array_equal(x, before), (
        f"x must be restored exactly after each nudge; it changed by up to {np.abs(x - before).max():.3g}. "
        "Save old = x[i] and write it back.")

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
    assert abs(r - 1 / 201) < 1e-12, f"rel_error([1, 100], [1, 101]) should be 1/201 = {1 / 201:.6g}, got {r}"
    z = rel_error(np.zeros(3), np.zeros(3))
    assert z == 0.0, f"rel_error of two zero arrays should be 0.0 (the 1e-12 floor avoids 0/0), got {z}"

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-check-table", "locked": true, "schema_version": 3, "solution": false}
# ## 3. The whole check, on the corpus
#
# Put the pieces together: embed a batch of real corpus ids (full of repeated letters), pick a fixed
# random `G`, and use the loss `L = sum(out * G)`. Its gradient with respect to the output is exactly
# `G`, so `backward(G)` must produce `dL/dE`, which `numerical_gradient` measures independently.
# A correct layer lands near `1e-10`.

# %% nbgrader={"grade": false, "grade_id": "demo-gradcheck", "locked": true, "schema_version": 3, "solution": false}
emb = Embedding(vocab_size, 6)
idx = data[:24].reshape(3, 8)
G = np.random.default_rng(0).standard_normal((3, 8, 6))
emb.forward(idx)
emb.backward(G)
num_dE = numerical_gradient(lambda: np.sum(emb.forward(idx) * G), emb.E)
print("ids in the batch:", idx.size, "| distinct ids:", len(np.unique(idx)))
print("max relative error of dE:", rel_error(emb.dE, num_dE))
