# notebook: 04_learned_positions
# cell: positional-embedding
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it."; "Two backwards in a row give the same gradients for the same dout, and the gradient of the second dout for another."
# story: Coming from PyTorch, the student does "zero_grad" once per step: forward allocates a fresh zero gradient buffer for P, and backward writes rows :T of that buffer (assignment, not +=) and hands it out as self.dP. Each forward starts a new buffer, so the long-then-short check sees a clean tail, and two backwards with the same dout give the same values, so every self-check passes. But two backwards after one forward share one array: after forward, backward(g1) and backward(g2), the dP the caller kept from the first backward now holds g2's gradient. Diagnosis: side-effect (self.dP handed out by the first backward was written into by the second).
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
        T = x.shape[1]
        if T > self.block_size:
            raise ValueError(f"T={T} > block_size={self.block_size}")
        self.cache = T
        self._grad = np.zeros_like(self.P)  # zero_grad: a clean gradient buffer for this step
        return x + self.P[:T]

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        T = self.cache
        self._grad[:T] = dout.sum(axis=0)  # rows T: stay zero from forward's zero_grad
        self.dP = self._grad
        return dout
