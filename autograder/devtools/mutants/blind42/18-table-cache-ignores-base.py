# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: input space of sinusoidal_table: "called again with the same T and another C or base"; "A result that is another call's result (for other arguments ...) is the generic mistake stale-state"
# story: The table is fixed, so the student memoises it ("compute once per (T, C) and reuse it every batch") and forgets that base is an argument too; the second call with the same T and C but another base returns the first table.
_table_cache = {}


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    if not (isinstance(T, (int, np.integer)) and isinstance(C, (int, np.integer))) or T <= 0 or C <= 0:
        raise ValueError(f"T and C must be positive integers, got T={T!r}, C={C!r}")
    key = (T, C)
    if key not in _table_cache:
        pos = np.arange(T)[:, None]
        div = base ** (np.arange(0, C, 2) / C)
        table = np.zeros((T, C))
        table[:, 0::2] = np.sin(pos / div)
        table[:, 1::2] = np.cos(pos / div[: C // 2])
        _table_cache[key] = table
    return _table_cache[key].copy()
