# notebook: 04_learned_positions
# cell: positional-embedding
# kind: wrong
# contract: "A T longer than block_size raises ValueError" (T is axis 1 of x, shape (B, T, C)); input space: "B, T and C from 1, T up to block_size"
# story: Checks the length with len(x), thinking of x as "the sequence". That is B. The self-checks still pass: with T=6 > block_size=4 the addition fails to broadcast (a ValueError anyway), and with block_size=1 the batch of 2 happens to be longer than 1. A batch larger than block_size is refused, and a single sequence (B=1) longer than block_size=1 slips through.
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
        if len(x) > self.block_size:
            raise ValueError(f"sequence too long for block_size={self.block_size}")
        T = x.shape[1]
        self.cache = T
        return x + self.P[:T]

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        dP = np.zeros_like(self.P)
        dP[: self.cache] = dout.sum(axis=0)
        self.dP = dP
        return dout
