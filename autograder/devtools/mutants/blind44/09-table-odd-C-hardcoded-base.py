# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: API: "Columns come in pairs (2i, 2i+1) that share the angle `pos / base**(2i / C)` ... An odd `C` is allowed (the last column is a sine column)"; input space rows C `9` with base `100.0`, `2.5`, `int 100`
# story: The student built the odd-C branch from the PyTorch tutorial line div_term = exp(arange(0, C, 2) * -log(10000.0) / C), with 10000 written in, and only later added base where the base self-check pointed: to the even-C branch and to the lone last sine column of sinusoidal_table(4, 3, base=100.0). The visible checks pass because for C = 3 the only pair is pair 0, which does not depend on the base; sinusoidal_table(2, 9, base=100.0) has pairs 1 to 3 at the default base. A careful grader should say wrong-value: stateless, the argument is ignored for part of the table.
import numpy as np


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    pos = np.arange(T, dtype=np.float64)[:, None]
    table = np.zeros((T, C))
    if C % 2 == 0:
        angles = pos / base ** (np.arange(0, C, 2) / C)
        table[:, 0::2] = np.sin(angles)
        table[:, 1::2] = np.cos(angles)
    else:
        # the complete pairs first, then the lone sine in the last column
        div_term = np.exp(np.arange(0, C - 1, 2) * (-np.log(10000.0) / C))
        table[:, 0 : C - 1 : 2] = np.sin(pos * div_term)
        table[:, 1 : C - 1 : 2] = np.cos(pos * div_term)
        table[:, C - 1] = np.sin(pos[:, 0] / base ** ((C - 1) / C))
    return table
