# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: input space, sinusoidal_table(T, C, base) | before: "called first with other arguments (a result kept under too little of its arguments)" | `other base`; and the API: "Columns come in pairs (2i, 2i+1) that share the angle `pos / base**(2i / C)`"
# story: The demo cells build the same big tables again and again, so the student memoises on the table's shape, (T, C), the two things every example varies; base was added to the signature later and never made it into the key. sinusoidal_table(7, 8, base=100.0) after sinusoidal_table(7, 8) returns the default-base table the first call built (the same object). A careful grader should say stale-state: the result is exactly the right result of the earlier call (7, 8, 10000.0), and a fresh (T, C) with base=100.0 is right.
import numpy as np

_tables = {}   # (T, C) -> table, so the demos do not rebuild 10000-row tables


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    if (T, C) in _tables:
        return _tables[(T, C)]
    pos = np.arange(T, dtype=np.float64)[:, None]
    angles = pos / base ** (np.arange(0, C, 2) / C)
    table = np.zeros((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    _tables[(T, C)] = table
    return table
