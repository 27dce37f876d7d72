# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "backward(dout) starts from zeros on every call and returns None. self.dE is the scatter-add over idx"; call sequences: "forward with another batch of the same shape; ... backward with a fresh dout"
# story: The student keeps one dE array and, to save work on a big vocabulary, clears only the rows the current batch touches (np.unique(idx)) before the scatter-add, like a sparse optimizer. A second backward after the same forward clears the same rows, so the "starts from zeros" check passes; dE is never checked against the true value after a second batch with other ids (freeze-later compares two layers that share the bug). After forward(A), backward(g), forward(A2), backward(g2), rows of ids that are in A but not in A2 still hold the first batch's gradient; and since the same array is reused, even forward, backward(g1), backward(g2) rewrites the dE the first backward handed out. Diagnosis: grad-accumulates on the two-batch case (with disjoint ids, dE is exactly the previous dE plus the right one); if the shrinker keeps the shorter forward, backward, backward(fresh dout) sequence, side-effect (an earlier dE changed) is right too. Not stale-state.
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
        B, T = idx.shape
        if T > self.block_size:
            raise ValueError(f"T={T} > block_size={self.block_size}")
        self.cache = (idx, T)
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache
        if self.dE is None or self.dE.shape != self.E.shape:
            self.dE = np.zeros_like(self.E)
        else:
            self.dE[np.unique(idx)] = 0.0  # sparse reset: only the rows this batch writes to
        np.add.at(self.dE, idx, dout)
        dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            dP[:T] = dout.sum(axis=0)
        self.dP = dP
        return None
