# notebook: 01_why_position
# cell: self-attention
# kind: correct
# contract: style: einsum for every product, head size read from the weights, the scale folded into the queries, and the student's own softmax over the key axis
# story: A student who finds einsum index strings easier to trust than transposes of 3-D arrays.
def self_attention(X, Wq, Wk, Wv):
    """One attention head, no mask: X (B, T, C), each W (C, hs) -> (B, T, hs)."""
    hs = Wk.shape[1]
    q = np.einsum("btc,ch->bth", X, Wq) * (1.0 / np.sqrt(hs))
    k = np.einsum("btc,ch->bth", X, Wk)
    v = np.einsum("btc,ch->bth", X, Wv)
    att = softmax(np.einsum("bth,bsh->bts", q, k), axis=2)   # row t: query t over every key s
    return np.einsum("bts,bsh->bth", att, v)
