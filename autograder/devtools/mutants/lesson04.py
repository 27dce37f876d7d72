"""Mutants and correct alternatives for lesson 4 (PositionalEmbedding)."""

from . import Mutant

NB = "04_learned_positions"
CELL = "positional-embedding"

MUTANTS = [
    # the contract's diagnostics
    Mutant("l4-positions-missing", NB, CELL, "positions-missing", replace=(("return x + self.P[:T]", "return x"),)),
    Mutant(
        "l4-dP-not-summed",
        NB,
        CELL,
        "dP-not-summed",
        replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = dout[0]"),),
    ),
    Mutant(
        "l4-dP-last-row-wins",
        NB,
        CELL,
        "dP-not-summed",
        replace=(
            ("self.dP[:T] = dout.sum(axis=0)", "for b in range(dout.shape[0]):\n            self.dP[:T] = dout[b]"),
        ),
    ),
    Mutant(
        "l4-dP-tail-resized",
        NB,
        CELL,
        "dP-tail-not-zero",
        replace=(
            (
                "self.dP = np.zeros_like(self.P)\n        self.dP[:T] = dout.sum(axis=0)",
                "self.dP = np.resize(dout.sum(axis=0), self.P.shape)",
            ),
        ),
    ),
    Mutant(
        "l4-dP-tail-stale",
        NB,
        CELL,
        "dP-tail-not-zero",
        replace=(
            ("self.dP = np.zeros_like(self.P)", "if self.dP is None:\n            self.dP = np.zeros_like(self.P)"),
        ),
    ),
    Mutant(
        "l4-dP-broadcast-everywhere",
        NB,
        CELL,
        "dP-tail-not-zero",
        replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:] = dout.sum(axis=(0, 1))"),),
    ),
    Mutant(
        "l4-grad-accumulates",
        NB,
        CELL,
        "grad-accumulates",
        replace=(
            (
                "self.dP = np.zeros_like(self.P)\n        self.dP[:T] = dout.sum(axis=0)",
                "if self.dP is None:\n            self.dP = np.zeros_like(self.P)\n"
                "        self.dP[:T] += dout.sum(axis=0)",
            ),
        ),
    ),
    # other mistakes
    Mutant("l4-dP-mean", NB, CELL, "scaled", replace=(("dout.sum(axis=0)", "dout.mean(axis=0)"),)),
    Mutant("l4-dP-sum-time-axis", NB, CELL, "wrong-axis", replace=(("dout.sum(axis=0)", "dout.sum(axis=1)"),)),
    Mutant(
        "l4-dP-not-padded",
        NB,
        CELL,
        "wrong-shape",
        replace=(
            ("self.dP = np.zeros_like(self.P)\n        self.dP[:T] = dout.sum(axis=0)", "self.dP = dout.sum(axis=0)"),
        ),
    ),
    Mutant("l4-dP-scaled", NB, CELL, "scaled", replace=(("dout.sum(axis=0)", "2 * dout.sum(axis=0)"),)),
    Mutant("l4-forward-row-T", NB, CELL, "wrong-value", replace=(("return x + self.P[:T]", "return x + self.P[T]"),)),
    Mutant(
        "l4-forward-off-by-one", NB, CELL, "shifted", replace=(("return x + self.P[:T]", "return x + self.P[1:T + 1]"),)
    ),
    Mutant(
        "l4-forward-whole-table",
        NB,
        CELL,
        "crashed",
        replace=(("return x + self.P[:T]", "return x + self.P[:self.block_size]"),),
    ),
    Mutant(
        "l4-forward-in-place",
        NB,
        CELL,
        "side-effect",
        replace=(("return x + self.P[:T]", "x += self.P[:T]\n        return x"),),
    ),
    Mutant(
        "l4-forward-float32",
        NB,
        CELL,
        "wrong-dtype",
        replace=(("return x + self.P[:T]", "return (x + self.P[:T]).astype(np.float32)"),),
    ),
    Mutant(
        "l4-refuses-full-window",
        NB,
        CELL,
        "crashed",
        replace=(("if T > self.block_size:", "if T >= self.block_size:"),),
    ),
    Mutant("l4-no-length-check", NB, CELL, "no-error-raised", replace=(("if T > self.block_size:", "if False:"),)),
    Mutant(
        "l4-too-long-index-error",
        NB,
        CELL,
        "wrong-error",
        replace=(('raise ValueError(f"sequence length', 'raise IndexError(f"sequence length'),),
    ),
    Mutant("l4-backward-returns-none", NB, CELL, "wrong-value", replace=(("return dout", "return None"),)),
    Mutant("l4-dx-negated", NB, CELL, "scaled", replace=(("return dout", "return -dout"),)),
    Mutant("l4-backward-returns-dP", NB, CELL, "wrong-shape", replace=(("return dout", "return self.dP"),)),
    Mutant(
        "l4-backward-returns-batch-sum", NB, CELL, "wrong-shape", replace=(("return dout", "return dout.sum(axis=0)"),)
    ),
]

ALTERNATIVES = [
    Mutant(
        "l4-positional-loops",
        NB,
        CELL,
        None,
        source='''\
class PositionalEmbedding:
    """A learned table of position vectors: slot t of every sequence receives row t of P."""

    def __init__(self, block_size, C, seed=42):
        self.block_size = block_size
        self.C = C
        self.P = np.random.default_rng(seed).standard_normal((block_size, C)) * 0.02
        self.cache = None
        self.dP = None

    def forward(self, x):
        B, T, C = len(x), len(x[0]), len(x[0][0])
        assert T <= self.block_size, "sequence longer than the context window"
        out = np.array(x, dtype=float)
        for b in range(B):
            for t in range(T):
                out[b, t] = out[b, t] + self.P[t]
        self.cache = (B, T)
        return out

    def backward(self, dout):
        B, T = self.cache
        dP = np.zeros((self.block_size, self.C))
        for t in range(T):
            for b in range(B):
                dP[t] += dout[b][t]
        self.dP = dP
        return np.array(dout, dtype=float)
''',
    ),
    Mutant(
        "l4-positional-einsum-pad",
        NB,
        CELL,
        None,
        source='''\
class PositionalEmbedding:
    """A learned table of position vectors: slot t of every sequence receives row t of P."""

    def __init__(self, block_size, C, seed=42):
        self.block_size = block_size
        self.C = C
        self.P = np.random.default_rng(seed).standard_normal((block_size, C)) * 0.02
        self.cache = None
        self.dP = None

    def forward(self, x):
        T = np.shape(x)[1]
        if not T <= self.block_size:
            raise ValueError("too long: T=%d, block_size=%d" % (T, self.block_size))
        self.cache = np.shape(x)
        return np.add(x, self.P[None, :T, :])

    def backward(self, dout):
        T = self.cache[1]
        rows = np.einsum("btc->tc", dout)
        self.dP = np.pad(rows, ((0, self.block_size - T), (0, 0)))
        return dout.copy()
''',
    ),
]
