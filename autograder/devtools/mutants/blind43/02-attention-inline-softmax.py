# notebook: 01_why_position
# cell: self-attention
# kind: wrong
# contract: "the scores `Q @ Kᵀ / sqrt(hs)` go through a softmax over the last axis" (the input space's `scale: large`, X entries up to 30, scores around 1000)
# story: To keep the head "self-contained" the student writes the textbook softmax inline instead of calling their stable `softmax`; every visible case has small scores, but scores near 1000 give exp overflow and nan weights.
def self_attention(X, Wq, Wk, Wv):
    """One attention head, no mask: X (B, T, C), each W (C, hs) -> (B, T, hs)."""
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    hs = Wq.shape[1]
    scores = Q @ K.swapaxes(-1, -2) / np.sqrt(hs)
    weights = np.exp(scores)                                   # softmax over the keys
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V
