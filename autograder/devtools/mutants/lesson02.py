"""Mutants and correct alternatives for lesson 2 (Embedding, numerical_gradient, rel_error)."""

from . import Mutant

NB = "02_token_embeddings"

MUTANTS = [
    Mutant(
        "scatter-overwrite",
        NB,
        "embedding",
        "scatter-overwrite",
        replace=(("np.add.at(self.dE, idx, dout)", "self.dE[idx] += dout"),),
    ),
    Mutant(
        "grad-accumulates",
        NB,
        "embedding",
        "grad-accumulates",
        replace=(
            ("self.dE = np.zeros_like(self.E)", "if self.dE is None:\n            self.dE = np.zeros_like(self.E)"),
        ),
    ),
    Mutant(
        "no-range-check",
        NB,
        "embedding",
        "no-error-raised",
        replace=(
            (
                "if idx.size and (idx.min() < 0 or idx.max() >= self.vocab_size):",
                "if idx.size and idx.max() >= self.vocab_size:",
            ),
        ),
    ),
    Mutant(
        "forward-transposed", NB, "embedding", "wrong-shape", replace=(("return self.E[idx]", "return self.E[idx].T"),)
    ),
    Mutant(
        "backward-scaled",
        NB,
        "embedding",
        "scaled",
        replace=(("np.add.at(self.dE, idx, dout)", "np.add.at(self.dE, idx, 0.5 * dout)"),),
    ),
    Mutant(
        "backward-mean-over-batch",
        NB,
        "embedding",
        "scaled",
        replace=(("np.add.at(self.dE, idx, dout)", "np.add.at(self.dE, idx, dout / len(idx))"),),
    ),
    Mutant(
        "one-sided-difference",
        NB,
        "numerical-gradient",
        "one-sided-difference",
        replace=(
            ("        x[i] = old - eps\n        minus = f()\n", "        x[i] = old\n        minus = f()\n"),
            ("(plus - minus) / (2 * eps)", "(plus - minus) / eps"),
        ),
    ),
    Mutant(
        "numgrad-over-eps",
        NB,
        "numerical-gradient",
        "scaled",
        replace=(("(plus - minus) / (2 * eps)", "(plus - minus) / eps"),),
    ),
    Mutant(
        "numgrad-one-sided-over-2eps",
        NB,
        "numerical-gradient",
        "scaled",
        replace=(("        x[i] = old - eps\n        minus = f()\n", "        x[i] = old\n        minus = f()\n"),),
    ),
    Mutant(
        "numgrad-loops-rows",
        NB,
        "numerical-gradient",
        "wrong-value",
        replace=(("for i in np.ndindex(x.shape):", "for i in range(len(x)):"),),
    ),
    Mutant(
        "no-restore",
        NB,
        "numerical-gradient",
        "no-restore",
        replace=(("        x[i] = old\n        grad[i]", "        grad[i]"),),
    ),
    Mutant(
        "restore-by-increments",
        NB,
        "numerical-gradient",
        "no-restore",
        replace=(
            ("x[i] = old + eps", "x[i] += eps"),
            ("x[i] = old - eps", "x[i] -= 2 * eps"),
            ("        x[i] = old\n        grad[i]", "        x[i] += eps\n        grad[i]"),
        ),
    ),
    Mutant(
        "rel-error-absolute",
        NB,
        "rel-error",
        "wrong-value",
        replace=(("np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))", "np.abs(a - b)"),),
    ),
    Mutant(
        "rel-error-no-floor",
        NB,
        "rel-error",
        "wrong-value",
        replace=(("np.maximum(1e-12, np.abs(a) + np.abs(b))", "(np.abs(a) + np.abs(b))"),),
    ),
]

ALTERNATIVES = [
    Mutant(
        "embedding-loops-bincount",
        NB,
        "embedding",
        None,
        source='''\
class Embedding:
    """A learned lookup table: id -> row of E."""

    def __init__(self, vocab_size, C, seed=42):
        self.vocab_size = vocab_size
        self.C = C
        self.E = np.random.default_rng(seed).standard_normal((vocab_size, C)) * 0.02
        self.cache = None
        self.dE = None

    def forward(self, idx):
        ids = np.array(idx)
        if ids.dtype.kind not in "iu":
            raise ValueError("ids must be integers")
        flat = ids.reshape(-1)
        for i in flat:
            if not 0 <= i < self.vocab_size:
                raise ValueError(f"id {i} out of range")
        out = np.empty(flat.shape + (self.C,))
        for k, i in enumerate(flat):
            out[k] = self.E[i]
        self.cache = ids
        return out.reshape(ids.shape + (self.C,))

    def backward(self, dout):
        flat = self.cache.reshape(-1)
        g = np.asarray(dout, dtype=float).reshape(-1, self.C)
        self.dE = np.stack([np.bincount(flat, weights=g[:, c], minlength=self.vocab_size) for c in range(self.C)], axis=1)
''',
    ),
    Mutant(
        "embedding-sorted-onehot",
        NB,
        "embedding",
        None,
        source='''\
class Embedding:
    """A learned lookup table: id -> row of E."""

    def __init__(self, vocab_size, C, seed=42):
        self.vocab_size = vocab_size
        self.C = C
        self.E = np.random.default_rng(seed).standard_normal((vocab_size, C)) * 0.02
        self.cache = None
        self.dE = None

    def forward(self, idx):
        idx = np.asarray(idx)
        if idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer):
            raise TypeError("integer ids please")
        if np.any(idx < 0) or np.any(idx >= self.vocab_size):
            raise IndexError("id out of range")
        self.cache = idx
        onehot = np.eye(self.vocab_size)[idx]          # (..., V)
        return onehot @ self.E

    def backward(self, dout):
        onehot = np.eye(self.vocab_size)[self.cache.reshape(-1)]
        self.dE = onehot.T @ np.reshape(dout, (-1, self.C))
        return None
''',
    ),
    Mutant(
        "numgrad-flat-index",
        NB,
        "numerical-gradient",
        None,
        # one flat counter over the entries, each turned into x's own index: writing through x.reshape(-1) instead
        # would reach x only when x is contiguous (for a transpose reshape copies, and the gradient is all zeros)
        source="""\
def numerical_gradient(f, x, eps=1e-6):
    grad = np.empty(x.size)
    for k in range(x.size):
        i = np.unravel_index(k, x.shape)
        keep = x[i]
        x[i] = keep + eps
        fp = float(f())
        x[i] = keep - eps
        fm = float(f())
        x[i] = keep
        grad[k] = (fp - fm) / (2.0 * eps)
    return grad.reshape(x.shape)
""",
    ),
    Mutant(
        "numgrad-nditer",
        NB,
        "numerical-gradient",
        None,
        source="""\
def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros_like(x, dtype=np.float64)
    it = np.nditer(x, flags=["multi_index"], op_flags=["readwrite"])
    while not it.finished:
        i = it.multi_index
        keep = x[i]
        x[i] = keep + eps
        up = float(f())
        x[i] = keep - eps
        down = float(f())
        x[i] = keep
        grad[i] = (up - down) / (2 * eps)
        it.iternext()
    return grad
""",
    ),
    Mutant(
        "rel-error-loop",
        NB,
        "rel-error",
        None,
        source="""\
def rel_error(a, b):
    worst = 0.0
    for u, v in zip(np.ravel(a), np.ravel(b)):
        worst = max(worst, abs(u - v) / max(1e-12, abs(u) + abs(v)))
    return float(worst)
""",
    ),
]
