# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: input space, sinusoidal_table(T, C, base) | before: "called first with other arguments (a result kept under too little of its arguments)" | `other base`; and the API: "Columns come in pairs (2i, 2i+1) that share the angle `pos / base**(2i / C)`"
# story: The lesson says "the table for 5000 positions begins with the table for 100", so the student keeps the last table built in a module global and answers any request with the same C and no more rows by slicing it; the check compares the width and the length and forgets base. sinusoidal_table(7, 8) then sinusoidal_table(7, 8, base=100.0) (or sinusoidal_table(2, 8, base=2.5) after a 2048-row default table) returns rows of the default-base table. A careful grader should say stale-state: the result equals the right result of the earlier call's state (the same T and C with the earlier base, rows :T of the kept table), and a call with a size no call used before is right.
import numpy as np

_last = None   # the last table built; a shorter one with the same C is its first rows


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    global _last
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    if _last is not None and _last.shape[1] == C and _last.shape[0] >= T:
        return _last[:T].copy()
    pos = np.arange(T, dtype=np.float64)[:, None]
    angles = pos / base ** (np.arange(0, C, 2) / C)
    table = np.zeros((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    _last = table
    return table.copy()
