"""Mutants and correct alternatives for lesson 5 (EmbeddingLayer with freeze_positions)."""

from . import Mutant

NB = "05_embedding_layer"
CELL = "embedding-layer"

DP_BLOCK = (
    "self.dP = np.zeros_like(self.P)\n        if not self.freeze_positions:\n            self.dP[:T] = dout.sum(axis=0)"
)

MUTANTS = [
    # the contract's diagnostics
    Mutant(
        "l5-scatter-overwrite",
        NB,
        CELL,
        "scatter-overwrite",
        replace=(("np.add.at(self.dE, idx, dout)", "self.dE[idx] += dout"),),
    ),
    Mutant(
        "l5-scatter-per-sequence",
        NB,
        CELL,
        "scatter-overwrite",
        replace=(
            ("np.add.at(self.dE, idx, dout)", "for b in range(idx.shape[0]):\n            self.dE[idx[b]] += dout[b]"),
        ),
    ),
    Mutant(
        "l5-positions-missing",
        NB,
        CELL,
        "positions-missing",
        replace=(("return self.E[idx] + self.P[:T]", "return self.E[idx]"),),
    ),
    Mutant(
        "l5-positions-by-token",
        NB,
        CELL,
        "positions-by-token",
        replace=(("return self.E[idx] + self.P[:T]", "return self.E[idx] + self.P[idx]"),),
    ),
    Mutant(
        "l5-dP-not-summed",
        NB,
        CELL,
        "dP-not-summed",
        replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = dout[0]"),),
    ),
    Mutant(
        "l5-dP-tail-resized",
        NB,
        CELL,
        "dP-tail-not-zero",
        replace=(
            (
                DP_BLOCK,
                "self.dP = (np.zeros_like(self.P) if self.freeze_positions\n"
                "                   else np.resize(dout.sum(axis=0), self.P.shape))",
            ),
        ),
    ),
    Mutant(
        "l5-dP-tail-stale",
        NB,
        CELL,
        "dP-tail-not-zero",
        replace=(
            ("self.dP = np.zeros_like(self.P)", "if self.dP is None:\n            self.dP = np.zeros_like(self.P)"),
        ),
    ),
    Mutant(
        "l5-freeze-ignored",
        NB,
        CELL,
        "freeze-ignored",
        replace=(
            (
                "if not self.freeze_positions:\n            self.dP[:T] = dout.sum(axis=0)",
                "self.dP[:T] = dout.sum(axis=0)",
            ),
        ),
    ),
    Mutant(
        "l5-freeze-after-the-fact",
        NB,
        CELL,
        "freeze-ignored",
        replace=(
            (
                DP_BLOCK,
                "self.dP = np.zeros_like(self.P)\n"
                "        if self.freeze_positions:\n"
                "            self.dP = np.zeros_like(self.P)\n"
                "        self.dP[:T] = dout.sum(axis=0)",
            ),
        ),
    ),
    Mutant(
        "l5-freeze-init-only",
        NB,
        CELL,
        "freeze-ignored",
        replace=(
            (
                "self.freeze_positions = freeze_positions",
                "self.freeze_positions = freeze_positions\n        self._frozen = bool(freeze_positions)",
            ),
            ("if not self.freeze_positions:", "if not self._frozen:"),
        ),
    ),
    Mutant(
        "l5-freeze-kills-dE",
        NB,
        CELL,
        "freeze-kills-dE",
        replace=(
            (
                "            self.dP[:T] = dout.sum(axis=0)",
                "            self.dP[:T] = dout.sum(axis=0)\n        else:\n            self.dE[:] = 0.0",
            ),
        ),
    ),
    Mutant(
        "l5-freeze-early-return",
        NB,
        CELL,
        "freeze-kills-dE",
        replace=(
            (
                "        idx, T = self.cache\n",
                "        if self.freeze_positions:\n            self.dP = np.zeros_like(self.P)\n            return None\n"
                "        idx, T = self.cache\n",
            ),
        ),
    ),
    Mutant(
        "l5-grad-accumulates-dE",
        NB,
        CELL,
        "grad-accumulates",
        replace=(
            ("self.dE = np.zeros_like(self.E)", "if self.dE is None:\n            self.dE = np.zeros_like(self.E)"),
        ),
    ),
    Mutant(
        "l5-grad-accumulates-dP",
        NB,
        CELL,
        "grad-accumulates",
        replace=(
            (
                DP_BLOCK,
                "if self.dP is None:\n            self.dP = np.zeros_like(self.P)\n"
                "        if not self.freeze_positions:\n            self.dP[:T] += dout.sum(axis=0)",
            ),
        ),
    ),
    # other mistakes
    Mutant(
        "l5-freeze-drops-positions",
        NB,
        CELL,
        "positions-missing",
        replace=(
            (
                "return self.E[idx] + self.P[:T]",
                "if self.freeze_positions:\n            return self.E[idx]\n        return self.E[idx] + self.P[:T]",
            ),
        ),
    ),
    Mutant(
        "l5-freeze-dP-none",
        NB,
        CELL,
        "wrong-shape",
        replace=(
            (
                DP_BLOCK,
                "self.dP = None\n        if not self.freeze_positions:\n"
                "            self.dP = np.zeros_like(self.P)\n            self.dP[:T] = dout.sum(axis=0)",
            ),
        ),
    ),
    # a wrong array that is a recognisable transform of the right one: the relationship is named
    Mutant(
        "l5-dP-mean",
        NB,
        CELL,
        "scaled",  # 1/B of the right dP, named as a mean over B
        replace=(("dout.sum(axis=0)", "dout.mean(axis=0)"),),
    ),
    Mutant("l5-dP-sum-time-axis", NB, CELL, "wrong-axis", replace=(("dout.sum(axis=0)", "dout.sum(axis=1)"),)),
    Mutant(
        "l5-dP-negated",
        NB,
        CELL,
        "scaled",  # -1 times: a descent step's sign taken into the gradient
        replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = -dout.sum(axis=0)"),),
    ),
    Mutant(
        "l5-dP-rows-reversed",
        NB,
        CELL,
        "wrong-rows",  # slots counted from the end of the sequence
        replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = dout.sum(axis=0)[::-1]"),),
    ),
    Mutant(
        "l5-dE-added-twice",
        NB,
        CELL,
        "scaled",  # the scatter line pasted twice: 2 times the right dE
        replace=(
            ("np.add.at(self.dE, idx, dout)", "np.add.at(self.dE, idx, dout)\n        np.add.at(self.dE, idx, dout)"),
        ),
    ),
    Mutant(
        "l5-dE-batch-mean",
        NB,
        CELL,
        "scaled",  # averaged over the batch: 1/B of the right dE
        replace=(("np.add.at(self.dE, idx, dout)", "np.add.at(self.dE, idx, dout / idx.shape[0])"),),
    ),
    Mutant(
        "l5-dE-first-sequence-ids",
        NB,
        CELL,
        "wrong-gradient",
        replace=(("np.add.at(self.dE, idx, dout)", "np.add.at(self.dE, idx[0], dout.sum(axis=0))"),),
    ),
    Mutant(
        "l5-forward-row-T",
        NB,
        CELL,
        "wrong-value",
        replace=(("return self.E[idx] + self.P[:T]", "return self.E[idx] + self.P[T]"),),
    ),
    Mutant(
        "l5-forward-off-by-one",
        NB,
        CELL,
        "shifted",  # P[1:T+1]: each slot gets the row of the next one
        replace=(("return self.E[idx] + self.P[:T]", "return self.E[idx] + self.P[1:T + 1]"),),
    ),
    Mutant(
        "l5-forward-whole-table",
        NB,
        CELL,
        "crashed",
        replace=(("return self.E[idx] + self.P[:T]", "return self.E[idx] + self.P"),),
    ),
    Mutant(
        "l5-forward-float32",
        NB,
        CELL,
        "wrong-dtype",
        replace=(("return self.E[idx] + self.P[:T]", "return (self.E[idx] + self.P[:T]).astype(np.float32)"),),
    ),
    Mutant("l5-no-length-check", NB, CELL, "no-error-raised", replace=(("if T > self.block_size:", "if False:"),)),
    Mutant(
        "l5-refuses-full-window",
        NB,
        CELL,
        "crashed",
        replace=(("if T > self.block_size:", "if T >= self.block_size:"),),
    ),
    Mutant(
        "l5-backward-returns-dout", NB, CELL, "wrong-value", replace=(("        return None", "        return dout"),)
    ),
]

_INIT = '''\
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
'''

ALTERNATIVES = [
    Mutant(
        "l5-layer-loops",
        NB,
        CELL,
        None,
        source=_INIT
        + """
    def forward(self, idx):
        B, T = len(idx), len(idx[0])
        if T > self.block_size:
            raise ValueError("T exceeds block_size")
        out = np.zeros((B, T, self.C))
        for b in range(B):
            for t in range(T):
                out[b, t] = self.E[idx[b][t]] + self.P[t]
        self.cache = [[int(i) for i in row] for row in idx]
        return out

    def backward(self, dout):
        ids = self.cache
        T = len(ids[0])
        self.dE = np.zeros((self.vocab_size, self.C))
        self.dP = np.zeros((self.block_size, self.C))
        for b, row in enumerate(ids):
            for t, i in enumerate(row):
                self.dE[i] += dout[b, t]
                if not self.freeze_positions:
                    self.dP[t] += dout[b, t]
""",
    ),
    Mutant(
        "l5-layer-bincount-einsum",
        NB,
        CELL,
        None,
        source=_INIT
        + """
    def forward(self, idx):
        idx = np.array(idx, dtype=np.int64)
        assert idx.shape[1] <= self.block_size, "sequence longer than block_size"
        self.cache = idx
        return np.take(self.E, idx, axis=0) + self.P[np.arange(idx.shape[1])][None]

    def backward(self, dout):
        idx = self.cache
        T = idx.shape[1]
        flat, g = idx.ravel(), dout.reshape(-1, self.C)
        self.dE = np.column_stack([np.bincount(flat, weights=g[:, c], minlength=self.vocab_size)
                                   for c in range(self.C)])
        rows = np.einsum("btc->tc", dout) * (0.0 if self.freeze_positions else 1.0)
        self.dP = np.concatenate([rows, np.zeros((self.block_size - T, self.C))])
        return None
""",
    ),
    Mutant(
        "l5-layer-sort-reduceat",
        NB,
        CELL,
        None,
        source=_INIT
        + """
    def forward(self, idx):
        idx = np.asarray(idx)
        T = idx.shape[-1]
        if T > self.block_size:
            raise ValueError(f"{T} > {self.block_size}")
        self._idx = idx
        onehot = np.eye(self.vocab_size)[idx]            # (B, T, V)
        return onehot @ self.E + self.P[:T]

    def backward(self, dout):
        flat = self._idx.reshape(-1)
        g = dout.reshape(-1, self.C)
        order = np.argsort(flat, kind="stable")
        ids, starts = np.unique(flat[order], return_index=True)
        dE = np.zeros_like(self.E)
        dE[ids] = np.add.reduceat(g[order], starts, axis=0)
        self.dE = dE
        T = self._idx.shape[-1]
        dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            dP[:T] = np.tensordot(np.ones(dout.shape[0]), dout, axes=(0, 0))
        self.dP = dP
""",
    ),
]
