# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: correct
# contract: "forward(idx) takes (B, T) integer ids and returns E[idx] + P[:T] ... a T longer than block_size raises ValueError"; "backward(dout) starts from zeros on every call and returns None. self.dE is the scatter-add over idx; self.dP has rows :T equal to dout.sum(axis=0) and the rest zero. While freeze_positions is true, self.dP is all zeros of P's shape and self.dE is exactly what it would be without the flag. The flag is read at every call."
# story: A student who knows that np.add.at is slow scatters through np.bincount instead: every (id, column) pair gets one flat bin id * C + c (the ids cast to np.intp first, so every integer dtype, uint64 too, works), and one bincount with minlength V * C, reshaped to (V, C), is dE. dP is an einsum over the batch padded with zero rows by np.pad; while frozen it is np.zeros_like(P). The gather is np.take. Nothing is kept between calls but the ids and T, the tables are read at every call and the flag at every backward, and each gradient is a new array. It should score full marks: no diagnosis.
import numpy as np


class EmbeddingLayer:
    """Token table E plus learned position table P: the input stage of the model."""

    def __init__(self, vocab_size, block_size, C, seed=42, freeze_positions=False):
        self.vocab_size = vocab_size
        self.block_size = block_size
        self.C = C
        rng = np.random.default_rng(seed)
        self.E = rng.standard_normal((vocab_size, C)) * 0.02  # token table, drawn first
        self.P = rng.standard_normal((block_size, C)) * 0.02  # position table, drawn second
        self.freeze_positions = freeze_positions
        self.cache = None
        self.dE = self.dP = None

    def forward(self, idx):
        """ids of shape (B, T) -> E[idx] + P[:T], shape (B, T, C); raise ValueError when T > block_size."""
        T = np.shape(idx)[1]
        if T > self.P.shape[0]:
            raise ValueError(f"T={T} is longer than block_size={self.P.shape[0]}")
        self.cache = (idx, T)
        return np.take(self.E, idx, axis=0) + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache
        V, C = self.E.shape
        flat = np.asarray(idx).reshape(-1).astype(np.intp)
        bins = (flat[:, None] * C + np.arange(C)).reshape(-1)  # one bin per (id, column)
        weights = np.asarray(dout, dtype=np.float64).reshape(-1)  # the same (place, column) order
        self.dE = np.bincount(bins, weights=weights, minlength=V * C).reshape(V, C)
        if self.freeze_positions:
            self.dP = np.zeros_like(self.P)
        else:
            summed = np.einsum("btc->tc", np.asarray(dout, dtype=np.float64))
            self.dP = np.pad(summed, ((0, self.P.shape[0] - T), (0, 0)))
        return None
