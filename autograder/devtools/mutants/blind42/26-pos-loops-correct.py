# notebook: 04_learned_positions
# cell: positional-embedding
# kind: correct
# contract: style: explicit loops over the batch for dP (accumulated in a fresh zero table each call), the length checked against the table actually held (self.P.shape[0]), the output built with np.add into a new array; the slab read from self.P at every forward
# story: A student who distrusts broadcasting and writes the sum over the batch as a loop, exactly as the formula dP[t] = dout[0, t] + ... + dout[B-1, t].
class PositionalEmbedding:
    """A learned table of position vectors: slot t of every sequence receives row t of P."""

    def __init__(self, block_size, C, seed=42):
        self.block_size = block_size
        self.C = C
        self.P = np.random.default_rng(seed).standard_normal((block_size, C)) * 0.02
        self.cache = None
        self.dP = None

    def forward(self, x):
        """x of shape (B, T, C) -> x + P[:T]; raise ValueError when T > block_size; cache what backward needs."""
        n_slots = np.shape(x)[1]
        rows = self.P.shape[0]
        if n_slots > rows:
            raise ValueError(f"T = {n_slots} slots, but the table has only block_size = {rows} rows")
        self.cache = {"T": n_slots, "B": np.shape(x)[0]}
        return np.add(x, self.P[np.arange(n_slots)])       # a fresh array; x is left alone

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        T = self.cache["T"]
        grad = np.zeros(self.P.shape)
        for seq in dout:                                   # every sequence adds its (T, C) slice
            grad[:T] += seq
        self.dP = grad
        return dout
