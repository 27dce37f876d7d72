# notebook: 01_why_position
# cell: self-attention
# kind: wrong
# contract: "the scores Q @ Kᵀ / sqrt(hs) go through a softmax over the last axis" with softmax as specified: it "does not overflow for inputs around 1000 (it subtracts the maximum first)"; input space: "B, T, C and hs from 1"
# story: Writes the softmax inline from the formula instead of calling the stable softmax above; the self-checks only use unit-scale X, so exp never overflows there. With C = hs = 1 and |x| ~ 30 the scores reach 900 and the weights become nan.
def self_attention(X, Wq, Wk, Wv):
    """One attention head, no mask: X (B, T, C), each W (C, hs) -> (B, T, hs)."""
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    hs = Wq.shape[1]
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(hs)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V
