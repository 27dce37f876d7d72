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
# `freeze_positions` flag does. `__init__` is given. Demo cells then run your layer on the corpus,
# stage by stage, and each graded step has a self-check cell that words a mistake the way grading
# will. The project ends with three practice exercises, each with its own self-check. They are not
# graded, but they are the best way to see *why* the layer is written the way it is. Hidden tests
# draw fresh random cases when your notebook is graded.

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

# kit-include: package:voice.py


# kit-include: _shared/self_check.py


# %% nbgrader={"grade": false, "grade_id": "layer-check-helpers", "locked": true, "schema_version": 3, "solution": false}
# What this lesson's self-checks look for: run this cell, reading it is optional. Each mistake is told with
# say(), expect_close() or expect_array() from the cell above, the words grading uses.

def diagnose_forward(out, E, P, idx):
    """Raise the diagnosis of a forward output that should be E[idx] + P[:T] (E and P as they were before)."""
    T = idx.shape[1]
    tokens = E[idx]
    if np.allclose(out, tokens + P[:T], rtol=0, atol=1e-12):
        return
    if np.allclose(out, tokens, rtol=0, atol=1e-12):
        raise say("positions-missing", detail="Your forward returned E[idx] alone.")
    if idx.max() < len(P) and np.allclose(out, tokens + P[idx], rtol=0, atol=1e-12):
        b, t = map(int, np.argwhere(idx != np.arange(T))[0])
        raise say("positions-by-token", detail=f"Your forward added P[idx]: at [b, t] = [{b}, {t}] the id is "
                                               f"{idx[b, t]}, so it added P[{idx[b, t]}] where P[{t}] belongs.")
    hint = "Slot t of every sequence takes row t of P: forward returns E[idx] + P[:T]."
    added = out - tokens
    if np.allclose(added, added[:1], rtol=0, atol=1e-12):  # one slab for every sequence: compare it with P[:T]
        if T < len(P) and np.allclose(added[0], P[T], rtol=0, atol=1e-12):
            raise Diagnosis("wrong-value", f"Your forward added the single row P[T] = P[{T}] to every slot. {hint}")
        expect_close("The position rows your forward added, forward(idx) - E[idx],", added[0], P[:T], hint=hint)
    expect_close(f"forward(idx) for ids of shape {idx.shape}", out, tokens + P[:T], hint=hint)


def check_forward(layer, idx):
    """Run layer.forward(idx), raise the diagnosis of what it returns, and return the output."""
    E, P = np.array(layer.E, copy=True), np.array(layer.P, copy=True)
    B, T = idx.shape
    out = expect_array(f"forward(idx) for ids of shape {(B, T)}", layer.forward(idx), (B, T, E.shape[1]))
    diagnose_forward(out, E, P, idx)
    return out


def check_forward_after_step(layer, idx, before):
    """forward(idx) again after the tables changed in place: it must read the tables as they are now."""
    out = np.asarray(layer.forward(idx), dtype=float)
    if out.shape == before.shape and np.allclose(out, before, rtol=0, atol=1e-12):
        raise Diagnosis("stale-state", "After a training step changed E and P in place, forward(idx) with the same ids "
                                       "returned the same output as before the step. Compute E[idx] + P[:T] from "
                                       "self.E and self.P at every call; keep in self.cache only what backward needs "
                                       "(the ids and T), never an output to hand back.")
    E, P = np.array(layer.E, copy=True), np.array(layer.P, copy=True)
    diagnose_forward(out, E, P, idx)
    return out


def forward_mistake_behind(crash):
    """The diagnosis of a forward mistake that explains ``crash`` (words for what went wrong), or None: forward is
    tried on a small case whose ids all have a row in P, where a wrong lookup gives values instead of an error."""
    try:
        check_forward(EmbeddingLayer(6, block_size=8, C=3, seed=3), np.array([[1, 4, 1, 0, 5], [3, 3, 2, 5, 0]]))
    except Diagnosis as found:
        return Diagnosis(found.misconception, f"{found.message}\nIt is also why {crash}")
    except Exception:
        pass
    return None


@contextmanager
def crashes_explained():
    """A crash inside the layer is told as a diagnosis: the forward mistake behind it if there is one, else the
    error itself."""
    try:
        yield
    except (AssertionError, NotImplementedError):
        raise
    except Exception as crash:
        what = f"{type(crash).__name__}: {crash}"
        raise (forward_mistake_behind(f"this cell stopped with {what}")
               or Diagnosis("crashed", explain(crash))) from None


def check_dP(dP, dout, block_size, previous=None):
    """dP after a backward with this dout: dout.sum(axis=0) in rows :T, zeros below. previous: the dP before it."""
    B, T, C = dout.shape
    dP = expect_array(f"self.dP (T={T}, block_size={block_size})", dP, (block_size, C))
    want = np.zeros((block_size, C))
    want[:T] = dout.sum(axis=0)
    if np.allclose(dP, want):
        return
    if previous is not None and np.allclose(dP, previous + want):
        raise say("grad-accumulates", grad="dP", table="P",
                  detail="Your dP is the previous backward's dP plus this one's.")
    if np.any(dP[T:] != 0):
        raise say("dP-tail-not-zero", detail=f"This forward used T={T} of the block_size={block_size} slots, but your "
                                             f"dP[{T}:] holds values up to {np.abs(dP[T:]).max():.3g}.")
    for b in range(B):
        if np.allclose(dP[:T], dout[b]):
            raise say("dP-not-summed", detail=f"Your dP[:T] equals dout[{b}], one of the B={B} sequences.")
    expect_close("dP[:T]", dP[:T], want[:T], sizes={"B": B}, source=dout, reduced_axis=0,
                 hint="Row t of P was added to slot t of every sequence: dP[:T] = dout.sum(axis=0).")


def check_same_forward(out_frozen, out_plain, tokens, when):
    """Freezing positions leaves forward as it is."""
    if np.allclose(out_frozen, out_plain, rtol=0, atol=1e-12):
        return
    if np.allclose(out_frozen, tokens, rtol=0, atol=1e-12):
        raise say("positions-missing", detail=f"With freeze_positions {when}, your forward returned E[idx] alone: "
                                              "frozen positions are still added, they are just not trained.")
    expect_close(f"forward with freeze_positions {when}", out_frozen, out_plain,
                 hint="The flag changes only dP; forward stays E[idx] + P[:T].")


def check_frozen(frozen, twin, when):
    """frozen (flag set) and twin (same seed, flag off) ran the same forward and backward."""
    dP, dE = frozen.dP, frozen.dE
    if not isinstance(dP, np.ndarray) or dP.shape != twin.P.shape:
        got = dP.shape if isinstance(dP, np.ndarray) else type(dP).__name__
        raise Diagnosis("wrong-shape", f"With freeze_positions {when}, self.dP should be all zeros of P's shape "
                                       f"{twin.P.shape}, so that P -= lr * dP still works; got {got}.")
    if np.any(dP != 0):
        if np.shape(twin.dP) == dP.shape and np.allclose(dP, twin.dP):  # the flag had no effect: freeze-ignored itself
            raise say("freeze-ignored", detail=f"With the flag {when}, your dP holds values up to {np.abs(dP).max():.3g} "
                                               "(the unfrozen gradient: the flag had no effect).")
        raise Diagnosis("wrong-value", f"dP must be zero while positions are frozen. With the flag {when}, your dP holds "
                                       f"values up to {np.abs(dP).max():.3g} (not the unfrozen gradient either): while "
                                       "the flag is true, set self.dP = np.zeros_like(self.P).")
    if not isinstance(dE, np.ndarray) or dE.shape != twin.E.shape:
        got = dE.shape if isinstance(dE, np.ndarray) else type(dE).__name__
        raise say("freeze-kills-dE", detail=f"With the flag {when}, self.dE should still be the token gradient of "
                                            f"shape {twin.E.shape}; got {got}.")
    if not np.allclose(dE, twin.dE, rtol=0, atol=1e-12):
        what = "all zero" if np.all(dE == 0) else f"off by up to {np.abs(dE - twin.dE).max():.3g}"
        raise say("freeze-kills-dE", detail=f"With the flag {when}, your dE is {what} compared with the same layer "
                                            "unfrozen.")


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
# compared. With the course corpus (`vocab_size = 24`), `block_size = 32` and `C = 16`, the layer
# holds a `(24, 16)` token table and a `(32, 16)` position table, 896 weights in all.
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
# * `self.dP` is all zeros with P's shape, so a plain update `P -= lr * dP` leaves `P` where it is
#   (Adam and weight decay still move it: the end of Stage 4 shows how);
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


# %% [markdown] nbgrader={"grade": false, "grade_id": "md-demo-class", "locked": true, "schema_version": 3, "solution": false}
# ### The layer on real text
#
# The three cells below run the layer the way the model will: the tables first, then forward on the
# first 16 characters of the corpus, then backward. They are demos, not graded; the self-check cells
# that follow them test the same steps on more shapes. The layer here has the sizes of the model:
# `block_size = 32` and `C = 16`, so `E` is `(24, 16)` and `P` is `(32, 16)`, 896 weights in all.
# Nothing has gone through it yet, so its cache is still empty.

# %% nbgrader={"grade": false, "grade_id": "demo-class", "locked": true, "schema_version": 3, "solution": false}
emb = EmbeddingLayer(vocab_size, block_size=32, C=16)
print("E, the token table   :", emb.E.shape)
print("P, the position table:", emb.P.shape)
print("cache before forward :", emb.cache)

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-demo-forward", "locked": true, "schema_version": 3, "solution": false}
# Forward on `'the lamp keeper '`, one sequence of 16 ids. The letter `e` sits in slots 2, 10, 11 and
# 13. Take the first and the last of them: both gather the same row of `E`, the row of `e`, but slot 2
# adds `P[2]` and slot 13 adds `P[13]`, so their output vectors differ. That difference is the order
# information that attention could not see in lesson 1.

# %% nbgrader={"grade": false, "grade_id": "demo-forward", "locked": true, "schema_version": 3, "solution": false}
with crashes_explained():
    T = 16
    idx = data[:T].reshape(1, T)
    out = emb.forward(idx)
    print("ids      :", idx.shape, repr("".join(itos[int(i)] for i in idx[0])))
    print("output   :", out.shape, "= (B, T, C)")
    print("slots of 'e':", np.flatnonzero(idx[0] == stoi["e"]).tolist())
    tokens = emb.E[idx[0]]
    print("slots 2 and 13 gather the same row of E:", np.array_equal(tokens[2], tokens[13]))
    print("and add P[2] and P[13]                 :", np.allclose(out[0, 2] - tokens[2], emb.P[2]),
          np.allclose(out[0, 13] - tokens[13], emb.P[13]))
    print(f"so their outputs differ, by up to {np.abs(out[0, 2] - out[0, 13]).max():.3f}")

# %% nbgrader={"grade": true, "grade_id": "test-layer-forward", "locked": true, "points": 5, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_forward(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: 'the lamp keeper ' as one sequence, then three sequences with repeated ids and an odd C.
# block_size = 24 gives every id of the corpus a row of P.
with self_check("EmbeddingLayer.forward"), crashes_explained():
    check_forward(EmbeddingLayer(vocab_size, block_size=24, C=8), data[:16].reshape(1, 16))
    layer, idx = EmbeddingLayer(vocab_size, block_size=24, C=5), data[16:37].reshape(3, 7)
    first = check_forward(layer, idx)
    # a training step changes the tables in place between two calls with the same ids
    layer.E -= 0.5
    layer.P += 0.25
    check_forward_after_step(layer, idx, first)

# %% nbgrader={"grade": true, "grade_id": "test-layer-too-long", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_too_long(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: a sequence longer than block_size is refused; T == block_size is fine.
with self_check("EmbeddingLayer.forward rejects T > block_size"), crashes_explained():
    layer = EmbeddingLayer(vocab_size, block_size=8, C=4)
    try:
        out = layer.forward(data[:16].reshape(2, 8))
    except (ValueError, AssertionError) as e:
        refused = f"forward refused ids of shape (2, 8) with block_size=8 ({type(e).__name__}: {e})"
        raise (forward_mistake_behind(refused)
               or Diagnosis("crashed", f"{refused}. T == block_size is allowed: the table has a row for each of the 8 "
                                       "slots. Only T > block_size must raise.")) from None
    expect_array("forward(idx) for ids of shape (2, 8) with block_size=8", out, (2, 8, 4))
    for block_size, T in ((8, 9), (1, 2)):
        layer = EmbeddingLayer(vocab_size, block_size=block_size, C=4)
        try:
            layer.forward(data[:2 * T].reshape(2, T))
        except (ValueError, AssertionError):
            continue
        raise Diagnosis("no-error-raised", f"forward with T={T} and block_size={block_size} should raise ValueError, but "
                                           "it returned normally: compare T with block_size explicitly (with "
                                           "block_size=1, NumPy broadcasts the single row P[0] to every slot).")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-demo-backward", "locked": true, "schema_version": 3, "solution": false}
# Backward on the same 16 ids, with a made-up upstream gradient shaped like the output. Each
# gradient has the shape of its table: `dE` is `(24, 16)` like `E`, `dP` is `(32, 16)` like `P`. Only
# 16 of the 32 slots were used, so rows 16 to 31 of `dP` are zero. Nothing special-cases them: they
# are simply the zeros that `np.zeros_like(self.P)` started with.

# %% nbgrader={"grade": false, "grade_id": "demo-backward", "locked": true, "schema_version": 3, "solution": false}
with crashes_explained():
    T = 16
    emb.forward(data[:T].reshape(1, T))  # 'the lamp keeper ' again
    dout = np.random.default_rng(42).standard_normal((1, T, 16))  # a made-up gradient from the layer above
    emb.backward(dout)
    print("dout:", dout.shape)
    print("dE  :", np.shape(emb.dE), "like E")
    print("dP  :", np.shape(emb.dP), "like P")
    print(f"rows {T}..31 of dP all zero:", bool(np.all(np.asarray(emb.dP)[T:] == 0)))

# %% nbgrader={"grade": true, "grade_id": "test-layer-backward-dE", "locked": true, "points": 5, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_backward_dE(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: a repeated id collects every occurrence; backward returns None.
with self_check("EmbeddingLayer.backward (dE)"), crashes_explained():
    layer = EmbeddingLayer(3, block_size=2, C=2)  # ids [[0, 0]] and a dout of ones: row 0 is used twice
    layer.forward(np.array([[0, 0]]))
    returned = layer.backward(np.ones((1, 2, 2)))
    if returned is not None:
        raise Diagnosis("wrong-value", "backward should return None (ids are integers, so there is no input gradient; "
                                       f"the results live in self.dE and self.dP), got {type(returned).__name__}.")
    got = expect_array("self.dE", layer.dE, (3, 2))[0]
    if np.allclose(got, [1, 1]):
        raise say("scatter-overwrite", row=0, want=np.array([2.0, 2.0]), got=got, detail="Only one of its two occurrences reached dE.")
    expect_close("dE[0] for ids [[0, 0]] and a dout of ones", got, [2, 2])
    # three sequences, ids repeated inside a sequence and across the batch, T < block_size, odd C
    layer = EmbeddingLayer(5, block_size=6, C=3)
    layer.forward(np.array([[2, 0, 2, 4], [1, 2, 1, 0], [4, 4, 3, 2]]))
    layer.backward(np.arange(1.0, 37.0).reshape(3, 4, 3))
    expect_close("dE", expect_array("self.dE", layer.dE, (5, 3)),
                 [[26, 28, 30], [32, 34, 36], [58, 62, 66], [31, 32, 33], [63, 66, 69]], sizes={"B": 3, "T": 4},
                 hint="Row v of dE is the sum of dout over every place [b, t] whose id is v.")

# %% nbgrader={"grade": true, "grade_id": "test-layer-backward-dP", "locked": true, "points": 4, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_backward_dP(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: dP sums dout over the batch in rows :T and is zero below, on one layer called three times.
with self_check("EmbeddingLayer.backward (dP)"), crashes_explained():
    layer = EmbeddingLayer(vocab_size, block_size=5, C=2)
    calls = [(3, 3), (2, 5), (4, 2)]  # (B, T): B == T, then the full window T == block_size, then a short one again
    start, previous, rng = 0, None, np.random.default_rng(4)
    for B, T in calls:
        dout = rng.standard_normal((B, T, 2))
        layer.forward(data[start:start + B * T].reshape(B, T))
        layer.backward(dout)
        check_dP(layer.dP, dout, block_size=5, previous=previous)
        start, previous = start + B * T, np.array(layer.dP, copy=True)

# %% nbgrader={"grade": true, "grade_id": "test-layer-backward-fresh", "locked": true, "points": 2, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_backward_fresh(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: a second backward with the same dout gives the same dE and dP (T < block_size, then T == block_size).
with self_check("EmbeddingLayer.backward starts from zeros"), crashes_explained():
    for B, T in ((3, 4), (2, 6)):
        layer = EmbeddingLayer(vocab_size, block_size=6, C=5)
        layer.forward(data[:B * T].reshape(B, T))
        g = np.random.default_rng(T).standard_normal((B, T, 5))
        layer.backward(g)
        # only whether a second call changes them is judged here: their shapes and values have tests of their own
        first = {"dE": np.array(layer.dE, dtype=float, copy=True), "dP": np.array(layer.dP, dtype=float, copy=True)}
        layer.backward(g)
        grew = {}  # every gradient a second call changed, so that the message names all of them, not the first
        for name, before in first.items():
            after = np.asarray(getattr(layer, name), dtype=float)
            require(after.shape == before.shape, "wrong-value",
                    f"A second backward with the same dout changed the shape of {name} from {before.shape} to {after.shape}.")
            if not np.allclose(after, before):
                grew[name] = np.abs(after).sum() / max(np.abs(before).sum(), 1e-300)
        if grew:
            name = next(iter(grew))
            said = " and ".join(f"{n} (it grew by a factor of {r:.3g})" for n, r in grew.items())
            both = " Both keep growing: start both from zeros, self.dE and self.dP." if len(grew) > 1 else ""
            raise say("grad-accumulates", grad=name, table=name[1],
                      detail=f"A second backward with the same dout changed {said}.{both}")

# %% nbgrader={"grade": true, "grade_id": "test-layer-freeze", "locked": true, "points": 4, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_freeze_at_construction(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: built frozen, the layer gives the same output, dP = 0 and the same dE as an unfrozen twin.
with self_check("EmbeddingLayer with freeze_positions=True"), crashes_explained():
    idx = data[:15].reshape(3, 5)
    g = np.random.default_rng(0).standard_normal((3, 5, 4))
    frozen = EmbeddingLayer(vocab_size, block_size=7, C=4, freeze_positions=True)
    twin = EmbeddingLayer(vocab_size, block_size=7, C=4)
    check_same_forward(frozen.forward(idx), twin.forward(idx), twin.E[idx], "passed to the constructor")
    frozen.backward(g)
    twin.backward(g)
    check_frozen(frozen, twin, "passed to the constructor")

# %% nbgrader={"grade": true, "grade_id": "test-layer-freeze-later", "locked": true, "points": 3, "schema_version": 3, "solution": false}
### BEGIN HIDDEN TESTS
import autograder.hidden.lesson05 as _hidden
_hidden.layer_freeze_after_construction(EmbeddingLayer)
### END HIDDEN TESTS
# Self-check: after an ordinary step, the flag switched on takes effect at the next backward, and can be switched off.
with self_check("EmbeddingLayer.freeze_positions set after construction"), crashes_explained():
    layer, twin = EmbeddingLayer(vocab_size, block_size=7, C=3), EmbeddingLayer(vocab_size, block_size=7, C=3)
    first_idx, first_g = data[20:34].reshape(2, 7), np.random.default_rng(2).standard_normal((2, 7, 3))
    for obj in (layer, twin):  # one ordinary step on both, with other ids and a full window
        obj.forward(first_idx)
        obj.backward(first_g)
    layer.freeze_positions = True
    idx, g = data[:15].reshape(3, 5), np.random.default_rng(1).standard_normal((3, 5, 3))
    check_same_forward(layer.forward(idx), twin.forward(idx), twin.E[idx], "set after construction")
    layer.backward(g)
    twin.backward(g)
    check_frozen(layer, twin, "set after construction")
    layer.freeze_positions = False
    layer.backward(g)
    if np.all(np.asarray(layer.dP) == 0):  # what dP then holds is test-layer-backward-dP's to judge, not this test's
        raise Diagnosis("wrong-value", "After layer.freeze_positions = False, backward should compute dP again, but dP "
                                       "stayed all zero: read self.freeze_positions at every backward.")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-verify", "locked": true, "schema_version": 3, "solution": false}
# ## Stage 4: verify
#
# ### The gradient check
#
# The check works as in lesson 4, with the same given helper, `slope_error`. With the loss
# `L = sum(out * G)` for a fixed random `G`, the gradient arriving at the layer is exactly `G`, so
# `backward(G)` must produce `dL/dE` and `dL/dP`. Along a random direction `d` of a table's shape, a
# gradient predicts the slope `sum(grad * d)`; moving the whole table to `± eps * d` and dividing the
# change of `L` by `2 * eps` measures it independently. Run it in float64: with `eps = 1e-6` the two
# loss values differ only in their last few digits, and float32 would lose that difference to
# rounding.
#
# The batch is small, `B, T, C = 2, 5, 8`: the first ten characters of the corpus, `'the lamp k'`, as
# two sequences of five, in which the space occurs twice, so the scatter-add of `dE` meets a repeated
# id. A correct layer measured about `3.5e-13` for `dE` and `1.9e-13` for `dP`, far below the `1e-5`
# bar. That is lower than a layer with a softmax usually gets: this layer is linear (a gather and an
# addition), so there is no curvature for the finite differences to trip over. With `dE[idx] += dout`
# the `dE` gap would jump to order 0.1 (Exercise 1 shows it).

# %% nbgrader={"grade": false, "grade_id": "helpers-gradcheck", "locked": true, "schema_version": 3, "solution": false}
# kit-include: _shared/gradcheck.py


# %% nbgrader={"grade": false, "grade_id": "demo-gradcheck", "locked": true, "schema_version": 3, "solution": false}
with crashes_explained():
    B, T, C = 2, 5, 8
    layer = EmbeddingLayer(vocab_size, block_size=32, C=C)
    idx = data[:B * T].reshape(B, T)
    G = np.random.default_rng(0).standard_normal((B, T, C))  # the fixed upstream gradient
    layer.forward(idx)
    layer.backward(G)
    dE, dP = np.array(layer.dE, copy=True), np.array(layer.dP, copy=True)
    loss = lambda: np.sum(layer.forward(idx) * G)  # noqa: E731
    errors = {"dE": slope_error(loss, layer.E, dE), "dP": slope_error(loss, layer.P, dP)}
    print(f"B, T, C = {B}, {T}, {C} | ids {idx.tolist()} | {idx.size} ids, {len(np.unique(idx))} distinct")
    for name, err in errors.items():
        print(f"largest relative gap of {name} along 5 random directions: {err:.2e}")
    print(gradcheck_verdict(errors))

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-attention", "locked": true, "schema_version": 3, "solution": false}
# ### It plugs into attention
#
# Correct gradients are half the job; the other half is handing the next layer what it expects. The
# attention head of lesson 1 reads `(B, T, C)` and returns `(B, T, hs)`. The cell below defines a
# compact version of it (a given helper, not something to write again) and feeds it the layer's
# output from the gradient check directly: `(2, 5, 8)` in, weights of shape `(8, 4)`, `(2, 5, 4)`
# out, with no reshaping in between.
#
# It also revisits lesson 1. Reverse the order of each sequence. With token vectors alone
# (`E[idx]`), attention's output is just reversed with it, so the head cannot tell the order apart.
# With the layer's output (`E[idx] + P[:T]`) the reversed sequence gets different vectors, and the
# gap is clearly above zero, a good part of the output's own size.
#
# One thing to know about the scale: a fresh layer's tables are tiny (entries of about 0.02), so
# with attention weights of the same small size every score is nearly 0, every token attends
# almost evenly, and the gap shrinks to about `1e-7` however different the order. Training grows
# the weights; the cell stands in for that with weights of size 10.

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
with crashes_explained():
    rng = np.random.default_rng(42)
    hs = 4
    Wq, Wk, Wv = (rng.standard_normal((C, hs)) * 10 for _ in range(3))  # trained-size weights for the tiny tables
    X = layer.forward(idx)
    att = attention_forward(X, Wq, Wk, Wv)
    print("embedding output:", X.shape, "= (B, T, C) -> attention output:", att.shape, "= (B, T, hs)")
    rev = idx[:, ::-1]
    gap_tokens = np.abs(attention_forward(layer.E[rev], Wq, Wk, Wv) - attention_forward(layer.E[idx], Wq, Wk, Wv)[:, ::-1]).max()
    gap_layer = np.abs(attention_forward(layer.forward(rev), Wq, Wk, Wv) - att[:, ::-1]).max()
    print(f"each sequence reversed, tokens only: gap {gap_tokens:.1e} | tokens + positions: gap {gap_layer:.1e}")
    print(f"the attention output's largest entry: {np.abs(att).max():.2f}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-optimizer", "locked": true, "schema_version": 3, "solution": false}
# ### No gradient does not mean no change
#
# Three kinds of rows get an all-zero gradient in a step: rows of `E` whose token is absent from the
# batch, rows `T` and beyond of `P`, and all of `P` while it is frozen. With the plain update
# `P -= lr * dP` they stay where they are. The optimizer a GPT trains with, Adam with weight decay,
# still moves them:
#
# * **weight decay** shrinks every weight a little at every step, whatever its gradient;
# * **Adam's running moments** remember earlier gradients, so a row that had a gradient in the last
#   steps keeps moving for a while after its gradient drops to zero.
#
# The cell below takes single Adam steps on `P` (`block_size = 8`, a batch with `T = 5`) and lists the
# rows that moved. With fresh moments and no weight decay, only rows 0 to 4 move. With weight decay
# 0.01, rows 5 to 7 shrink too. And a layer frozen after one ordinary step still moves every row of
# `P`, though its `dP` is all zero. Freezing the gradient is not freezing the weights: to hold `P`
# fixed, leave it out of the optimizer's update.

# %% nbgrader={"grade": false, "grade_id": "demo-optimizer", "locked": true, "schema_version": 3, "solution": false}
def adam_step(param, grad, state, lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0):
    """One Adam step on param, in place, with decoupled weight decay; state keeps the running moments."""
    state["t"] = state.get("t", 0) + 1
    state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * grad
    state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * grad ** 2
    m_hat = state["m"] / (1 - beta1 ** state["t"])
    v_hat = state["v"] / (1 - beta2 ** state["t"])
    param -= lr * (m_hat / (np.sqrt(v_hat) + eps) + weight_decay * param)


def rows_moved_by_a_step(layer, idx, state, weight_decay=0.0):
    """forward, backward and one Adam step on P; the rows of P that changed."""
    layer.forward(idx)
    layer.backward(np.random.default_rng(idx.shape[1]).standard_normal(idx.shape + (layer.P.shape[1],)))
    before = layer.P.copy()
    adam_step(layer.P, layer.dP, state, weight_decay=weight_decay)
    return np.flatnonzero(np.any(layer.P != before, axis=1)).tolist()


with crashes_explained():
    short, full = data[:10].reshape(2, 5), data[10:26].reshape(2, 8)
    print("rows of P (block_size = 8) moved by one Adam step on a batch with T = 5:")
    print("  fresh moments, no weight decay   :", rows_moved_by_a_step(EmbeddingLayer(vocab_size, 8, 4), short, {}))
    print("  fresh moments, weight decay 0.01 :",
          rows_moved_by_a_step(EmbeddingLayer(vocab_size, 8, 4), short, {}, weight_decay=0.01))
    layer, state = EmbeddingLayer(vocab_size, 8, 4), {}
    rows_moved_by_a_step(layer, full, state)  # one ordinary step with the full window
    layer.freeze_positions = True
    moved = rows_moved_by_a_step(layer, short, state)
    print("  frozen after one ordinary step   :", moved, "| dP all zero:", bool(np.all(layer.dP == 0)))

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
# * A zero gradient is not a frozen weight: Adam's moments and weight decay still move rows that got
#   no gradient in a step.
#
# This layer is the front door of the model you build next: the first line of its forward pass
# turns token ids into position-aware vectors, and every block after it relies on that.

# %% [markdown] nbgrader={"grade": false, "grade_id": "md-exercises", "locked": true, "schema_version": 3, "solution": false}
# ## Practice exercises
#
# Before you move on, three short experiments with the layer you built. Each exercise is a function
# for you to fill in, followed by a self-check. They are **not graded**; the self-checks tell you
# whether your experiment shows what it should. They may use the helpers above
# (`slope_error`, `data`, `vocab_size`).
#
# ### Exercise 1: prove that the duplicate-safe scatter matters
#
# Build a variant of your layer whose backward uses the naive `dE[idx] += dout` in place of
# `np.add.at`, and gradient-check it on a batch of corpus ids with `slope_error`. A subclass is the tidy way:
# override `forward` to remember `idx` and call `super().forward(idx)`; override `backward` to call
# `super().backward(dout)` (which keeps `dP` as it was) and then recompute `self.dE` the naive way.
# Return the two gaps `(err_dE, err_dP)` that `slope_error` measures.
#
# You should see `dE` fail the check badly while `dP` stays around `1e-13`. In a comment inside the
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
    err_dE = slope_error(loss, layer.E, dE)
    err_dP = slope_error(loss, layer.P, dP)
    # Why only dE breaks: dE is written through idx, a fancy index full of repeats (a letter such as 'e'
    # occurs many times in a batch). NumPy buffers `dE[idx] += dout` as `dE[idx] = dE[idx] + dout`, so for a
    # repeated id every write starts from the same old value and the last one wins: the row gets one
    # occurrence's gradient instead of the sum. dP is written through the slice :T, where every row appears
    # exactly once, and the batch (the only place a position repeats) is summed explicitly by .sum(axis=0)
    # before anything is written. No index repeats in that write, so there is nothing to lose.
    return err_dE, err_dP
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex1-check", "locked": true, "schema_version": 3, "solution": false}
with self_check("Exercise 1"), crashes_explained():
    idx = data[:24].reshape(2, 12)
    G = np.random.default_rng(0).standard_normal((2, 12, 8))
    err_dE, err_dP = naive_scatter_errors(idx, G)
    print(f"naive scatter: gap of dE {err_dE:.2e}, of dP {err_dP:.2e}")
    print("the naive variant's gradient check:", gradcheck_verdict({"dE": err_dE, "dP": err_dP}))
    if not err_dE > 1e-5:
        raise Diagnosis("wrong-value", f"Your naive variant passes the gradient check of dE ({err_dE:.2e}, bar 1e-5), so "
                                       "it still adds every occurrence. After super().backward(dout), set self.dE the "
                                       "naive way: zeros, then self.dE[idx] += dout with the ids forward saw.")
    if not err_dP < 1e-7:
        layer = EmbeddingLayer(vocab_size, 16, G.shape[-1])  # your own layer, unchanged, on the same batch
        layer.forward(idx)
        layer.backward(G)
        own = slope_error(lambda: np.sum(layer.forward(idx) * G), layer.P, np.array(layer.dP, dtype=float))
        if own < 1e-7:
            raise Diagnosis("wrong-gradient", f"dP of your naive variant fails the gradient check ({err_dP:.2e}), while "
                                              f"your EmbeddingLayer's own dP passes it on the same batch ({own:.2e}): "
                                              "the difference is in naive_scatter_errors. In the variant's backward, "
                                              "call super().backward(dout) first and leave self.dP as it computed it; "
                                              "then check dP with the same idx and G you passed to forward and backward, "
                                              "against layer.P, not layer.E.")
        probe = EmbeddingLayer(vocab_size, 16, G.shape[-1])  # the check moves P, then reads forward again
        before = np.array(probe.forward(idx), dtype=float, copy=True)
        probe.E -= 0.5
        probe.P += 0.25
        check_forward_after_step(probe, idx, before)  # a forward that misses the move is told here
        raise Diagnosis("wrong-gradient", f"dP of your naive variant fails the gradient check ({err_dP:.2e}), and so "
                                          f"does your EmbeddingLayer's own dP on the same batch ({own:.2e}): fix dP in "
                                          "EmbeddingLayer.backward first (the self-check under it, "
                                          "test-layer-backward-dP, says what is wrong there), then run this again.")
    # failing the check is not enough: the gap must be the naive dE's, measured with your layer on the same batch
    layer = EmbeddingLayer(vocab_size, 16, G.shape[-1])
    layer.forward(idx)
    naive_dE = np.zeros_like(layer.E)
    naive_dE[idx] += G                                                     # the naive scatter, one write per repeated id
    want = slope_error(lambda: np.sum(layer.forward(idx) * G), layer.E, naive_dE)
    if not np.isclose(err_dE, want, rtol=1e-3):
        raise Diagnosis("wrong-value", f"Your naive variant's gap of dE is {err_dE:.2e}, but the naive dE (zeros, then "
                                       f"dE[idx] += dout) gives {want:.2e} on this batch with your EmbeddingLayer: the "
                                       "difference is in naive_scatter_errors. After super().backward(dout), start "
                                       "self.dE from np.zeros_like(self.E) before self.dE[idx] += dout, so the naive "
                                       "write replaces the right gradient instead of adding to it.")


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
# * `P_moved`: how far the frozen layer's `P` moved in the training step (0; with Adam or weight
#   decay it would move, as the demo before the summary shows).

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
with self_check("Exercise 2"), crashes_explained():
    idx = data[40:64].reshape(2, 12)
    G = np.random.default_rng(5).standard_normal((2, 12, 6))
    dE_change, dP_max, P_moved = freeze_effect(idx, G)
    print(f"dE change {dE_change:.1e} | largest |dP| {dP_max:.1e} | P moved {P_moved:.1e}")
    if dE_change == 0 and dP_max == 0 and P_moved == 0:
        pass
    else:  # your layer itself, frozen after construction, on the same batch: is it the layer or the experiment?
        full, frozen = EmbeddingLayer(vocab_size, 16, 6, seed=7), EmbeddingLayer(vocab_size, 16, 6, seed=7)
        frozen.freeze_positions = True
        for layer in (full, frozen):
            layer.forward(idx)
            layer.backward(G)
        check_frozen(frozen, full, "set after construction")  # raises the layer's own mistake, in the grader's words
        what = ("dE changed by up to {:.3g} when the positions were frozen".format(dE_change) if dE_change != 0 else
                f"the frozen layer's dP reaches {dP_max:.3g}" if dP_max != 0 else
                f"the step P -= 0.1 * dP moved the frozen P by {P_moved:.3g}")
        raise Diagnosis("wrong-value", f"In your experiment {what}, but your EmbeddingLayer freezes correctly on this "
                                       "same batch (built with seed=7, frozen after construction): the difference is "
                                       "in freeze_effect. Build both layers with the same seed, set "
                                       "freeze_positions = True on one of them only, run forward and backward on both "
                                       "with idx and G, and take dE, dP and the step from the layer each number names.")


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
with self_check("Exercise 3"), crashes_explained():
    half, full = rows_with_gradient(16), rows_with_gradient(32)
    print(f"rows of dP with a gradient: T=16 -> {half} of 32, T=32 -> {full} of 32")
    layer = EmbeddingLayer(vocab_size, 32, 16)  # your own layer on the exercise's batch, counted here
    layer.forward(data[:32].reshape(2, 16))
    layer.backward(np.random.default_rng(0).standard_normal((2, 16, 16)))
    rows = int(np.sum(np.any(np.asarray(layer.dP) != 0, axis=1)))
    if rows > 16:
        raise say("dP-tail-not-zero", detail=f"With T=16 of block_size=32, your layer's dP has {rows} rows that are not "
                                             "zero; rows 16..31 should be zero. The fault is in EmbeddingLayer.backward, "
                                             "not in your count.")
    expect_close("The pair of your counts for T = 16 and T = 32", np.array([half, full], dtype=float), [16, 32], sizes={"C": 16},
                 hint=f"Your layer is right here (for T = 16 its dP has {rows} rows that are not zero): the count in "
                      "rows_with_gradient is what to change. Count the rows of dP that are not entirely zero, "
                      "np.any(dP != 0, axis=1).sum(), not its entries, and embed data[:B * T].reshape(B, T).")
