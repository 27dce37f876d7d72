# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "forward(idx) takes integer ids of any shape" (input space: "a single id"); the ids reach it as Python ints or lists as well as arrays
# story: Every id the notebook passes is a NumPy object (arrays, and np.int64(4) for the single id), so the code reads idx.dtype and idx.min() directly; a plain Python int 3 or a list [1, 2] crashes with AttributeError.
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
        if idx.dtype.kind not in "iu":
            raise TypeError(f"token ids must be integers, got {idx.dtype}")
        if idx.min() < 0 or idx.max() >= self.vocab_size:
            raise IndexError("token id out of range")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        self.dE = np.zeros(self.E.shape)
        np.add.at(self.dE, self.cache, dout)
        return None
