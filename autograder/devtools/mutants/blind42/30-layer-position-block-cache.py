# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "forward(idx) takes (B, T) integer ids and returns E[idx] + P[:T]"; input space: "as Embedding and PositionalEmbedding together" (which includes "P replaced between two forwards"); boundary class "a table replaced between two forwards (an optimizer step)"
# story: Keeps the broadcast position block for each batch shape, a read-only view of P made with np.broadcast_to, so a training loop over batches of one shape never rebuilds it. In-place updates show through the view (the gradient check passes); a P that is replaced by a new array (a loaded or sinusoidal table, an optimizer that rebinds) is never seen.
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
        blocks = self.__dict__.setdefault("_pos_blocks", {})
        if (B, T) not in blocks:
            blocks[(B, T)] = np.broadcast_to(self.P[:T], (B, T, self.C))
        self.cache = (idx, T)
        return self.E[idx] + blocks[(B, T)]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, idx, dout)
        self.dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            self.dP[:T] = dout.sum(axis=0)
        return None
