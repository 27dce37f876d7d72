# notebook: 04_learned_positions
# cell: positional-embedding
# kind: wrong
# contract: "forward(x) takes x of shape (B, T, C) and returns x + P[:T]"; input space: "P replaced between two forwards"; "a table replaced between two forwards (an optimizer step)" is a boundary class
# story: Slices P[:T] once and keeps the slab for as long as T does not change ("no need to slice every batch"). The slab is a view, so in-place steps P -= lr * dP and the gradient check's nudges still show through it; an optimizer that assigns a new array (self.P = self.P - lr * dP) or loading a table is ignored.
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
            raise ValueError(f"sequence of length {T} is longer than block_size={self.block_size}")
        if self.cache != T:                       # new length: slice the table again
            self._slab = self.P[:T]
        self.cache = T
        return x + self._slab

    def backward(self, dout):
        """Set self.dP (P's shape; rows :T = dout summed over the batch, rows T: zero) and return dx."""
        T = self.cache
        self.dP = np.zeros_like(self.P)
        self.dP[:T] = dout.sum(axis=0)
        return dout
