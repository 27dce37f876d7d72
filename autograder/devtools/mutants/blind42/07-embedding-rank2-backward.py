# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "forward(idx) takes integer ids of any shape"; "backward(dout) sets self.dE (the shape of E) from zeros on every call, adding the gradient of every occurrence of an id"; input space: "ids of any shape (a single id, (1, 1), (B, T), more axes)"
# story: Wrote the scatter as the formula dE_v = sum over [b, t], a double loop over batch and time, and made 1-D ids fit with np.atleast_2d. With a third axis, idx[b, t] is a whole vector and the buffered += drops repeats inside it.
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
        idx = np.asarray(idx)
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError("token ids must be integers")
        if np.any(idx < 0) or np.any(idx >= self.vocab_size):
            raise IndexError("token id out of range")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        ids = np.atleast_2d(self.cache)                  # (T,) -> (1, T), a single id -> (1, 1)
        grads = np.reshape(dout, ids.shape + (self.C,))
        self.dE = np.zeros_like(self.E)
        for b in range(ids.shape[0]):
            for t in range(ids.shape[1]):
                self.dE[ids[b, t]] += grads[b, t]        # dE_v = sum of dout[b, t] with ids[b, t] == v
        return None
