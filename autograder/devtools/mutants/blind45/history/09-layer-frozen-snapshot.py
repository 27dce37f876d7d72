# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "forward does not depend on it [freeze_positions]."; "Between any two calls the caller may update a table in place (E -= lr * dE) or replace it (obj.E = new): every call reads the table as it is then."
# story: The student reads "freezing positions" as "the layer uses the position table as it was when it was frozen": the first forward with the flag on takes a copy of P and later frozen forwards add rows of that copy; unfreezing drops the copy. Every self-check passes, since no check changes P while the flag is on (and a frozen dP is zero, so P -= lr * dP leaves it alone). With the flag on, replacing P (layer.P = new), or a step with a dP from before the flag was switched on, is ignored by forward, which keeps adding the old rows. Diagnosis: stale-state (the output equals the right output for P as it was at the first frozen forward).
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
            raise ValueError(f"sequence of length {T} does not fit block_size={self.block_size}")
        if self.freeze_positions:
            # frozen positions stay fixed: keep the table as it was when the layer was frozen
            if getattr(self, "_P_frozen", None) is None:
                self._P_frozen = self.P.copy()
            P = self._P_frozen
        else:
            self._P_frozen = None
            P = self.P
        self.cache = (idx, T)
        return self.E[idx] + P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache
        dE = np.zeros_like(self.E)
        np.add.at(dE, idx, dout)
        dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            dP[:T] = dout.sum(axis=0)
        self.dE, self.dP = dE, dP
        return None
