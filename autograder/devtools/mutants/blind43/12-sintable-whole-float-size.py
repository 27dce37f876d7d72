# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: "A `T` or `C` that is not a positive integer raises `ValueError`." (the space's bad values include `C = 3.0`)
# story: The student tests "is it a whole number" with int(n) != n so that NumPy integers pass, and converts with int(); a whole-valued float such as C = 3.0 passes the test and the table is built instead of being refused. The visible check only tries 2.5.
def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    if T <= 0 or C <= 0 or int(T) != T or int(C) != C:
        raise ValueError(f"T and C must be positive integers, got T={T!r}, C={C!r}")
    T, C = int(T), int(C)
    pos = np.arange(T, dtype=np.float64)[:, None]
    i2 = np.arange(0, C, 2)                           # 2i for every pair (and the lone sin of an odd C)
    angles = pos * base ** (-i2 / C)
    table = np.empty((T, C))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    return table
