# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false}
# # Lesson 4 — Learned positional embeddings
#
# Lesson 1 showed the problem: self-attention treats its input as a *set*. Shuffle the tokens and
# the outputs come back shuffled the same way, so "the boats wait" and "wait the boats" look alike
# to it. Lesson 3 solved this with a formula: every slot receives a fixed pattern of sines and
# cosines. This lesson takes the other road, the one GPT-2 takes. Instead of designing the position
# vectors, the model **learns** them.
#
# The whole idea fits in one line: keep a second table `P` of shape `(block_size, C)`, one row per
# slot, and add row `t` to whatever vector sits in slot `t`. Training then adjusts the rows of `P`
# exactly as it adjusts the rows of the token table `E` from lesson 2.
#
# What you write: `PositionalEmbedding.forward` and `PositionalEmbedding.backward` (the `__init__`
# that draws the table is given). Each graded step is followed by a self-check cell; run it after
# each step. Hidden tests draw fresh random cases when your notebook is graded, so make the code
# right for every shape, not just for the examples.

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


# %% [markdown] nbgrader={"grade": false, "grade_id": "md-table", "locked": true, "schema_version": 3, "solution": false}
# ## 1. One learned vector per slot
#
# `block_size` is the context window: the longest sequence the model is ever asked to read. The
# table gets exactly that many rows, `P[0]` for the first slot up to `P[block_size - 1]` for the
# last, and nothing beyond. That is the main difference from lesson 3. The sinusoidal formula can
# produce a vector for position 5000 as easily as for position 5; a learned table simply has no row
# 5000. A sequence longer than `block_size` has nowhere to look up its tail, so the layer must
# **refuse** it.
#
# The table costs `block_size * C` numbers. With `block_size = 8` and `C = 16` that is 128 extra
# weights; GPT-2 small, with a 1024-token window and width 768, spends 1024 × 768 = 786,432 of them
# on positions. Like `E`, the table starts as small random numbers (standard deviation 0.02) drawn
# from a seeded generator, so every run starts from the same place.
#
# ### Forward: add one row per slot
#
# The input `x` has shape `(B, T, C)`: a batch of `B` sequences, `T` slots each, a `C`-vector in
# every slot (in the full model these are the token embeddings of lesson 2). The output is
# `x + P[:T]`. The slab `P[:T]` has shape `(T, C)`, and broadcasting matches it against the last two
# axes of `x`, then repeats it along the batch axis. So slot `t` of *every* sequence receives the same
# row `P[t]`; which sequence the slot belongs to makes no difference.
#
# A small case: `block_size = 4`, `C = 2`, and
#
#     P = [[0.1, 0.2],
#          [0.3, 0.4],
#          [0.5, 0.6],
#          [0.7, 0.8]]
#
# Feed one sequence of two identical vectors, `x = [[[1, 1], [1, 1]]]` (so `B = 1`, `T = 2`). The
# output is `[[[1.1, 1.2], [1.3, 1.4]]]`: rows 0 and 1 of `P` were added, rows 2 and 3 were not
# touched. The two slots held the same vector and now hold different ones. Attention can tell them
# apart, which is exactly the symmetry-breaking lesson 1 asked for.
#
# ### Refuse sequences that are too long, explicitly
#
# You might hope NumPy refuses a too-long sequence for you. It does not, reliably. Slicing past the
# end is not an error (`P[:10]` of a 4-row table quietly returns 4 rows), and what fails afterwards
# is the addition `(B, 10, C) + (4, C)`, with a message about broadcasting. With `block_size = 1` not
# even that fails: a `(1, C)` slab broadcasts over any `T`, and every slot silently gets the same
# vector. So test the length yourself and raise `ValueError` with a message that says what is wrong.
#
# Forward also **caches** what backward will need. Here that is just `T`.

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-backward", "locked": true, "schema_version": 3, "solution": false}
# ### Backward: where did each row of P go?
#
# Write the forward pass entry by entry: `out[b, t] = x[b, t] + P[t]`.
#
# * **Gradient for x.** Each `x[b, t]` reaches the output once, through a plain addition, so its
#   gradient is the upstream gradient unchanged: `dx = dout`. Backward **returns** it, so the chain
#   can continue into the layer below (the token table).
# * **Gradient for P.** Row `P[t]` was added to slot `t` of all `B` sequences, so it collects the
#   upstream gradient from all of them: `dP[t] = dout[0, t] + dout[1, t] + ... + dout[B-1, t]`. For all
#   slots at once that is `dout.sum(axis=0)`, of shape `(T, C)`. It is the general rule for
#   broadcasting: when forward *copies* a value along an axis, backward *adds up* along that axis.
# * **Rows `T` and beyond.** This forward never read them, so their gradient is zero. `dP` still has
#   P's full shape `(block_size, C)`: an optimizer updates the table with `P -= lr * dP`, and the
#   shapes must match.
#
# The numbers, with `block_size = 4`, `B = 2`, `T = 2`, `C = 2` and
#
#     dout = [[[1, 2], [3, 4]],      # sequence 0
#             [[5, 6], [7, 8]]]      # sequence 1
#
# give `dP[0] = [1 + 5, 2 + 6] = [6, 8]`, `dP[1] = [3 + 7, 4 + 8] = [10, 12]`, and rows 2 and 3 stay
# `[0, 0]`. Two easy slips: keeping only `dout[0]` (the first sequence), which gives `[1, 2]` and
# `[3, 4]`, and averaging over the batch instead of summing. Finally, start from a fresh
# `np.zeros_like(self.P)` on every call, so no gradient from an earlier batch leaks into this one.

# %% nbgrader={"grade": false, "grade_id": "positional-embedding", "locked": false, "schema_version": 3, "solution": true}
class PositionalEmbedding:
    """A learned table of position vectors: slot t of every sequence receives row t of P."""

    def __init__(self, block_size, C, seed=42):
        self.block_size = block_size
        self.C = C
        self.P = np.random.default_rng(seed).standard_normal((block_size, C)) * 0.02
        self.cache = None
        self.dP = None

    def forward(self, x):
        """x of shape (B, T, C) -> x + P[:T]; raise ValueError when T > block_size; cache what backward needs."""
        ### BEGIN SOLUTION
        x = np.asarray(x)
        B, T, C = x.shape
        if T > self.block_size:
            raise ValueError(f"sequence length T={T} is longer than block_size={self.block_size}")
        self.cache = T
        return x + self.P[:T]
        ### END SOLUTION

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        ### BEGIN SOLUTION
        T = self.cache
        self.dP = np.zeros_like(self.P)
        self.dP[:T] = dout.sum(axis=0)
        return dout
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test-pos-forward", "locked": true, "points": 4, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson04 as _hidden
_hidden.positional_forward(PositionalEmbedding)
### END HIDDEN TESTS
# Self-check: B = 3 sequences that use part of the window, then all of it, then the worked example.
with self_check("PositionalEmbedding.forward"):
    for T in (3, 5):
        pe = PositionalEmbedding(block_size=5, C=4)
        x = np.random.default_rng(T).standard_normal((3, T, 4))
        x0 = x.copy()
        try:
            out = pe.forward(x)
        except (ValueError, AssertionError, IndexError) as e:
            raise Diagnosis("crashed", f"forward for x of shape {x.shape} with block_size=5 raised {type(e).__name__}: "
                                       f"{e}. " + ("A sequence with T == block_size fills the window and is allowed: "
                                                   "only T > block_size must raise." if T == 5 else
                                                   "The position slab must have shape (T, C): add P[:T], the first T "
                                                   "rows of the table.")) from None
        require(np.shape(out) == x.shape, "wrong-shape", f"x of shape {x.shape} should give an output of that shape, got {np.shape(out)}: add the slab P[:T], of shape (T, C), to x; NumPy broadcasts it over the batch")
        require(np.array_equal(x, x0), "side-effect", "forward changed its input x in place; return x + P[:T] as a new array")
        require(np.asarray(out).dtype == np.float64, "wrong-dtype", f"the output should be float64, got {np.asarray(out).dtype}")
        if np.allclose(out, x):
            raise say("positions-missing", detail="Your forward returned x unchanged.")
        added = np.asarray(out) - x
        for b in range(3):
            expect_close(f"out[{b}] - x[{b}], the rows forward added to sequence {b} (x of shape {x.shape}),",
                         added[b], pe.P[:T], hint="Slot t of every sequence gets row t of P: add the slab P[:T].")

    pe = PositionalEmbedding(block_size=4, C=2)
    pe.P = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]])
    out = pe.forward(np.ones((1, 2, 2)))
    expect_close("forward(x) for the worked example", out, [[[1.1, 1.2], [1.3, 1.4]]],
                 hint="forward adds P[:T], rows 0..T-1 of P, one per slot.")

# %% nbgrader={"grade": true, "grade_id": "test-pos-too-long", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson04 as _hidden
_hidden.positional_too_long(PositionalEmbedding)
### END HIDDEN TESTS
# Self-check: a sequence longer than block_size is refused, even when broadcasting would not notice.
with self_check("PositionalEmbedding.forward rejects T > block_size"):
    for block_size, T in ((4, 6), (1, 3)):
        pe = PositionalEmbedding(block_size=block_size, C=3)
        try:
            pe.forward(np.zeros((2, T, 3)))
        except (ValueError, AssertionError):
            pass
        else:
            raise Diagnosis("no-error-raised",
                f"forward with T={T} and block_size={block_size} should raise ValueError: the table has no row for "
                "slots block_size and beyond. Compare T with block_size yourself; broadcasting does not always fail.")

# %% nbgrader={"grade": true, "grade_id": "test-pos-backward", "locked": true, "points": 5, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson04 as _hidden
_hidden.positional_backward_dP(PositionalEmbedding)
### END HIDDEN TESTS
# Self-check: the worked numbers of the lesson, dP = [[6, 8], [10, 12], [0, 0], [0, 0]], then B = 3 sequences,
# then a short call after a full-length one.
with self_check("PositionalEmbedding.backward (dP)"):
    worked = np.array([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])  # (B, T, C) = (2, 2, 2)
    cases = [(4, worked), (5, np.random.default_rng(4).standard_normal((3, 3, 4)))]  # (block_size, dout)
    for block_size, dout in cases:
        B, T, C = dout.shape
        pe = PositionalEmbedding(block_size, C)
        pe.forward(np.zeros((B, T, C)))
        pe.backward(dout)
        dP = np.asarray(pe.dP, dtype=float)
        require(dP.shape == (block_size, C), "wrong-shape", (
            f"dP should have P's full shape (block_size, C) = {(block_size, C)}, got {dP.shape}: start from "
            "np.zeros_like(self.P) and fill rows :T"))
        if np.any(dP[T:] != 0):
            raise say("dP-tail-not-zero", detail=f"This forward used T={T} of the block_size={block_size} slots, but "
                                                 f"your dP[{T}:] holds {fmt(dP[T:])}.")
        for b in range(B):
            if np.allclose(dP[:T], dout[b]):
                raise say("dP-not-summed", detail=f"Your dP[:T] is dout[{b}], the gradient of sequence {b} alone, but "
                                                  f"the batch holds B={B} sequences.")
        expect_close(f"dP[:T] for dout of shape {dout.shape}", dP[:T], dout.sum(axis=0), sizes={"B": B},
                     source=dout, reduced_axis=0,
                     hint=f"Row t of P was added to slot t of all B = {B} sequences, so it collects the gradient of "
                          "each: dP[:T] = dout.sum(axis=0).")

    pe = PositionalEmbedding(block_size=4, C=2)
    pe.forward(np.zeros((2, 4, 2)))  # a full-length call, then the short one again:
    pe.backward(np.ones((2, 4, 2)))  # rows 2 and 3 must not keep what this call put there
    longer = np.array(pe.dP, dtype=float, copy=True)
    pe.forward(np.zeros((2, 2, 2)))
    pe.backward(worked)
    dP = np.asarray(pe.dP, dtype=float)
    if np.allclose(dP, longer + [[6, 8], [10, 12], [0, 0], [0, 0]]):
        raise say("grad-accumulates", grad="dP", table="P",
                  detail="After a full-length call, your dP is that call's dP plus this one's.")
    if np.any(dP[2:] != 0):
        raise say("dP-tail-not-zero", detail=f"After a full-length call, the short call (T=2) left {fmt(dP[2:])} in "
                                             "rows 2 and 3.")

# %% nbgrader={"grade": true, "grade_id": "test-pos-backward-dx", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson04 as _hidden
_hidden.positional_backward_dx(PositionalEmbedding)
### END HIDDEN TESTS
# Self-check: the gradient for x passes through the addition unchanged.
with self_check("PositionalEmbedding.backward (dx)"):
    pe = PositionalEmbedding(block_size=5, C=3)
    pe.forward(np.zeros((2, 4, 3)))
    dout = np.arange(24.0).reshape(2, 4, 3)
    dx = pe.backward(dout)
    require(dx is not None, "wrong-value", "backward should return the gradient for x (out = x + P[:T], so it is dout itself), got None")
    require(np.shape(dx) == (2, 4, 3), "wrong-shape", f"the gradient for x has the shape of x, (2, 4, 3); got {np.shape(dx)}: each entry of x reaches the output once, unchanged, so its gradient is dout itself, not a sum over an axis")
    expect_close("the gradient for x that backward returns", dx, dout, sizes={"B": 2, "T": 4},
                 hint="out = x + P[:T], so each entry of x passes its gradient through unchanged: return dout.")

# %% nbgrader={"grade": true, "grade_id": "test-pos-backward-fresh", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson04 as _hidden
_hidden.positional_backward_fresh(PositionalEmbedding)
### END HIDDEN TESTS
# Self-check: two backward calls with the same dout give the same dP (each call starts from zeros).
with self_check("PositionalEmbedding.backward starts from zeros"):
    pe = PositionalEmbedding(block_size=6, C=4)
    pe.forward(np.zeros((3, 5, 4)))
    g = np.random.default_rng(5).standard_normal((3, 5, 4))
    pe.backward(g)
    first = np.array(pe.dP, copy=True)
    pe.backward(g)
    if not np.allclose(pe.dP, first):
        raise say("grad-accumulates", grad="dP", table="P", detail=f"Calling backward twice changed dP by up to "
                                                                   f"{np.abs(np.asarray(pe.dP) - first).max():.3g}.")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-gradcheck", "locked": true, "schema_version": 3, "solution": false}
# ## 2. Proving the backward pass
#
# Lesson 2 checked a gradient entry by entry with your `numerical_gradient`. This lesson checks it
# along random directions instead, with a given helper, `slope_error` (your lesson-2 functions are
# graded there, so they are not copied here). Pick a fixed random `G` of the output's shape and use
# the scalar loss `L = sum(out * G)`. Its gradient with respect to `out` is exactly `G`, so
# `backward(G)` must return `dL/dx` and store `dL/dP`. For a random direction `d` of the parameter's
# shape, a gradient predicts the slope `sum(grad * d)`; `slope_error` measures the slope by moving
# the whole parameter to `x + eps * d` and to `x - eps * d` and dividing the change of `L` by
# `2 * eps`, and reports the largest gap over five directions. A wrong entry anywhere shows up in
# almost every random direction; the same idea checks big layers quickly (PyTorch's `gradcheck`
# has it as its fast mode).
#
# Use `T = 5` with `block_size = 8` so the check also covers the rows nobody used. The loss does not
# depend on rows 5, 6 and 7 at all (moving them changes nothing), so a `dP` that puts anything there
# predicts a slope that is not measured, and fails.

# %% nbgrader={"grade": false, "grade_id": "demo-gradcheck", "locked": true, "schema_version": 3, "solution": false}
# kit-include: _shared/gradcheck.py


B, T, block_size, C = 3, 5, 8, 6
pe = PositionalEmbedding(block_size, C)
x = np.random.default_rng(1).standard_normal((B, T, C))
G = np.random.default_rng(2).standard_normal((B, T, C))
pe.forward(x)
dx = pe.backward(G)
err_dP = slope_error(lambda: np.sum(pe.forward(x) * G), pe.P, pe.dP)
err_dx = slope_error(lambda: np.sum(pe.forward(x) * G), x, dx)
print("largest relative gap of dP along 5 random directions:", err_dP)
print("largest relative gap of dx along 5 random directions:", err_dx)
print("rows", T, "to", block_size - 1, "of dP are zero:", bool(np.all(pe.dP[T:] == 0)))
print(gradcheck_verdict({"dP": err_dP, "dx": err_dx}))

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-limits", "locked": true, "schema_version": 3, "solution": false}
# ## 3. What a learned table can and cannot do
#
# A row of `P` moves only when a training sequence reaches its slot. If every batch during training
# were 4 tokens long, rows 4 and up would get a zero gradient at every step, and plain gradient steps
# would leave them at their random starting values forever. The cell below runs twenty plain gradient steps `P -= lr * dP` on
# sequences of length 4 with `block_size = 8` and reports which rows moved.
#
# That is the honest trade-off between the two encodings:
#
# | | sinusoidal (lesson 3) | learned (this lesson) |
# |---|---|---|
# | weights | none | `block_size * C` |
# | longest sequence | any length, in principle | exactly `block_size` |
# | what each slot gets | fixed by a formula | whatever training found useful |
#
# At the lengths they were trained on, the two perform about the same: the original Transformer
# paper tried both and reported nearly identical results. GPT-2 chose the learned table, and so does
# the model you are building. Its context window is fixed anyway, and lesson 5 needs nothing more
# than one more table with a gather in forward and a sum in backward.

# %% nbgrader={"grade": false, "grade_id": "demo-unused-rows", "locked": true, "schema_version": 3, "solution": false}
pe = PositionalEmbedding(block_size=8, C=4, seed=0)
start = pe.P.copy()
rng = np.random.default_rng(3)
for step in range(20):
    pe.forward(rng.standard_normal((2, 4, 4)))
    pe.backward(rng.standard_normal((2, 4, 4)))  # a stand-in for the gradient from the layers above
    pe.P -= 0.1 * pe.dP
moved = np.any(pe.P != start, axis=1)
print("row of P:   ", list(range(8)))
print("row moved?: ", [bool(m) for m in moved])
