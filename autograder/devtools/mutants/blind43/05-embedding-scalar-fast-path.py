# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "An id outside `[0, vocab_size)`, a negative one included, raises `IndexError` or `ValueError`" (the space's bad container `python` and `numpy scalar`)
# story: The single-id self-check (forward(np.int64(4))) made the student add a fast path for scalars that returns the row directly; the range check lives only in the array branch, so forward(-1) silently returns the last row of E.
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
        if np.isscalar(idx):                      # a single id: just one row
            self.cache = np.asarray(idx)
            return self.E[idx].copy()
        idx = np.asarray(idx)
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError("token ids must be integers")
        if idx.min() < 0 or idx.max() >= self.vocab_size:
            raise IndexError(f"token ids must lie in [0, {self.vocab_size})")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, self.cache, dout)
