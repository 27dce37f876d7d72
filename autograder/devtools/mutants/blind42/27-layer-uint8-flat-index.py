# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "forward(idx) takes (B, T) integer ids"; "self.dE is the scatter-add over idx" (input space: "as Embedding", whose ids are "integer ids of any shape")
# story: A fast scatter with one np.bincount over flat indices id * C + c. It computes the flat index in the ids' own dtype; a byte-level tokenizer (np.frombuffer(text.encode(), np.uint8)) hands it uint8 ids, id * C wraps around past 255, and the gradient lands in the wrong rows. Every id the notebook uses is int64.
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
        V, C = self.E.shape
        flat = (idx[..., None] * C + np.arange(C)).ravel()          # entry (id, c) of E as one number
        self.dE = np.bincount(flat, weights=dout.ravel(), minlength=V * C).reshape(V, C)
        self.dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            self.dP[:T] = dout.sum(axis=0)
        return None
