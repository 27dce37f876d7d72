# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "`forward(idx)` takes integer ids of any shape and returns `E[idx]`" (the space: "ids of every integer dtype, signed and unsigned": uint8, uint16, uint32, uint64)
# story: To refuse float and bool ids the student checks `idx.dtype.kind != "i"`, not knowing unsigned integers have kind "u"; the corpus ids are int64, so every visible cell passes, but uint8 ids (a common compact id dtype) raise TypeError.
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
        if idx.dtype.kind != "i":
            raise TypeError(f"token ids must be integers, got {idx.dtype}")
        if (idx < 0).any() or (idx >= self.vocab_size).any():
            raise IndexError(f"token ids must lie in [0, {self.vocab_size})")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        dE = np.zeros_like(self.E)
        np.add.at(dE, self.cache, dout)
        self.dE = dE
