# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: input space, sinusoidal_table(T, C, base) | before: "called first with other arguments (a result kept under too little of its arguments)" | `other base`; and the API: "Columns come in pairs (2i, 2i+1) that share the angle `pos / base**(2i / C)`"
# story: The student wrapped the frequency vector in functools.lru_cache, keyed on C, back when the base was a module constant; when base became an argument they set the global before calling the helper instead of passing it, so the first base ever used with a given C sticks. sinusoidal_table(7, 8) then sinusoidal_table(7, 8, base=100.0) is the default-base table (any earlier call with C = 8, whichever check made it, poisons every later C = 8 call). A careful grader should say stale-state: the result is the right table of the earlier base (for the same T and C it equals that earlier call's result), and a call with a C no call used before is right.
import functools

import numpy as np

_BASE = 10000.0


@functools.lru_cache(maxsize=None)
def _frequencies(C):
    """1 / _BASE**(2i/C) for every pair i (the slow part, computed once per C)."""
    return 1.0 / _BASE ** (np.arange(0, C, 2) / C)


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    global _BASE
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    _BASE = float(base)
    w = _frequencies(C)
    angles = np.arange(T, dtype=np.float64)[:, None] * w
    table = np.zeros((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    return table
