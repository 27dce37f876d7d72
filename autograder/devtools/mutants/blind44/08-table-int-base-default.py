# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: input space, sinusoidal_table(T, C, base) | base: "base left out, or any positive base" | `int 100`
# story: The student's first draft had base=None and a guard "if not isinstance(base, float): base = 10000.0" to fill it in; when the signature became base=10000.0 the guard stayed, and it now throws away any base given as an int. sinusoidal_table(2, 3, base=100) is the default-base table (base=100.0 is right, and so is every C <= 2, where only the base-free pair 0 exists). A careful grader should say wrong-value: no state is involved, the result is what the code computes for these arguments on every call.
import numpy as np


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    if not isinstance(base, float):   # base left out (None) or odd: use the paper's 10000
        base = 10000.0
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    pos = np.arange(T, dtype=np.float64)[:, None]
    angles = pos / base ** (np.arange(0, C, 2) / C)
    table = np.zeros((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    return table
