# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: input space, sinusoidal_table(T, C, base) | before: "called first with other arguments (a result kept under too little of its arguments)" | `same T other C`; and the API: "Columns come in pairs (2i, 2i+1) that share the angle `pos / base**(2i / C)`" (the exponent depends on C)
# story: The student caches one table per (T, base) and, having read that a shorter table is the first rows of a longer one, assumes the same of columns: a narrower table is served as the first C columns of the widest one kept. sinusoidal_table(7, 8) after sinusoidal_table(7, 9) returns the (7, 9) table's first 8 columns, whose pairs use 2i/9 instead of 2i/8 (C = 1 and C = 2 are still right: pair 0 does not depend on C). A careful grader should say wrong-value, not stale-state: the result is a slice of another call's result, not the right result of any earlier call, so the contract's test for stale-state (equal to the right result of that earlier state) does not hold.
import numpy as np

_widest = {}   # (T, base) -> the widest table built so far for that length and base


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    key = (T, float(base))
    kept = _widest.get(key)
    if kept is not None and kept.shape[1] >= C:
        return kept[:, :C].copy()
    pos = np.arange(T, dtype=np.float64)[:, None]
    angles = pos / base ** (np.arange(0, C, 2) / C)
    table = np.zeros((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    _widest[key] = table
    return table.copy()
