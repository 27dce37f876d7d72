# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "Embedding(vocab_size, C, seed=42) draws its table ... into self.E, and starts with self.cache = None and self.dE = None"; dE has "the shape of E"; input space: "E replaced between two forwards"
# story: Allocates the gradient buffer once in __init__ ("no allocation per step") and zeroes it in place in backward. dE is no longer None before the first backward, it keeps the shape of the table drawn at construction, and every backward overwrites the array an earlier caller still holds.
class Embedding:
    """A learned lookup table: id -> row of E."""

    def __init__(self, vocab_size, C, seed=42):
        self.vocab_size = vocab_size
        self.C = C
        self.E = np.random.default_rng(seed).standard_normal((vocab_size, C)) * 0.02
        self.cache = None
        self.dE = np.zeros((vocab_size, C))          # gradient buffer, reused by every backward

    def forward(self, idx):
        """Gather the rows of E for integer ids of any shape; cache what backward needs."""
        idx = np.asarray(idx)
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError("token ids must be integers")
        if idx.size and (idx.min() < 0 or idx.max() >= self.vocab_size):
            raise IndexError("token id out of range")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        self.dE[...] = 0.0                              # start from zeros on every call
        np.add.at(self.dE, self.cache, dout)
        return None
