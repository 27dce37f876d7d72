# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false}
# # Lesson 5 — Guided project: an embedding layer with positions
#
# The last four lessons built the parts one at a time: why attention needs positions (lesson 1),
# the token table `E` with its gather and scatter-add (lesson 2), a fixed position code (lesson 3)
# and a learned position table `P` (lesson 4). This project puts `E` and `P` into one object,
# `EmbeddingLayer`. It is the input stage of a GPT: integer ids go in, and a `(B, T, C)` array comes
# out in which every vector already knows both *which* token it is and *where* it sits. Every
# attention block downstream reads that array.
#
# A layer the rest of the model depends on has to be trusted, so the project ends with proof: a
# float64 gradient check of both tables, and a check that the output feeds a self-attention head
# as it is.
#
# What you write: `EmbeddingLayer.forward` and `EmbeddingLayer.backward`, including what the
# `freeze_positions` flag does. `__init__` is given. Then come three practice exercises, each with
# its own self-check. They are not graded, but they are the best way to see *why* the layer is
# written the way it is. Hidden tests draw fresh random cases when your notebook is graded.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np

# kit-include: _shared/corpus.py

chars = sorted(set(CORPUS))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
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


# %% [markdown] nbgrader={"grade": false, "grade_id": "md-class", "locked": true, "schema_version": 3, "solution": false}
# ## Stage 1: the class
#
# The layer fixes three numbers when it is built: `vocab_size` (rows of `E`), `block_size` (rows of
# `P`, the longest sequence it accepts) and the width `C` (columns of both). It does **not** fix the
# batch size `B` or the sequence length `T`. Those arrive with each call, so one layer embeds a batch
# of 64 sequences of length 8 as readily as one sequence of length 32.
#
# The given `__init__` draws both tables from **one** seeded generator, `E` first and then `P`, and
# scales them by 0.02, the usual small start for transformer weights. The order is part of the
# contract: draw `P` first and every number in both tables changes, so runs could no longer be
# compared. With the course corpus (`vocab_size = 24`), `block_size = 16` and `C = 8`, the layer
# holds a `(24, 8)` token table and a `(16, 8)` position table, 320 weights in all.
#
# The object keeps three kinds of state: parameters (`E`, `P`), a `cache` that forward fills for
# backward, and the gradients `dE`, `dP`. It also keeps a flag, `freeze_positions`, described in
# Stage 3.
#
# ## Stage 2: forward
#
# `forward(idx)` takes ids of shape `(B, T)` and returns `E[idx] + P[:T]`, shape `(B, T, C)`. That is
# two lookups and one addition:
#
# * `E[idx]` is lesson 2's gather. Entry `[b, t]` is row `idx[b, t]` of the token table.
# * `P[:T]` is lesson 4's slab, `(T, C)`, broadcast over the batch. Slot `t` gets row `t`, whatever
#   token sits there. Positions are looked up by **slot**, never by token id: `P[idx]` would hand
#   every `e` the same "position", which is no position at all.
#
# A concrete case: the corpus starts with `'the lamp keeper '`, ids
# `[19, 9, 6, 0, 12, 2, 13, 16, 0, 11, 6, 6, 16, 6, 17, 0]`. The letter `e` (id 6) sits in slots 2,
# 10, 11 and 13. All four gather the same row `E[6]`, then add four different rows `P[2]`, `P[10]`,
# `P[11]`, `P[13]`, so the four output vectors differ. Attention can now tell the first `e` from the
# last.
#
# As in lesson 4, compare `T` with `block_size` explicitly and raise `ValueError` when the sequence is
# too long. Cache what backward needs: the ids and `T`.

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-backward", "locked": true, "schema_version": 3, "solution": false}
# ## Stage 3: backward, and the freeze flag
#
# `backward(dout)` receives the gradient of the loss with respect to the output, shape `(B, T, C)`,
# and fills the two gradient slots:
#
# * **dE, a scatter-add.** Every place `[b, t]` sends `dout[b, t]` back to row `idx[b, t]`, and a row
#   used several times collects the sum of all of them. In `'the lamp keeper '` the row of `e`
#   collects four slices of `dout`. As in lesson 2, `dE[idx] += dout` keeps only one of them per
#   repeated id; `np.add.at(dE, idx, dout)` adds every occurrence.
# * **dP, a sum over the batch.** Row `t` of `P` was added to slot `t` of all `B` sequences, so
#   `dP[:T] = dout.sum(axis=0)`, and rows `T` and beyond, which were not used, stay zero.
# * **No gradient for the input.** The ids are integers. Nothing can be nudged by a small `eps`, so
#   there is no `dx`; backward returns `None` and leaves its results in `self.dE` and `self.dP`.
#
# Both gradients start from fresh zeros on every call (`np.zeros_like`), so nothing leaks from one
# batch to the next.
#
# **Freezing the positions.** Sometimes the position table should stay fixed: you loaded a
# sinusoidal table from lesson 3 into `P`, or you fine-tune a trained model and want its positions
# left alone. With `freeze_positions` true:
#
# * forward is **unchanged**: frozen positions are still added; they are just not trained;
# * `self.dP` is all zeros with P's shape, so an update `P -= lr * dP` leaves `P` where it is;
# * `self.dE` is **exactly** what it would be without the flag. The gradient of `E` never involved
#   `P` (`out = E[idx] + P[:T]` changes by the same amount when `E` moves, whatever `P` holds), so
#   freezing one table must not change the other.
#
# The flag is an ordinary attribute. It can be passed to the constructor or switched later with
# `layer.freeze_positions = True` between two training steps, so backward must read
# `self.freeze_positions` each time it runs.

# %% nbgrader={"grade": false, "grade_id": "embedding-layer", "locked": false, "schema_version": 3, "solution": true}
class EmbeddingLayer:
    """Token table E plus learned position table P: the input stage of the model."""

    def __init__(self, vocab_size, block_size, C, seed=42, freeze_positions=False):
        self.vocab_size = vocab_size
        self.block_size = block_size
        self.C = C
        rng = np.random.default_rng(seed)
        self.E = rng.standard_normal((vocab_size, C)) * 0.02  # token table, drawn first
        self.P = rng.standard_normal((block_size, C)) * 0.02  # position table, drawn second
        self.freeze_positions = freeze_positions
        self.cache = None
        self.dE = self.dP = None

    def forward(self, idx):
        """ids of shape (B, T) -> E[idx] + P[:T], shape (B, T, C); raise ValueError when T > block_size."""
        ### BEGIN SOLUTION
        idx = np.asarray(idx)
        B, T = idx.shape
        if T > self.block_size:
            raise ValueError(f"sequence length T={T} is longer than block_size={self.block_size}")
        self.cache = (idx, T)
        return self.E[idx] + self.P[:T]
        ### END SOLUTION

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        ### BEGIN SOLUTION
        idx, T = self.cache
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, idx, dout)
        self.dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            self.dP[:T] = dout.sum(axis=0)
        return None
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-layer-forward", "locked": true, "points": 5, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_forward(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: 'the lamp keeper ' as one sequence, then a batch of two.
with self_check("EmbeddingLayer.forward"):
    layer = EmbeddingLayer(vocab_size, block_size=24, C=8)
    idx = data[:16].reshape(1, 16)
    out = layer.forward(idx)
    assert np.shape(out) == (1, 16, 8), f"forward(idx) for idx of shape (1, 16) should have shape (1, 16, 8), got {np.shape(out)}"
    assert not np.allclose(out, layer.E[idx]), "forward returned E[idx] alone: forward must add P[:T]"
    assert not np.allclose(out, layer.E[idx] + layer.P[idx]), (
        "forward added P[idx]: positions are looked up by slot t, not by token id; add P[:T]")
    assert np.allclose(out, layer.E[idx] + layer.P[:16]), "forward should return E[idx] + P[:T]"
    assert out.dtype == np.float64, f"the output should be float64, got {out.dtype}"
    e_slots = out[0, [2, 10, 11, 13]]  # the four 'e's of 'the lamp keeper '
    assert len({tuple(v) for v in e_slots.round(12)}) == 4, "the same token in four different slots should give four different vectors"
    batch = data[:12].reshape(2, 6)
    assert np.shape(layer.forward(batch)) == (2, 6, 8), "ids of shape (B, T) = (2, 6) give an output of shape (2, 6, 8)"

# %% nbgrader={"grade": true, "grade_id": "test-layer-too-long", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_too_long(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: a sequence longer than block_size is refused; T == block_size is fine.
with self_check("EmbeddingLayer.forward rejects T > block_size"):
    layer = EmbeddingLayer(vocab_size, block_size=8, C=4)
    assert np.shape(layer.forward(data[:16].reshape(2, 8))) == (2, 8, 4), "T == block_size is allowed"
    for block_size, T in ((8, 9), (1, 2)):
        layer = EmbeddingLayer(vocab_size, block_size=block_size, C=4)
        try:
            layer.forward(data[:2 * T].reshape(2, T))
        except (ValueError, AssertionError):
            pass
        else:
            raise AssertionError(f"forward with T={T} and block_size={block_size} should raise ValueError: "
                                 "compare T with block_size explicitly")

# %% nbgrader={"grade": true, "grade_id": "test-layer-backward-dE", "locked": true, "points": 5, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_backward_dE(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: a repeated id collects every occurrence; backward returns None.
with self_check("EmbeddingLayer.backward (dE)"):
    layer = EmbeddingLayer(3, block_size=2, C=2)
    layer.forward(np.array([[0, 0]]))
    assert layer.backward(np.ones((1, 2, 2))) is None, "backward returns None; the gradients live in self.dE and self.dP"
    assert np.shape(layer.dE) == (3, 2), f"dE should have the shape of E (3, 2), got {np.shape(layer.dE)}"
    got = layer.dE[0]
    assert np.allclose(got, [2, 2]), (
        f"Row 0 is used twice so its gradient should be [2, 2], got {got}. "
        "dE[idx] += dout keeps one write per repeated id; np.add.at(dE, idx, dout) adds every occurrence.")
    layer = EmbeddingLayer(4, block_size=3, C=1)
    layer.forward(np.array([[2, 0, 2], [1, 2, 1]]))
    layer.backward(np.arange(1.0, 7.0).reshape(2, 3, 1))
    assert np.allclose(layer.dE[:, 0], [2, 10, 9, 0]), (
        f"with ids [[2, 0, 2], [1, 2, 1]] and dout [[1, 2, 3], [4, 5, 6]], dE should be [2, 10, 9, 0], got {layer.dE[:, 0]}")

# %% nbgrader={"grade": true, "grade_id": "test-layer-backward-dP", "locked": true, "points": 4, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_backward_dP(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: dP sums over the batch in rows :T and is zero below.
with self_check("EmbeddingLayer.backward (dP)"):
    layer = EmbeddingLayer(vocab_size, block_size=4, C=2)
    layer.forward(data[:4].reshape(2, 2))
    dout = np.array([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])
    layer.backward(dout)
    dP = np.asarray(layer.dP)
    assert dP.shape == (4, 2), f"dP should have P's full shape (block_size, C) = (4, 2), got {dP.shape}"
    assert not np.allclose(dP[:2], dout[0]), "dP[:T] is dout[0], one sequence only: dP sums dout over the batch axis"
    assert np.allclose(dP[2:], 0), f"rows T and beyond of dP stay zero, got {dP[2:].tolist()}"
    assert np.allclose(dP, [[6, 8], [10, 12], [0, 0], [0, 0]]), f"dP should be [[6, 8], [10, 12], [0, 0], [0, 0]], got {dP.tolist()}"
    layer.forward(data[:8].reshape(2, 4))  # a full-length call, then the short one again
    layer.backward(np.ones((2, 4, 2)))
    layer.forward(data[:4].reshape(2, 2))
    layer.backward(dout)
    assert np.allclose(layer.dP[2:], 0), (
        f"after a longer call, rows T and beyond of dP stay zero; they still hold {np.asarray(layer.dP)[2:].tolist()}")

# %% nbgrader={"grade": true, "grade_id": "test-layer-backward-fresh", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_backward_fresh(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: a second backward with the same dout gives the same dE and dP.
with self_check("EmbeddingLayer.backward starts from zeros"):
    layer = EmbeddingLayer(vocab_size, block_size=8, C=4)
    layer.forward(data[:12].reshape(2, 6))
    g = np.ones((2, 6, 4))
    layer.backward(g)
    first_dE, first_dP = np.array(layer.dE, copy=True), np.array(layer.dP, copy=True)
    layer.backward(g)
    assert np.allclose(layer.dE, first_dE), "a second backward changed dE: each backward starts from zeros"
    assert np.allclose(layer.dP, first_dP), "a second backward changed dP: each backward starts from zeros"

# %% nbgrader={"grade": true, "grade_id": "test-layer-freeze", "locked": true, "points": 4, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_freeze_at_construction(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: built frozen, the layer gives dP = 0 and the same dE as an unfrozen twin.
with self_check("EmbeddingLayer with freeze_positions=True"):
    idx = data[:16].reshape(2, 8)
    g = np.random.default_rng(0).standard_normal((2, 8, 4))
    frozen = EmbeddingLayer(vocab_size, block_size=8, C=4, freeze_positions=True)
    twin = EmbeddingLayer(vocab_size, block_size=8, C=4)
    assert np.allclose(frozen.forward(idx), twin.forward(idx)), "freezing must not change forward: frozen positions are still added"
    frozen.backward(g)
    twin.backward(g)
    assert np.shape(frozen.dP) == (8, 4), f"while frozen, dP is all zeros of P's shape (8, 4), got {type(frozen.dP).__name__} {np.shape(frozen.dP)}"
    assert np.all(np.asarray(frozen.dP) == 0), "dP must be zero while positions are frozen"
    assert np.shape(frozen.dE) == (vocab_size, 4) and np.allclose(frozen.dE, twin.dE), "freezing positions must not change dE"

# %% nbgrader={"grade": true, "grade_id": "test-layer-freeze-later", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_freeze_after_construction(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: the flag switched on an existing layer takes effect at the next backward, and can be switched off.
with self_check("EmbeddingLayer.freeze_positions set after construction"):
    layer = EmbeddingLayer(vocab_size, block_size=8, C=4)
    idx = data[:16].reshape(2, 8)
    g = np.random.default_rng(1).standard_normal((2, 8, 4))
    layer.forward(idx)
    layer.backward(g)
    full_dE, full_dP = np.array(layer.dE, copy=True), np.array(layer.dP, copy=True)
    layer.freeze_positions = True
    layer.forward(idx)
    layer.backward(g)
    assert np.all(np.asarray(layer.dP) == 0), "dP must be zero while positions are frozen (read self.freeze_positions in backward)"
    assert np.allclose(layer.dE, full_dE), "freezing positions must not change dE"
    layer.freeze_positions = False
    layer.backward(g)
    assert np.allclose(layer.dP, full_dP), "after freeze_positions is set back to False, dP is computed again"

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-verify", "locked": true, "schema_version": 3, "solution": false}
# ## Stage 4: verify
#
# ### The gradient check
#
# The check works as in lessons 2 and 4. With the loss `L = sum(out * G)` for a fixed random `G`,
# the gradient arriving at the layer is exactly `G`, so `backward(G)` must produce `dL/dE` and
# `dL/dP`. Central differences measure both independently, one entry at a time. Run it in float64:
# with `eps = 1e-6` the two loss values differ only in their last few digits, and float32 would lose
# that difference to rounding.
#
# The ids come from the corpus, where letters repeat constantly: the 24 ids of the batch below use
# only 12 distinct characters. The scatter-add in `dE` is really being tested. A correct layer lands
# around `1e-10`, far below the `1e-5` bar, and lower than a layer with a softmax usually gets.
# The layer is linear (a gather and an addition), so there is no curvature for the finite
# differences to trip over.

# %% nbgrader={"grade": false, "grade_id": "helpers-gradcheck", "locked": true, "schema_version": 3, "solution": false}
def numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar f() with respect to every entry of x (restored after)."""
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f()
        x[i] = old - eps
        minus = f()
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def rel_err(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|)."""
    return float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))


# %% nbgrader={"grade": false, "grade_id": "demo-gradcheck", "locked": true, "schema_version": 3, "solution": false}
layer = EmbeddingLayer(vocab_size, block_size=16, C=8)
idx = data[:24].reshape(2, 12)
G = np.random.default_rng(0).standard_normal((2, 12, 8))
layer.forward(idx)
layer.backward(G)
dE, dP = layer.dE.copy(), layer.dP.copy()
loss = lambda: np.sum(layer.forward(idx) * G)  # noqa: E731
print("ids in the batch:", idx.size, "| distinct ids:", len(np.unique(idx)))
print("max relative error of dE:", rel_err(dE, numeric_grad(loss, layer.E)))
print("max relative error of dP:", rel_err(dP, numeric_grad(loss, layer.P)))

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-attention", "locked": true, "schema_version": 3, "solution": false}
# ### It plugs into attention
#
# Correct gradients are half the job; the other half is handing the next layer what it expects. The
# attention head of lesson 1 reads `(B, T, C)` and returns `(B, T, hs)`. The cell below defines a
# compact version of it (a given helper, not something to write again) and feeds it the layer's
# output directly, without any reshaping in between.
#
# It also revisits lesson 1. Reverse the order of a sequence. With token vectors alone (`E[idx]`),
# attention's output is just reversed with it, so the head cannot tell the order apart. With the
# layer's output (`E[idx] + P[:T]`) the reversed sequence gets different vectors, and the gap is
# clearly above zero.

# %% nbgrader={"grade": false, "grade_id": "helpers-attention", "locked": true, "schema_version": 3, "solution": false}
def attention_forward(X, Wq, Wk, Wv):
    """One self-attention head without a mask: X (B, T, C), each W (C, hs) -> (B, T, hs)."""
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V


# %% nbgrader={"grade": false, "grade_id": "demo-attention", "locked": true, "schema_version": 3, "solution": false}
with self_check("the layer feeds self-attention"):
    layer = EmbeddingLayer(vocab_size, block_size=16, C=8)
    idx = data[:24].reshape(2, 12)
    rng = np.random.default_rng(42)
    Wq, Wk, Wv = (rng.standard_normal((8, 4)) * 0.5 for _ in range(3))
    X = layer.forward(idx)
    att = attention_forward(X, Wq, Wk, Wv)
    print("embedding output:", X.shape, "= (B, T, C) -> attention output:", att.shape, "= (B, T, hs)")
    assert X.shape == (2, 12, 8) and att.shape == (2, 12, 4), "the layer's (B, T, C) output should feed attention as it is"
    rev = idx[:, ::-1]
    gap_tokens = np.abs(attention_forward(layer.E[rev], Wq, Wk, Wv) - attention_forward(layer.E[idx], Wq, Wk, Wv)[:, ::-1]).max()
    gap_layer = np.abs(attention_forward(layer.forward(rev), Wq, Wk, Wv) - att[:, ::-1]).max()
    print(f"reversed input, tokens only: gap {gap_tokens:.1e} | tokens + positions: gap {gap_layer:.1e}")
    assert gap_tokens < 1e-12 < gap_layer, "positions should make attention sensitive to order"

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-summary", "locked": true, "schema_version": 3, "solution": false}
# ## Summary
#
# * `EmbeddingLayer` holds two tables, `E` of shape `(vocab_size, C)` and `P` of shape
#   `(block_size, C)`, drawn from one seeded generator. It fixes only `vocab_size`, `block_size` and
#   `C`; any batch of sequences up to `block_size` long can pass through it.
# * **forward** gathers `E[idx]`, adds the slab `P[:T]` (looked up by slot, never by token id),
#   refuses `T > block_size`, and caches the ids and `T`.
# * **backward** scatter-adds `dE` with `np.add.at`, because ids repeat. It sums `dP[:T]` over the
#   batch and leaves the unused rows at zero. There is no input gradient, since ids are integers.
#   Freezing positions zeroes `dP` and leaves `dE` exactly as it was.
# * A float64 central-difference check confirms both gradients to about `1e-10`, and the
#   `(B, T, C)` output feeds a self-attention head as it is.
#
# This layer is the front door of the model you build next: the first line of its forward pass
# turns token ids into position-aware vectors, and every block after it relies on that.

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-exercises", "locked": true, "schema_version": 3, "solution": false}
# ## Practice exercises
#
# Before you move on, three short experiments with the layer you built. Each exercise is a function
# for you to fill in, followed by a self-check. They are **not graded**; the self-checks tell you
# whether your experiment shows what it should. They may use the helpers above (`numeric_grad`, `rel_err`, `data`,
# `vocab_size`).
#
# ### Exercise 1: prove that the duplicate-safe scatter matters
#
# Build a variant of your layer whose backward uses the naive `dE[idx] += dout` in place of
# `np.add.at`, and gradient-check it on a batch of corpus ids. A subclass is the tidy way:
# override `forward` to remember `idx` and call `super().forward(idx)`; override `backward` to call
# `super().backward(dout)` (which keeps `dP` as it was) and then recompute `self.dE` the naive way.
# Return the two relative errors `(err_dE, err_dP)`.
#
# You should see `dE` fail the check badly while `dP` stays around `1e-10`. In a comment inside the
# function, explain **why only dE breaks**. Hint: which of the two gradients is written through
# indices that can repeat?

# %% nbgrader={"grade": false, "grade_id": "ex1-naive-scatter", "locked": false, "schema_version": 3, "solution": true}
def naive_scatter_errors(idx, G, block_size=16):
    """Gradient-check a copy of the layer whose backward uses dE[idx] += dout; return (err_dE, err_dP)."""
    ### BEGIN SOLUTION
    class NaiveScatterLayer(EmbeddingLayer):
        def forward(self, idx):
            self.seen_idx = np.asarray(idx)
            return super().forward(idx)

        def backward(self, dout):
            super().backward(dout)               # dP stays as the real layer computes it
            self.dE = np.zeros_like(self.E)
            self.dE[self.seen_idx] += dout       # the naive scatter: one write per repeated id survives
            return None

    layer = NaiveScatterLayer(vocab_size, block_size, G.shape[-1])
    layer.forward(idx)
    layer.backward(G)
    dE, dP = layer.dE.copy(), layer.dP.copy()
    loss = lambda: np.sum(layer.forward(idx) * G)  # noqa: E731
    err_dE = rel_err(dE, numeric_grad(loss, layer.E))
    err_dP = rel_err(dP, numeric_grad(loss, layer.P))
    # Why only dE breaks: dE is written through idx, a fancy index full of repeats (a letter such as 'e'
    # occurs many times in a batch). NumPy buffers `dE[idx] += dout` as `dE[idx] = dE[idx] + dout`, so for a
    # repeated id every write starts from the same old value and the last one wins: the row gets one
    # occurrence's gradient instead of the sum. dP is written through the slice :T, where every row appears
    # exactly once, and the batch (the only place a position repeats) is summed explicitly by .sum(axis=0)
    # before anything is written. No index repeats in that write, so there is nothing to lose.
    return err_dE, err_dP
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex1-check", "locked": true, "schema_version": 3, "solution": false}
with self_check("Exercise 1"):
    idx = data[:24].reshape(2, 12)
    G = np.random.default_rng(0).standard_normal((2, 12, 8))
    err_dE, err_dP = naive_scatter_errors(idx, G)
    print(f"naive scatter: relative error of dE {err_dE:.2e}, of dP {err_dP:.2e}")
    assert err_dE > 1e-5, f"the naive dE[idx] += dout should fail the gradient check (error above 1e-5), got {err_dE:.2e}"
    assert err_dP < 1e-7, f"dP does not use the naive scatter and should still pass (error near 1e-10), got {err_dP:.2e}"

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-ex2", "locked": true, "schema_version": 3, "solution": false}
# ### Exercise 2: the freeze flag in action
#
# Build two layers with the same seed, `block_size = 16` and the width of `G`. Leave one as it is
# and freeze the other **after** construction (`layer.freeze_positions = True`). Run the same forward
# and backward on both, then take one plain training step `P -= 0.1 * dP` on the frozen layer.
# Return three numbers:
#
# * `dE_change`: the largest `|dE_frozen - dE_full|` (it should be exactly 0);
# * `dP_max`: the largest `|dP|` of the frozen layer (0);
# * `P_moved`: how far the frozen layer's `P` moved in the training step (0).

# %% nbgrader={"grade": false, "grade_id": "ex2-freeze", "locked": false, "schema_version": 3, "solution": true}
def freeze_effect(idx, G, seed=7):
    """Compare a layer frozen after construction with an unfrozen twin; return (dE_change, dP_max, P_moved)."""
    ### BEGIN SOLUTION
    C = G.shape[-1]
    full = EmbeddingLayer(vocab_size, 16, C, seed=seed)
    frozen = EmbeddingLayer(vocab_size, 16, C, seed=seed)
    frozen.freeze_positions = True
    for layer in (full, frozen):
        layer.forward(idx)
        layer.backward(G)
    dE_change = float(np.max(np.abs(frozen.dE - full.dE)))
    dP_max = float(np.max(np.abs(frozen.dP)))
    before = frozen.P.copy()
    frozen.P -= 0.1 * frozen.dP
    P_moved = float(np.max(np.abs(frozen.P - before)))
    return dE_change, dP_max, P_moved
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex2-check", "locked": true, "schema_version": 3, "solution": false}
with self_check("Exercise 2"):
    idx = data[40:64].reshape(2, 12)
    G = np.random.default_rng(5).standard_normal((2, 12, 6))
    dE_change, dP_max, P_moved = freeze_effect(idx, G)
    print(f"dE change {dE_change:.1e} | largest |dP| {dP_max:.1e} | P moved {P_moved:.1e}")
    assert dE_change == 0, f"freezing positions must not change dE; it changed by up to {dE_change:.3g}"
    assert dP_max == 0, f"dP must be zero while positions are frozen; its largest entry is {dP_max:.3g}"
    assert P_moved == 0, f"a training step should leave a frozen P where it is; it moved by {P_moved:.3g}"

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-ex3", "locked": true, "schema_version": 3, "solution": false}
# ### Exercise 3: a full-length sequence fills every row of dP
#
# With `T = 16` and `block_size = 32`, rows 16 to 31 of `dP` are zero: those slots were never used.
# Write `rows_with_gradient(T)`, which embeds `B = 2` sequences of `T` corpus ids
# (`data[:B * T].reshape(B, T)`) in a fresh `EmbeddingLayer(vocab_size, block_size=32, C=16)`,
# runs backward with a random `dout`, and returns how many rows of `dP` are not entirely zero. Then
# confirm that `T = 16` leaves half the table without gradient, and that `T = 32`, the full
# `block_size`, reaches every row.

# %% nbgrader={"grade": false, "grade_id": "ex3-full-length", "locked": false, "schema_version": 3, "solution": true}
def rows_with_gradient(T, B=2, block_size=32, C=16):
    """Embed B sequences of T corpus ids in a fresh layer, backpropagate a random dout; count the nonzero rows of dP."""
    ### BEGIN SOLUTION
    layer = EmbeddingLayer(vocab_size, block_size, C)
    idx = data[:B * T].reshape(B, T)
    layer.forward(idx)
    layer.backward(np.random.default_rng(0).standard_normal((B, T, C)))
    return int(np.sum(np.any(layer.dP != 0, axis=1)))
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex3-check", "locked": true, "schema_version": 3, "solution": false}
with self_check("Exercise 3"):
    half, full = rows_with_gradient(16), rows_with_gradient(32)
    print(f"rows of dP with a gradient: T=16 -> {half} of 32, T=32 -> {full} of 32")
    assert half == 16, f"with T=16 exactly rows 0..15 of dP get a gradient, got {half} nonzero rows"
    assert full == 32, f"with T = block_size = 32 every row of dP gets a gradient, got {full} nonzero rows"
