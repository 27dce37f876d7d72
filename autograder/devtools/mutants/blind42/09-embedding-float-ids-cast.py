# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "ids that are not integers raise TypeError, IndexError or ValueError"
# story: Wanted to be lenient with ids that "look like" integers (e.g. read from a float array), so only fractional values are refused and whole-number floats such as [0.0, 1.0] are cast to int and looked up. The self-check's [0.0, 1.5] still raises.
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
        if np.any(idx != np.floor(idx)):
            raise TypeError("token ids must be whole numbers")
        idx = idx.astype(np.int64)
        if np.any((idx < 0) | (idx >= self.vocab_size)):
            raise ValueError(f"token ids must lie in [0, {self.vocab_size})")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        dE = np.zeros_like(self.E)
        np.add.at(dE, self.cache, dout)
        self.dE = dE
        return None
