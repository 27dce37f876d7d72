# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: correct
# contract: none broken: the functools.lru_cache helper takes every argument (normalised to int k, int C, float base), caches immutable tuples of angles' cos and sin, and each call builds a fresh matrix from them, so no two results share memory
# story: A student who caches the trigonometry with functools.lru_cache, keyed on all arguments, and never hands out a cached array; odd C is refused before the cache is reached. It should score full marks.
import functools

import numpy as np


@functools.lru_cache(maxsize=256)
def _cos_sin(k, C, base):
    t = k / base ** (np.arange(0, C, 2) / C)
    return tuple(np.cos(t)), tuple(np.sin(t))


def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if isinstance(C, bool) or not isinstance(C, (int, np.integer)) or C <= 0 or C % 2:
        raise ValueError(f"C must be a positive even integer, got {C!r}")
    cos, sin = _cos_sin(int(k), int(C), float(base))
    cos, sin = np.array(cos), np.array(sin)
    even = np.arange(0, int(C), 2)
    M = np.zeros((int(C), int(C)))
    M[even, even] = cos
    M[even, even + 1] = sin
    M[even + 1, even] = -sin
    M[even + 1, even + 1] = cos
    return M
