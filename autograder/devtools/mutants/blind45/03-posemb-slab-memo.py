# notebook: 04_learned_positions
# cell: positional-embedding
# kind: wrong
# contract: "Between any two calls the caller may update a table in place (E -= lr * dE) or replace it (obj.E = new): every call reads the table as it is then."; call sequences: "the table replaced by another array (obj.E = new)"
# story: The student notices that P[:T] is the same slab for every call with the same T and memoises it per T in a dict. The memo holds views of P, not copies, so every in-place change (slope_error's nudges, P -= lr * dP in the demos) shows through and all self-checks and demos pass; the worked example replaces pe.P before the first forward, so it also passes. Once P is replaced by a new array (pe.P = new) after a forward with some T, later forwards with that T keep adding the old table's rows. Diagnosis: stale-state (the output equals the right output for the replaced table).
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
            raise ValueError(f"sequence length T={T} exceeds block_size={self.block_size}")
        # the slab P[:T] only depends on T: slice it once per length and reuse it
        if not hasattr(self, "_slabs"):
            self._slabs = {}
        if T not in self._slabs:
            self._slabs[T] = self.P[:T]  # a view, so training updates to P show up here
        self.cache = T
        return x + self._slabs[T]

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        T = self.cache
        dP = np.zeros_like(self.P)
        dP[:T] = dout.sum(axis=0)
        self.dP = dP
        return dout
