# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "ids that are not integers raise `TypeError`, `IndexError` or `ValueError`" (the input space lists `float 2.0`, a whole-valued float id, as invalid)
# story: The student wants to be "friendly": an id array of floats is accepted when every value is a whole number (2.0 "is obviously id 2") and cast to int; only fractional ids like 1.5 are refused, which is all the visible check tries.
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
        if idx.dtype.kind == "f":
            if not np.all(idx == np.floor(idx)):
                raise TypeError("token ids must be whole numbers")
            idx = idx.astype(np.int64)        # 2.0 -> 2
        if np.any(idx < 0) or np.any(idx >= self.vocab_size):
            raise IndexError(f"token ids must lie in [0, {self.vocab_size})")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        idx = self.cache
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, idx, dout)
        return None
