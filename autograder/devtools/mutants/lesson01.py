"""Mutants and correct alternatives for lesson 1 (softmax, self_attention, permutation_gap)."""

from . import Mutant

NB = "01_why_position"

SHIFT = "shifted = x - np.max(x, axis=axis, keepdims=True)"
MAX = "np.max(x, axis=axis, keepdims=True)"
SUM = "np.sum(e, axis=axis, keepdims=True)"

# The softmax and attention mutants that normalise over the wrong axis are the relationship wrong-axis, and a
# time-major attention output is the relationship transposed: they are told so, on both sides.
MUTANTS = [
    # softmax
    Mutant("softmax-no-max", NB, "softmax", "softmax-unstable", replace=((SHIFT, "shifted = x"),)),
    Mutant("softmax-global-max", NB, "softmax", "softmax-unstable", replace=((MAX, "np.max(x)"),)),
    Mutant(
        "softmax-default-axis-0",
        NB,
        "softmax",
        "wrong-axis",
        replace=(("def softmax(x, axis=-1):", "def softmax(x, axis=0):"),),
    ),
    Mutant(
        "softmax-ignores-axis",
        NB,
        "softmax",
        "wrong-axis",
        replace=((MAX, "np.max(x, axis=-1, keepdims=True)"), (SUM, "np.sum(e, axis=-1, keepdims=True)")),
    ),
    Mutant("softmax-sum-no-keepdims", NB, "softmax", "wrong-value", replace=((SUM, "np.sum(e, axis=axis)"),)),
    Mutant("softmax-sum-whole-array", NB, "softmax", "wrong-value", replace=((SUM, "np.sum(e)"),)),
    Mutant(
        "softmax-max-wrong-axis", NB, "softmax", "wrong-value", replace=((MAX, "np.max(x, axis=0, keepdims=True)"),)
    ),
    Mutant(
        "softmax-in-place",
        NB,
        "softmax",
        "side-effect",
        replace=((SHIFT, "x -= np.max(x, axis=axis, keepdims=True)\n    shifted = x"),),
    ),
    # self_attention
    Mutant("attention-unscaled", NB, "self-attention", "attention-unscaled", replace=((" / np.sqrt(hs)", ""),)),
    Mutant("attention-scaled-by-hs", NB, "self-attention", "attention-unscaled", replace=(("/ np.sqrt(hs)", "/ hs"),)),
    Mutant(
        "attention-scaled-by-width",
        NB,
        "self-attention",
        "attention-unscaled",
        replace=(("hs = Wq.shape[1]", "hs = X.shape[-1]"),),
    ),
    Mutant(
        "attention-softmax-over-queries",
        NB,
        "self-attention",
        "wrong-axis",
        replace=(("softmax(scores, axis=-1)", "softmax(scores, axis=1)"),),
    ),
    Mutant(
        "attention-softmax-over-batch",
        NB,
        "self-attention",
        "wrong-axis",
        replace=(("softmax(scores, axis=-1)", "softmax(scores, axis=0)"),),
    ),
    Mutant(
        "attention-no-value-projection",
        NB,
        "self-attention",
        "wrong-shape",
        replace=(("return weights @ V", "return weights @ X"),),
    ),
    Mutant(
        "attention-returns-weights",
        NB,
        "self-attention",
        "wrong-shape",
        replace=(("return weights @ V", "return weights"),),
    ),
    # time-major output (T, B, hs): the right values with the batch and time axes swapped
    Mutant(
        "attention-output-time-major",
        NB,
        "self-attention",
        "transposed",
        replace=(("return weights @ V", "return (weights @ V).swapaxes(0, 1)"),),
    ),
    Mutant(
        "attention-keys-times-queries",
        NB,
        "self-attention",
        "wrong-value",
        replace=(("Q @ K.swapaxes(-1, -2)", "K @ Q.swapaxes(-1, -2)"),),
    ),
    Mutant(
        "attention-no-softmax",
        NB,
        "self-attention",
        "wrong-value",
        replace=(("weights = softmax(scores, axis=-1)", "weights = scores"),),
    ),
    # permutation_gap
    Mutant(
        "gap-output-not-permuted",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(
            ("after = self_attention(X + pos, Wq, Wk, Wv)[:, perm]", "after = self_attention(X + pos, Wq, Wk, Wv)"),
        ),
    ),
    Mutant(
        "gap-input-not-permuted",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(("first = self_attention(X[:, perm] + pos,", "first = self_attention(X + pos,"),),
    ),
    Mutant(
        "gap-inverse-permutation",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(("Wv)[:, perm]", "Wv)[:, np.argsort(perm)]"),),
    ),
    Mutant(
        "gap-positions-shuffled",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(
            (
                "first = self_attention(X[:, perm] + pos,",
                "first = self_attention(X[:, perm] + (0.0 if P is None else P[:T][perm]),",
            ),
        ),
    ),
    Mutant(
        "gap-pos-after-attention",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(
            (
                "first = self_attention(X[:, perm] + pos, Wq, Wk, Wv)",
                "first = self_attention(X[:, perm], Wq, Wk, Wv) + pos",
            ),
            (
                "after = self_attention(X + pos, Wq, Wk, Wv)[:, perm]",
                "after = (self_attention(X, Wq, Wk, Wv) + pos)[:, perm]",
            ),
        ),
    ),
    Mutant(
        "gap-ignores-P",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(("pos = 0.0 if P is None else P[:T]", "pos = 0.0"),),
    ),
    Mutant(
        "gap-P-not-sliced",
        NB,
        "permutation-gap",
        "wrong-shape",
        replace=(("pos = 0.0 if P is None else P[:T]", "pos = 0.0 if P is None else P"),),
    ),
    Mutant(
        "gap-mean",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(("np.max(np.abs(first - after))", "np.mean(np.abs(first - after))"),),
    ),
    Mutant(
        "gap-signed-max",
        NB,
        "permutation-gap",
        "wrong-value",
        replace=(("np.max(np.abs(first - after))", "np.max(first - after)"),),
    ),
    Mutant(
        "gap-adds-in-place",
        NB,
        "permutation-gap",
        "side-effect",
        source="""\
def permutation_gap(X, perm, Wq, Wk, Wv, P=None):
    T = X.shape[1]
    if P is not None:
        X += P[:T]
    first = self_attention(X[:, perm], Wq, Wk, Wv)
    after = self_attention(X, Wq, Wk, Wv)[:, perm]
    return float(np.max(np.abs(first - after)))
""",
    ),
]

ALTERNATIVES = [
    Mutant(
        "softmax-loop-over-slices",
        NB,
        "softmax",
        None,
        source="""\
import math

def softmax(x, axis=-1):
    moved = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    out = np.empty_like(moved)
    for index in np.ndindex(moved.shape[:-1]):
        row = moved[index]
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        total = sum(exps)
        out[index] = [v / total for v in exps]
    return np.moveaxis(out, -1, axis)
""",
    ),
    Mutant(
        "softmax-log-sum-exp",
        NB,
        "softmax",
        None,
        source="""\
def softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    log_norm = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    return np.exp(x - log_norm)
""",
    ),
    Mutant(
        "attention-einsum",
        NB,
        "self-attention",
        None,
        source="""\
def self_attention(X, Wq, Wk, Wv):
    Q = np.einsum("btc,ch->bth", X, Wq)
    K = np.einsum("btc,ch->bth", X, Wk)
    V = np.einsum("btc,ch->bth", X, Wv)
    scores = np.einsum("bth,bsh->bts", Q, K) / np.sqrt(Q.shape[-1])
    return np.einsum("bts,bsh->bth", softmax(scores), V)
""",
    ),
    Mutant(
        "attention-loops",
        NB,
        "self-attention",
        None,
        source="""\
def self_attention(X, Wq, Wk, Wv):
    B, T, _ = X.shape
    hs = Wv.shape[1]
    out = np.zeros((B, T, hs))
    for b in range(B):
        Q, K, V = X[b] @ Wq, X[b] @ Wk, X[b] @ Wv
        for t in range(T):
            s = np.array([Q[t] @ K[u] for u in range(T)]) / hs ** 0.5
            w = np.exp(s - s.max())
            w = w / w.sum()
            out[b, t] = w @ V
    return out
""",
    ),
    Mutant(
        "gap-inverse-alignment",
        NB,
        "permutation-gap",
        None,
        source="""\
def permutation_gap(X, perm, Wq, Wk, Wv, P=None):
    pos = np.zeros(X.shape[1:]) if P is None else P[: X.shape[1]]
    inverse = np.argsort(perm)
    shuffled = self_attention(X[:, perm] + pos, Wq, Wk, Wv)
    plain = self_attention(X + pos, Wq, Wk, Wv)
    return np.abs(shuffled[:, inverse] - plain).max()
""",
    ),
    Mutant(
        "gap-own-attention",
        NB,
        "permutation-gap",
        None,
        source="""\
def permutation_gap(X, perm, Wq, Wk, Wv, P=None):
    def attend(Z):
        s = (Z @ Wq) @ np.transpose(Z @ Wk, (0, 2, 1)) / np.sqrt(Wq.shape[1])
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        return (w / w.sum(axis=-1, keepdims=True)) @ (Z @ Wv)
    Z = X.copy()
    if P is not None:
        Z = Z + P[: X.shape[1]]
    Zs = X[:, perm] + (0 if P is None else P[: X.shape[1]])
    gap = 0.0
    for b in range(X.shape[0]):
        gap = max(gap, float(np.max(np.abs(attend(Zs[b:b + 1]) - attend(Z[b:b + 1])[:, perm]))))
    return gap
""",
    ),
]
