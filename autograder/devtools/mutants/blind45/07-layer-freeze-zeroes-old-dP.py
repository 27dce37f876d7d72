# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it."; "freeze_positions switched, between any two calls ... both ways"
# story: While frozen the student "zeroes the gradient in place" (optimizer.zero_grad style) to avoid a new allocation: if a dP of the right shape already exists it is filled with zeros, otherwise a zero array is made. The unfrozen path builds a fresh dP every call, so all self-checks pass: the frozen dP is zero, dE is untouched, and switching off computes dP again. But the array filled with zeros is the dP an earlier unfrozen backward handed out: forward(A), backward(g) (caller keeps dP), freeze_positions = True, backward(g) wipes the caller's gradient to zeros. Diagnosis: side-effect (a dP handed out earlier changed).
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
            raise ValueError(f"T={T} is longer than block_size={self.block_size}")
        self.cache = (idx, T)
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache
        dE = np.zeros_like(self.E)
        np.add.at(dE, idx, dout)
        self.dE = dE
        if self.freeze_positions:
            # positions are not trained: zero the gradient in place, no need for a new array each step
            if isinstance(self.dP, np.ndarray) and self.dP.shape == self.P.shape:
                self.dP[...] = 0.0
            else:
                self.dP = np.zeros_like(self.P)
        else:
            dP = np.zeros_like(self.P)
            dP[:T] = dout.sum(axis=0)
            self.dP = dP
        return None
