# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "While freeze_positions is true, self.dP is all zeros of P's shape ... The flag is read at every call."; input space: "freeze_positions switched on and off between calls"
# story: Reasons that a frozen forward produces no position gradient, so forward sets dP to zeros when the flag is on and backward fills dP only when it is off. Switching the flag between forward and backward is half-seen: turned on after forward, backward leaves the previous step's dP in place; the self-checks always switch it before forward.
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
        if self.freeze_positions:
            self.dP = np.zeros_like(self.P)      # frozen positions: no gradient this step
        self.cache = (idx, T)
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, idx, dout)
        if not self.freeze_positions:
            self.dP = np.zeros_like(self.P)
            self.dP[:T] = dout.sum(axis=0)
        return None
