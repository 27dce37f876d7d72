# notebook: 02_token_embeddings
# cell: embedding
# kind: correct
# contract: style: np.take for the gather (mode="raise"), validation by dtype kind, and a one-hot matrix product for the scatter-add (dE = onehotᵀ @ dout), no fancy-index assignment at all
# story: A student who thinks of the embedding as a one-hot vector times a matrix, as in the lecture slides, and writes the backward as that matrix's transpose.
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
        ids = np.asarray(idx)
        if ids.dtype.kind not in ("i", "u"):
            raise TypeError(f"token ids must have an integer dtype, not {ids.dtype}")
        flat = ids.reshape(-1).astype(np.int64)
        V = self.E.shape[0]
        if np.any(flat < 0) or np.any(flat >= V):
            raise IndexError(f"every token id must lie in [0, {V})")
        self.cache = (flat, ids.shape)
        return np.take(self.E, flat, axis=0, mode="raise").reshape(ids.shape + (self.E.shape[1],))

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        flat, shape = self.cache
        V, C = self.E.shape
        onehot = (flat[:, None] == np.arange(V)[None, :]).astype(np.float64)   # (N, V)
        self.dE = onehot.T @ np.reshape(dout, (flat.size, C))                  # (V, C): sums every occurrence
        return None
