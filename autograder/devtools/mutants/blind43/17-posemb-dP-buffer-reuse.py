# notebook: 04_learned_positions
# cell: positional-embedding
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it." (with "backward(dout) sets self.dP ... from zeros")
# story: The student mimics optimizer.zero_grad(): dP is allocated once and zeroed in place on every backward, which satisfies "starts from zeros" and the fresh-start self-checks (they copy dP); but a dP the caller kept from an earlier step (for momentum, logging, or a second backward's comparison) is silently overwritten by the next backward.
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
        T = x.shape[1]
        if T > self.block_size:
            raise ValueError(f"sequence length {T} is longer than block_size {self.block_size}")
        self.cache = T
        return x + self.P[:T]

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        T = self.cache
        if self.dP is None or self.dP.shape != self.P.shape:
            self.dP = np.zeros_like(self.P)
        else:
            self.dP.fill(0.0)                      # zero_grad: reuse the buffer
        self.dP[:T] = dout.sum(axis=0)
        return dout
