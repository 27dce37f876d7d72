# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: "`sinusoidal_table(T, C, base=10000.0)` is a float64 (T, C) table. Columns come in pairs (2i, 2i+1) that share the angle `pos / base**(2i / C)`" (the space's `before: other base`: a result kept under too little of its arguments)
# story: The table has no parameters, so the student memoises it (the demo builds 5000- and 10000-row tables); they key the cache on (T, C) because "base is always 10000", so a call with another base after a default call for the same sizes returns the default-base table. They even return a copy so callers cannot spoil the cache.
_SINUSOIDAL_CACHE = {}


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    for n in (T, C):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
            raise ValueError(f"T and C must be positive integers, got T={T!r}, C={C!r}")
    key = (int(T), int(C))
    if key not in _SINUSOIDAL_CACHE:
        T, C = key
        pos = np.arange(T, dtype=np.float64)[:, None]
        angles = pos / base ** (np.arange(0, C, 2) / C)
        table = np.zeros((T, C))
        table[:, 0::2] = np.sin(angles)
        table[:, 1::2] = np.cos(angles[:, : C // 2])
        _SINUSOIDAL_CACHE[key] = table
    return _SINUSOIDAL_CACHE[key].copy()
