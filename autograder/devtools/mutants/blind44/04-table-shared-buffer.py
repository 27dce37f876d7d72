# notebook: 03_sinusoidal
# cell: sinusoidal-table
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it."
# story: Worried about allocating a fresh 10000 x 8 array in every demo, the student keeps one flat float64 buffer, grows it only when a bigger table is asked for, and returns a (T, C) view of its start filled with np.sin(..., out=...). Every value returned is right, but pe = sinusoidal_table(7, 8) followed by sinusoidal_table(2, 3) (any later call that fits in the buffer) overwrites pe in place. A careful grader should say side-effect: the later call's own result is right and the earlier call's result is no longer what it was handed out as (it is not stale-state, which is about the result of the current call).
import numpy as np

_buffer = np.empty(0)   # reused between calls; grown when a larger table is needed


def sinusoidal_table(T, C, base=10000.0):
    """The (T, C) float64 table: column 2i is sin(pos / base**(2i/C)), column 2i+1 the matching cos."""
    global _buffer
    for name, v in (("T", T), ("C", C)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    T, C = int(T), int(C)
    if _buffer.size < T * C:
        _buffer = np.empty(T * C)
    table = _buffer[: T * C].reshape(T, C)
    pos = np.arange(T, dtype=np.float64)[:, None]
    angles = pos / base ** (np.arange(0, C, 2) / C)
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : C // 2])
    return table
