# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "backward(dout) sets self.dE (the shape of E) from zeros on every call, adding the gradient of every occurrence of an id (a scatter-add, np.add.at)"; call sequences: "forward with another batch of the same shape; ... backward with a fresh dout"
# story: The student treats the lookup as one-hot @ E and keeps the one-hot matrix for a matmul backward; to avoid reallocating it they reuse the buffer whenever the batch size is unchanged, but only ever write ones into it, never clear it. Forward is a plain E[idx] and the first batch of each size is right, so every self-check passes (the two size-12 batches of the forward check hold the same ids). After a forward with another batch of the same size, the buffer keeps the old ones too, so backward also sends gradient to the previous batch's ids. Diagnosis: wrong-gradient (dE is wrong after forward(A), forward(A2 with the same shape and other ids), backward(g)); not stale-state, since dE is a mix of both batches and equals no earlier result.
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
        idx = np.asarray(idx)
        if idx.dtype.kind not in "iu":
            raise TypeError(f"token ids must be integers, got dtype {idx.dtype}")
        V = self.E.shape[0]
        if idx.size and (idx.min() < 0 or idx.max() >= V):
            raise IndexError(f"token ids must lie in [0, {V}), got {idx.min()}..{idx.max()}")
        # the embedding is one_hot(idx) @ E; keep the one-hot rows for a matmul backward.
        # reuse the buffer while the batch size stays the same instead of allocating every call
        n = idx.size
        if getattr(self, "_onehot", None) is None or self._onehot.shape != (n, V):
            self._onehot = np.zeros((n, V))
        self._onehot[np.arange(n), idx.reshape(-1)] = 1.0
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        C = self.E.shape[1]
        g = np.asarray(dout, dtype=np.float64).reshape(-1, C)
        self.dE = self._onehot.T @ g  # row v = sum of dout over every place holding id v
        return None
