# notebook: 04_learned_positions
# cell: positional-embedding
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it."
# story: Performance-minded, the student preallocates the output once and fills it with np.add(..., out=...) on every forward of the same shape, "like a training loop should"; every visible check uses a fresh object or consumes the output at once, but a caller that keeps out1 and calls forward again finds out1 overwritten with the second result.
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
        B, T, C = x.shape
        if T > self.block_size:
            raise ValueError(f"sequence length {T} is longer than block_size {self.block_size}")
        if getattr(self, "_out", None) is None or self._out.shape != x.shape:
            self._out = np.empty(x.shape)          # allocate once per shape, reuse afterwards
        np.add(x, self.P[:T], out=self._out)
        self.cache = T
        return self._out

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        T = self.cache
        dP = np.zeros_like(self.P)
        dP[:T] = dout.sum(axis=0)
        self.dP = dP
        return dout
