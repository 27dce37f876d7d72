# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: correct
# contract: style: dE by np.bincount per column on int64 ids with minlength (no np.add.at), dP by einsum over the batch axis, the freeze flag read once at the top of backward, T checked against the table held
# story: A student who remembered np.bincount(weights=...) as the fast histogram-with-weights and uses it as the scatter-add, one column of E at a time.
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
        ids = np.asarray(idx)
        n_seq, n_slot = ids.shape
        if n_slot > self.P.shape[0]:
            raise ValueError(f"{n_slot} slots do not fit a position table of {self.P.shape[0]} rows")
        self.cache = (ids.astype(np.int64).ravel(), n_slot)
        return self.E[ids] + self.P[None, :n_slot, :]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        frozen = bool(self.freeze_positions)
        flat_ids, n_slot = self.cache
        V, C = self.E.shape
        g = np.reshape(dout, (flat_ids.size, C))
        self.dE = np.stack([np.bincount(flat_ids, weights=g[:, c], minlength=V) for c in range(C)], axis=1)
        self.dE = self.dE.reshape(V, C).astype(np.float64)
        dP = np.zeros(self.P.shape)
        if not frozen:
            dP[:n_slot] = np.einsum("btc->tc", dout)
        self.dP = dP
        return None
