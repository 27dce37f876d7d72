# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: correct
# contract: none broken: keyed on every argument, normalised (int T, int C, float base, so base=100 and base=100.0 share an entry), validated before the cache is read, and every call returns a fresh copy, so "A result handed out ... is the caller's: a later call of the unit does not write into it." holds even if the caller writes into a result
# story: A student who memoises the table (the demos rebuild 10000-row tables) but keys the cache on all three arguments and hands out copies. No call sequence of the input space can tell it from the reference.
import numpy as np

_tables = {}   # (T, C, base) -> table; never handed out itself


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    key = (int(T), int(C), float(base))
    if key not in _tables:
        T, C, b = key
        pos = np.arange(T, dtype=np.float64)[:, None]
        angles = pos / b ** (np.arange(0, C, 2) / C)
        table = np.empty((T, C))
        table[:, 0::2] = np.sin(angles)
        table[:, 1::2] = np.cos(angles[:, : C // 2])
        _tables[key] = table
    return _tables[key].copy()
