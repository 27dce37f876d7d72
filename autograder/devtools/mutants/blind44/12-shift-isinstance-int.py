# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: wrong
# contract: input space, shift_matrix(k, C, base) | int type: "k and C as a Python int or any NumPy integer scalar" | `int64`, `int32`; and "an integer argument (T, C, k) as a Python int or any NumPy integer scalar"
# story: To refuse an odd (or non-integer) C the student writes "if not isinstance(C, int) or C % 2: raise ValueError", which is right for every Python int the notebook passes but also refuses np.int64(4) and np.int32(4), as a caller gets from shape arithmetic (C = X.shape[-1] is fine, C = np.int64(...) is not). shift_matrix(1, np.int64(2)) raises ValueError. A careful grader should say crashed: an input the contract allows raised an exception (not wrong-error, which is for an invalid input raising the wrong class).
import numpy as np


def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if not isinstance(C, int) or C % 2 != 0:
        raise ValueError(f"C must be an even integer (every sine needs its cosine partner), got {C!r}")
    t = k / base ** (np.arange(0, C, 2) / C)
    even = np.arange(0, C, 2)
    M = np.zeros((C, C))
    M[even, even] = np.cos(t)
    M[even, even + 1] = np.sin(t)
    M[even + 1, even] = -np.sin(t)
    M[even + 1, even + 1] = np.cos(t)
    return M
