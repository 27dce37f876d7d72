# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "`EmbeddingLayer(vocab_size, block_size, C, seed=42, freeze_positions=False)` uses one generator, `rng = np.random.default_rng(seed)`, and draws `E` (vocab_size, C) from it first, then `P` (block_size, C), both scaled by 0.02."
# story: The student assembles the layer from their lesson-2 Embedding and lesson-4 PositionalEmbedding, pasting each table's initialisation line, so each table gets its own fresh default_rng(seed) and P starts with the same numbers as E's first rows. Every visible check compares the layer with itself or with a twin built by the same code, so nothing notices.
class EmbeddingLayer:
    """Token table E plus learned position table P: the input stage of the model."""

    def __init__(self, vocab_size, block_size, C, seed=42, freeze_positions=False):
        self.vocab_size = vocab_size
        self.block_size = block_size
        self.C = C
        # same initialisation as Embedding (lesson 2) and PositionalEmbedding (lesson 4)
        self.E = np.random.default_rng(seed).standard_normal((vocab_size, C)) * 0.02
        self.P = np.random.default_rng(seed).standard_normal((block_size, C)) * 0.02
        self.freeze_positions = freeze_positions
        self.cache = None
        self.dE = self.dP = None

    def forward(self, idx):
        """ids of shape (B, T) -> E[idx] + P[:T], shape (B, T, C); raise ValueError when T > block_size."""
        idx = np.asarray(idx)
        B, T = idx.shape
        if T > self.block_size:
            raise ValueError(f"sequence length {T} is longer than block_size {self.block_size}")
        self.cache = (idx, T)
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, idx, dout)
        self.dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            self.dP[:T] = dout.sum(axis=0)
        return None
