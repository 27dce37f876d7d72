# notebook: 02_token_embeddings
# cell: embedding
# kind: wrong
# contract: "ids that are not integers raise TypeError, IndexError or ValueError"; input space, bad id: "an id of a float type (whole-valued too)" with values `float 2.0` in float64, float32 and float16, as a Python float, a NumPy scalar or in an array
# story: The student wants to be lenient: ids that arrive as floats after some arithmetic (2.0) are "obviously" id 2, so only fractional floats are refused and whole-valued floats are cast to int64. The self-check only tries [0.0, 1.5], which still raises TypeError, and every integer input is handled right (validation, gather, np.add.at backward). forward(2.0), forward(np.float32(2.0)) or forward(np.array([2.0])) returns a row instead of raising. Diagnosis: no-error-raised.
import numpy as np


class Embedding:
    """A learned lookup table: id -> row of E."""

    def __init__(self, vocab_size, C, seed=42):
        self.vocab_size = vocab_size
        self.C = C
        self.E = np.random.default_rng(seed).standard_normal((vocab_size, C)) * 0.02
        self.cache = None
        self.dE = None

    def forward(self, idx):
        """Gather the rows of E for integer ids of any shape; cache what backward needs."""
        idx = np.asarray(idx)
        if idx.dtype.kind == "f":
            # a float that holds a whole number is still a valid id (2.0 -> 2); 1.5 is not
            if not np.all(np.isfinite(idx)) or np.any(idx != np.floor(idx)):
                raise TypeError("token ids must be whole numbers")
            idx = idx.astype(np.int64)
        elif idx.dtype.kind not in "iu":
            raise TypeError(f"token ids must be integers, got dtype {idx.dtype}")
        if np.any(idx < 0) or np.any(idx >= self.vocab_size):
            raise IndexError(f"token ids must lie in [0, {self.vocab_size})")
        self.cache = idx
        return self.E[idx]

    def backward(self, dout):
        """Scatter-add dout into self.dE (shape of E), every occurrence of an id counted."""
        idx = self.cache
        dE = np.zeros_like(self.E)
        np.add.at(dE, idx, dout)
        self.dE = dE
        return None
