# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: correct
# contract: style: one complex exponential per pair, exp(1j * angle), whose imaginary and real parts are interleaved by stacking on a new last axis and reshaping; the odd C is cut from an even table; operator.index for the size check
# story: A student who remembers that sin and cos of one angle are a single point on the unit circle.
import operator


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    try:
        T, C = operator.index(T), operator.index(C)      # accepts int and NumPy integers, refuses 2.5
    except TypeError:
        raise ValueError(f"T and C must be positive integers, got {T!r} and {C!r}") from None
    if T <= 0 or C <= 0:
        raise ValueError(f"T and C must be positive integers, got {T} and {C}")
    pairs = (C + 1) // 2
    freq = np.power(float(base), -2.0 * np.arange(pairs) / C)
    z = np.exp(1j * np.outer(np.arange(T, dtype=np.float64), freq))     # (T, pairs) on the unit circle
    table = np.stack([z.imag, z.real], axis=-1).reshape(T, 2 * pairs)  # sin, cos, sin, cos, ...
    return np.ascontiguousarray(table[:, :C], dtype=np.float64)
