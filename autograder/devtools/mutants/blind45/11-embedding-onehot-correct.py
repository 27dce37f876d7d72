# notebook: 02_token_embeddings
# cell: embedding
# kind: correct
# contract: "forward(idx) takes integer ids of any shape and returns E[idx], of shape idx.shape + (C,), keeping what backward needs."; "backward(dout) sets self.dE (the shape of E) from zeros on every call, adding the gradient of every occurrence of an id ... and returns None."; "every call reads the table as it is then"
# story: A student who learned embeddings as "a linear layer applied to one-hot vectors" writes exactly that: forward builds a fresh one-hot matrix (n, V) and returns (onehot @ E) reshaped to idx.shape + (C,), and backward is onehot.T @ dout, which sums every occurrence of an id without np.add.at. Gathering by a matmul is exact (each output entry is 1 * E[v, c] plus zeros), the one-hot matrix is rebuilt on every forward and E is read at every call, the validation refuses negative, too large and float ids, and every gradient is a new array. It should score full marks: no diagnosis.
import numpy as np


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
        if not np.issubdtype(ids.dtype, np.integer):
            raise TypeError(f"token ids must be integers, got {ids.dtype}")
        V, C = self.E.shape
        flat = ids.reshape(-1)
        if np.any(flat < 0) or np.any(flat >= V):
            raise IndexError(f"token ids must lie in [0, {V})")
        onehot = (flat[:, None] == np.arange(V)).astype(np.float64)  # (n, V): one 1.0 per row
        self.cache = (onehot, ids.shape)
        return (onehot @ self.E).reshape(ids.shape + (C,))

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        onehot, shape = self.cache
        g = np.asarray(dout, dtype=np.float64).reshape(onehot.shape[0], -1)
        self.dE = onehot.T @ g  # (V, C): row v sums dout over every place holding id v
        return None
