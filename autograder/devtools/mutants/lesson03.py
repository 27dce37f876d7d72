"""Mutants and correct alternatives for lesson 3 (sinusoidal_table, shift_matrix)."""

from . import Mutant

NB = "03_sinusoidal"

_TABLE_ASSIGN = (
    "    table[:, 0::2] = np.sin(angle)\n"
    "    table[:, 1::2] = np.cos(angle[:, : C // 2])            # an odd C has one pair without a cos column\n"
)
_VALIDATION = (
    '    for name, value in (("T", T), ("C", C)):\n'
    "        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:\n"
    '            raise ValueError(f"{name} must be a positive integer, got {value!r}")\n'
)

MUTANTS = [
    # --- the contract's catalogue ---
    Mutant(
        "sin-cos-swap",
        NB,
        "sinusoidal-table",
        "sin-cos-swap",
        replace=(
            (_TABLE_ASSIGN, "    table[:, 0::2] = np.cos(angle)\n    table[:, 1::2] = np.sin(angle[:, : C // 2])\n"),
        ),
    ),
    Mutant(
        "freq-sign",
        NB,
        "sinusoidal-table",
        "freq-sign",
        replace=(("angle = pos / base ** (two_i / C)", "angle = pos / base ** (-two_i / C)"),),
    ),
    Mutant(
        "freq-sign-exp-log",
        NB,
        "sinusoidal-table",
        "freq-sign",
        replace=(("angle = pos / base ** (two_i / C)", "angle = pos * np.exp(np.log(base) * two_i / C)"),),
    ),
    Mutant(
        "freq-per-column",
        NB,
        "sinusoidal-table",
        "freq-per-column",
        source="""\
def sinusoidal_table(T, C, base=10000.0):
    for value in (T, C):
        if not isinstance(value, int) or value < 1:
            raise ValueError("T and C must be positive integers")
    pos = np.arange(T, dtype=np.float64)[:, None]
    j = np.arange(C, dtype=np.float64)
    angle = pos / base ** (j / C)          # every column its own frequency
    table = np.empty((T, C))
    table[:, 0::2] = np.sin(angle[:, 0::2])
    table[:, 1::2] = np.cos(angle[:, 1::2])
    return table
""",
    ),
    Mutant(
        "halves-not-interleaved",
        NB,
        "sinusoidal-table",
        "halves-not-interleaved",
        source="""\
def sinusoidal_table(T, C, base=10000.0):
    for value in (T, C):
        if not isinstance(value, int) or value < 1:
            raise ValueError("T and C must be positive integers")
    pos = np.arange(T, dtype=np.float64)[:, None]
    two_i = np.arange(0, C, 2, dtype=np.float64)
    angle = pos / base ** (two_i / C)
    return np.concatenate([np.sin(angle), np.cos(angle[:, : C // 2])], axis=1)
""",
    ),
    Mutant(
        "swap-and-freq-sign",
        NB,
        "sinusoidal-table",
        "sin-cos-swap",
        replace=(
            (_TABLE_ASSIGN, "    table[:, 0::2] = np.cos(angle)\n    table[:, 1::2] = np.sin(angle[:, : C // 2])\n"),
            ("angle = pos / base ** (two_i / C)", "angle = pos * base ** (two_i / C)"),
        ),
    ),
    # --- other table mistakes (positions-from-one and table-transposed are relationships: shifted, transposed) ---
    Mutant(
        "base-ignored",
        NB,
        "sinusoidal-table",
        "wrong-value",
        replace=(("angle = pos / base ** (two_i / C)", "angle = pos / 10000.0 ** (two_i / C)"),),
    ),
    Mutant(
        "exponent-pair-index",
        NB,
        "sinusoidal-table",
        "wrong-value",
        replace=(("angle = pos / base ** (two_i / C)", "angle = pos / base ** (two_i / 2 / C)"),),
    ),
    Mutant(
        "positions-from-one",
        NB,
        "sinusoidal-table",
        "shifted",
        replace=(
            ("pos = np.arange(T, dtype=np.float64)[:, None]", "pos = np.arange(1, T + 1, dtype=np.float64)[:, None]"),
        ),
    ),
    Mutant(
        "table-float32",
        NB,
        "sinusoidal-table",
        "wrong-dtype",
        replace=(("table = np.empty((T, C), dtype=np.float64)", "table = np.empty((T, C), dtype=np.float32)"),),
    ),
    Mutant(
        "table-transposed", NB, "sinusoidal-table", "transposed", replace=(("    return table", "    return table.T"),)
    ),
    Mutant(
        "odd-C-drops-last-column",
        NB,
        "sinusoidal-table",
        "wrong-shape",
        source="""\
def sinusoidal_table(T, C, base=10000.0):
    if not isinstance(T, int) or not isinstance(C, int) or T < 1 or C < 1:
        raise ValueError("T and C must be positive integers")
    pos = np.arange(T)[:, None].astype(float)
    i = np.arange(C // 2)
    angle = pos / base ** (2 * i / C)
    table = np.zeros((T, 2 * (C // 2)))
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle)
    return table
""",
    ),
    Mutant(
        "odd-C-crashes", NB, "sinusoidal-table", "crashed", replace=(("np.cos(angle[:, : C // 2])", "np.cos(angle)"),)
    ),
    Mutant("no-size-check", NB, "sinusoidal-table", "no-error-raised", replace=((_VALIDATION, ""),)),
    Mutant(
        "size-check-only-sign",
        NB,
        "sinusoidal-table",
        "wrong-error",
        replace=(
            (
                "isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1",
                "value < 1",
            ),
        ),
    ),
    Mutant(
        "size-check-raises-typeerror",
        NB,
        "sinusoidal-table",
        "wrong-error",
        replace=(
            (
                _VALIDATION,
                '    for name, value in (("T", T), ("C", C)):\n'
                "        if not isinstance(value, (int, np.integer)):\n"
                '            raise TypeError(f"{name} must be an integer")\n'
                "        if value < 1:\n"
                '            raise ValueError(f"{name} must be positive")\n',
            ),
        ),
    ),
    # --- shift_matrix mistakes (the frequency mistakes of the table are catalogued here too; shift-transposed-blocks
    # is the relationship transposed) ---
    Mutant(
        "shift-transposed-blocks",
        NB,
        "shift-matrix",
        "transposed",
        replace=(
            (
                "    M[even, even + 1] = np.sin(t)\n    M[even + 1, even] = -np.sin(t)\n",
                "    M[even, even + 1] = -np.sin(t)\n    M[even + 1, even] = np.sin(t)\n",
            ),
        ),
    ),
    Mutant("shift-forgets-k", NB, "shift-matrix", "wrong-value", replace=(("t = k / base ** (", "t = 1 / base ** ("),)),
    Mutant("shift-freq-sign", NB, "shift-matrix", "freq-sign", replace=(("t = k / base ** (", "t = k * base ** ("),)),
    Mutant(
        "shift-base-ignored",
        NB,
        "shift-matrix",
        "wrong-value",
        replace=(("t = k / base ** (", "t = k / 10000.0 ** ("),),
    ),
    Mutant(
        "shift-per-column-freq",
        NB,
        "shift-matrix",
        "freq-per-column",
        source="""\
def shift_matrix(k, C, base=10000.0):
    if C % 2:
        raise ValueError("C must be even")
    w = 1.0 / base ** (np.arange(C) / C)      # one frequency per column: the pair no longer shares one
    M = np.zeros((C, C))
    for i in range(0, C, 2):
        M[i, i], M[i, i + 1] = np.cos(k * w[i]), np.sin(k * w[i])
        M[i + 1, i], M[i + 1, i + 1] = -np.sin(k * w[i + 1]), np.cos(k * w[i + 1])
    return M
""",
    ),
    Mutant(
        "shift-diagonal-only",
        NB,
        "shift-matrix",
        "wrong-value",
        replace=(("    M[even, even + 1] = np.sin(t)\n    M[even + 1, even] = -np.sin(t)\n", ""),),
    ),
    Mutant(
        "shift-odd-C-accepted",
        NB,
        "shift-matrix",
        "no-error-raised",
        replace=(
            (
                '    if C % 2:\n        raise ValueError(f"shift_matrix needs an even C (sin/cos pairs), got C={C}")\n',
                "    C = C - C % 2\n",
            ),
        ),
    ),
    Mutant(
        "shift-float32",
        NB,
        "shift-matrix",
        "wrong-dtype",
        replace=(("M = np.zeros((C, C), dtype=np.float64)", "M = np.zeros((C, C), dtype=np.float32)"),),
    ),
]

ALTERNATIVES = [
    Mutant(
        "table-loops-math",
        NB,
        "sinusoidal-table",
        None,
        source="""\
import math
import numbers


def sinusoidal_table(T, C, base=10000.0):
    if not (isinstance(T, numbers.Integral) and isinstance(C, numbers.Integral)) or T <= 0 or C <= 0:
        raise ValueError("T and C must be positive integers")
    table = np.zeros((T, C))
    for pos in range(T):
        for j in range(C):
            pair = j // 2
            angle = pos / math.pow(base, 2 * pair / C)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table
""",
    ),
    Mutant(
        "table-exp-log",
        NB,
        "sinusoidal-table",
        None,
        source="""\
import operator


def sinusoidal_table(T, C, base=10000.0):
    try:
        T, C = operator.index(T), operator.index(C)
    except TypeError:
        raise ValueError("T and C must be integers") from None
    if T < 1 or C < 1:
        raise ValueError("T and C must be positive")
    position = np.arange(T).reshape(-1, 1)
    div_term = np.exp(-np.log(base) * np.arange(0, C, 2) / C)   # 1 / base**(2i/C)
    pe = np.zeros((T, C), dtype=np.float64)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term[: C // 2])
    return pe
""",
    ),
    Mutant(
        "table-stack-interleave",
        NB,
        "sinusoidal-table",
        None,
        source="""\
def sinusoidal_table(T, C, base=10000.0):
    ok = lambda n: isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n > 0
    if not (ok(T) and ok(C)):
        raise ValueError(f"sinusoidal_table needs positive integers, got T={T!r}, C={C!r}")
    pairs = (C + 1) // 2
    freqs = np.power(float(base), -2.0 * np.arange(pairs) / C)
    angles = np.outer(np.arange(T, dtype=float), freqs)           # (T, pairs)
    both = np.stack([np.sin(angles), np.cos(angles)], axis=-1)    # (T, pairs, 2): sin, cos side by side
    return both.reshape(T, 2 * pairs)[:, :C].copy()               # odd C: drop the surplus final cos
""",
    ),
    Mutant(
        "shift-loop-blocks",
        NB,
        "shift-matrix",
        None,
        source="""\
import math


def shift_matrix(k, C, base=10000.0):
    if C % 2 != 0:
        raise ValueError("an odd C leaves a sin column without its cos partner")
    M = np.zeros((C, C))
    for i in range(C // 2):
        t = k * math.pow(base, -2 * i / C)
        c, s = math.cos(t), math.sin(t)
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
    return M
""",
    ),
    Mutant(
        "shift-kron",
        NB,
        "shift-matrix",
        None,
        source="""\
def shift_matrix(k, C, base=10000.0):
    if C % 2 == 1:
        raise ValueError("C must be even")
    theta = k * np.exp(-np.log(base) * np.arange(0, C, 2) / C)
    J = np.array([[0.0, 1.0], [-1.0, 0.0]])
    return np.kron(np.diag(np.cos(theta)), np.eye(2)) + np.kron(np.diag(np.sin(theta)), J)
""",
    ),
]
