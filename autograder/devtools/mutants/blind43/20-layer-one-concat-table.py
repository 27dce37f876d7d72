# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: correct
# contract: unusual style: one gather and one scatter on a single stacked table [E; P] (positions are rows V..V+block_size-1), rebuilt from self.E and self.P at every call; dE and dP are the two halves of one fresh gradient buffer per backward, dP replaced by fresh zeros while frozen.
# story: The student noticed that both lookups are "read a row of a table" and merged them into one table and one np.add.at, as some GPT implementations merge parameter buffers.
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
        idx = np.asarray(idx)
        B, T = idx.shape
        if T > self.P.shape[0]:
            raise ValueError(f"T = {T} is longer than block_size = {self.P.shape[0]}")
        V = self.E.shape[0]
        table = np.concatenate([self.E, self.P])              # rows 0..V-1 tokens, V.. positions
        slots = V + np.broadcast_to(np.arange(T), (B, T))      # the row of slot t is V + t
        self.cache = (idx, slots)
        return table[idx] + table[slots]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, slots = self.cache
        V = self.E.shape[0]
        dtable = np.zeros((V + self.P.shape[0], self.E.shape[1]))
        np.add.at(dtable, idx, dout)
        np.add.at(dtable, slots, dout)
        self.dE = dtable[:V]
        self.dP = np.zeros_like(self.P) if self.freeze_positions else dtable[V:]
        return None
