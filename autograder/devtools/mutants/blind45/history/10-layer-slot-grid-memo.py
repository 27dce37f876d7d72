# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "forward(idx) takes (B, T) integer ids"; "self.dP has rows :T equal to dout.sum(axis=0) and the rest zero"; call sequences: "forward with a batch of another shape"
# story: The student writes dP as a scatter-add too, mirroring dE: np.add.at(dP, slot, dout), with slot the (B, T) grid of slot numbers. Thinking the grid "only depends on T", they memoise it and rebuild it only when T changes, forgetting that its shape includes B. Every self-check passes: the layer that sees several batches (the dP check) changes T on every call, and the other checks use one shape per object. After forward with (B1, T) ids, a forward with (B2, T) ids and a backward scatter with the stale (B1, T) grid: np.add.at raises ValueError when dout cannot broadcast to it (B2 > 1), and for B2 = 1 the one sequence's dout is broadcast to all B1 rows, so dP[:T] is B1 times the right one. Diagnosis: crashed (ValueError from np.add.at in backward); on the B2 = 1 case the grader may name it scaled (dP is B1 times the right dP).
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
            raise ValueError(f"T={T} exceeds block_size={self.block_size}")
        # slot number of every place [b, t]: P is indexed by slot the way E is indexed by id.
        # it only depends on the sequence length, so build it once per T
        if getattr(self, "_slots", None) is None or self._slots.shape[1] != T:
            self._slots = np.broadcast_to(np.arange(T), (B, T))
        self.cache = (idx, self._slots)
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, slots = self.cache
        dE = np.zeros_like(self.E)
        np.add.at(dE, idx, dout)  # rows of E, by token id
        dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            np.add.at(dP, slots, dout)  # rows of P, by slot
        self.dE, self.dP = dE, dP
        return None
