# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: "an integer argument (T, C, k) as a Python int or any NumPy integer scalar" (the space's int type: int64, int32, int16, uint8, uint64), against "A `T` or `C` that is not a positive integer raises `ValueError`"
# story: The student validates with isinstance(T, int), the check every Python tutorial shows; NumPy integer scalars are not Python ints, so sinusoidal_table(np.int64(8), 16), e.g. T taken from an array's shape arithmetic or np.arange, is refused with ValueError.
def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    if not isinstance(T, int) or not isinstance(C, int) or T <= 0 or C <= 0:
        raise ValueError(f"T and C must be positive integers, got T={T!r}, C={C!r}")
    pos = np.arange(T)[:, None]                       # (T, 1)
    div = base ** (np.arange(0, C, 2) / C)            # one frequency per pair, (ceil(C/2),)
    angles = pos / div
    table = np.zeros((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])      # an odd C has one sin more than cos
    return table
