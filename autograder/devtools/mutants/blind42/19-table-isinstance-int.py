# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: "A T or C that is not a positive integer raises ValueError" (so a positive NumPy integer such as np.int64(8) is accepted); input space: "T from 1 to several thousand, C from 1"
# story: Validates with isinstance(T, int), the Python way; sizes that come out of NumPy (x.shape[1] is int, but a T drawn with rng.integers or taken from an int64 array is np.int64) are then refused as "not an integer".
def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    if not isinstance(T, int) or not isinstance(C, int) or T < 1 or C < 1:
        raise ValueError(f"T and C must be positive integers, got T={T!r}, C={C!r}")
    positions = np.arange(T, dtype=np.float64).reshape(T, 1)
    exponents = np.arange(0, C, 2) / C                   # 2i / C, one per pair
    angles = positions / base ** exponents               # (T, ceil(C/2))
    table = np.empty((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)[:, : C // 2]
    return table
