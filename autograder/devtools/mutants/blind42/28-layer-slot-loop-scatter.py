# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "backward(dout) ... self.dE is the scatter-add over idx" (every occurrence added, np.add.at); input space: "ids that repeat"
# story: Knows that dE[idx] += dout drops repeats, so loops over the slots and vectorises over the batch, one column of ids at a time. Repeats inside a sequence are now counted, but an id that sits in the same slot of two sequences is still counted once. The self-check's batch never repeats an id within one slot (the demo's gradient check does print FAIL for dE; the graded self-checks pass).
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
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError(f"T={T} > block_size={self.block_size}")
        self.cache = idx
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx = self.cache
        T = idx.shape[1]
        self.dE = np.zeros_like(self.E)
        for t in range(T):                       # one slot at a time, so repeats along the sequence add up
            self.dE[idx[:, t]] += dout[:, t]
        self.dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            self.dP[:T] = dout.sum(axis=0)
        return None
