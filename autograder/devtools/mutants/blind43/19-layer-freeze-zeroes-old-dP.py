# notebook: 05_embedding_layer
# cell: embedding-layer
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it." (while frozen, "`self.dP` is all zeros of P's shape")
# story: The student reads "freezing zeroes dP" literally: while frozen, backward zeroes the dP it already has (dP.fill(0)) and only allocates one when there is none yet. The values are always right, but a frozen backward wipes, in place, the dP an earlier unfrozen backward handed out (e.g. one still held by an optimizer or a log).
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
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError(f"sequence length {T} is longer than block_size {self.block_size}")
        self.cache = {"idx": idx, "T": T}
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        """Set self.dE (scatter-add over the ids) and self.dP (batch sum in rows :T, zeros while frozen); return None."""
        idx, T = self.cache["idx"], self.cache["T"]
        dE = np.zeros_like(self.E)
        np.add.at(dE, idx, dout)
        self.dE = dE
        if self.freeze_positions:
            if self.dP is None or self.dP.shape != self.P.shape:
                self.dP = np.zeros_like(self.P)
            else:
                self.dP.fill(0.0)                  # frozen: zero the position gradient
        else:
            dP = np.zeros_like(self.P)
            dP[:T] = dout.sum(axis=0)
            self.dP = dP
