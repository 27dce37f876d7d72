# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "freeze_positions is read by backward when it runs: switching it between a forward and its backward changes that backward's dP. forward does not depend on it."; "While freeze_positions is true, self.dP is all zeros of P's shape ... The flag is read at every call."
# story: The student first stored the flag in the forward cache (the graph is "built" at forward, as with requires_grad). The freeze-later self-check then said "read self.freeze_positions at every backward" (flag switched off with no new forward), so they patched backward to freeze only if the flag was on at forward AND is on now. That passes every self-check (built frozen; frozen before a forward; switched off before a backward). It fails when the flag is switched on between a forward and its backward: forward(A) unfrozen, freeze_positions = True, backward(g) still returns the unfrozen dP. Diagnosis: stale-state (dP is the gradient under the flag as it was at the forward); a grader that does not verify the earlier state would say freeze-ignored.
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
            raise ValueError(f"sequence length {T} exceeds block_size {self.block_size}")
        # remember whether positions take part in this pass, like requires_grad when the graph is built
        self.cache = (idx, T, bool(self.freeze_positions))
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T, frozen_at_forward = self.cache
        dE = np.zeros_like(self.E)
        np.add.at(dE, idx, dout)
        self.dE = dE
        dP = np.zeros_like(self.P)
        # frozen for this pass, and still frozen now (the flag can be switched off between steps)
        if not (frozen_at_forward and self.freeze_positions):
            dP[:T] = dout.sum(axis=0)
        self.dP = dP
        return None
