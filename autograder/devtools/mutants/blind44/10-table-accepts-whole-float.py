# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: API: "A `T` or `C` that is not a positive integer raises `ValueError`."; input space, sinusoidal_table bad: "a T or C that is not a positive integer (invalid: raises ValueError)" | `C = 3.0`
# story: The student tests for "a whole number" by value (v != int(v)) rather than by type, then casts with int(); 2.5 and 0 are refused as the self-check asks, but sinusoidal_table(2, 3.0) quietly returns the (2, 3) table. A careful grader should say no-error-raised: the input is outside the contract and no exception came out.
import numpy as np


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    for name, v in (("T", T), ("C", C)):
        if v != int(v) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    pos = np.arange(T, dtype=np.float64)[:, None]
    angles = pos / base ** (np.arange(0, C, 2) / C)
    table = np.zeros((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    return table
