# notebook: 04_learned_positions
# cell: positional-embedding
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it."; call sequences: "forward with another batch of the same shape"
# story: A performance-minded student avoids allocating a new (B, T, C) array on every call: forward writes x + P[:T] into a preallocated output buffer with np.add(..., out=...), reallocating only when the shape of x changes, and returns the buffer. Every self-check builds a new object per shape or uses a forward's result before the next call (the gradient-check lambda sums it at once), so all pass. A caller that keeps the output of forward(x1) and then calls forward(x2) with the same shape finds its first result overwritten with x2 + P[:T]. Diagnosis: side-effect (a result handed out earlier changed).
import numpy as np


class PositionalEmbedding:
    """A learned table of position vectors: slot t of every sequence receives row t of P."""

    def __init__(self, block_size, C, seed=42):
        self.block_size = block_size
        self.C = C
        self.P = np.random.default_rng(seed).standard_normal((block_size, C)) * 0.02
        self.cache = None
        self.dP = None

    def forward(self, x):
        """x of shape (B, T, C) -> x + P[:T]; raise ValueError when T > block_size; cache what backward needs."""
        B, T, C = x.shape
        if T > self.block_size:
            raise ValueError(f"T={T} is longer than block_size={self.block_size}: the table has no row for it")
        # reuse one output buffer per input shape instead of allocating a new array every step
        if getattr(self, "_out", None) is None or self._out.shape != x.shape:
            self._out = np.empty(x.shape, dtype=np.float64)
        np.add(x, self.P[:T], out=self._out)
        self.cache = T
        return self._out

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        T = self.cache
        dP = np.zeros_like(self.P)
        dP[:T] = dout.sum(axis=0)
        self.dP = dP
        return dout
