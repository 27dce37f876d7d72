# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "forward(idx) takes integer ids of any shape and returns E[idx]"; only "ids that are not integers raise TypeError, IndexError or ValueError"
# story: The corpus is encoded with dtype=np.int64 and every example uses it, so the type check compares against exactly that dtype; int32 or uint8 ids (what a tokenizer or np.frombuffer hands you) are refused as "not integers".
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
        if idx.dtype != np.int64:
            raise TypeError(f"token ids must be integers (int64), got {idx.dtype}")
        if idx.min() < 0 or idx.max() >= self.vocab_size:
            raise IndexError(f"token ids must lie in [0, {self.vocab_size})")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, self.cache, dout)
        return None
