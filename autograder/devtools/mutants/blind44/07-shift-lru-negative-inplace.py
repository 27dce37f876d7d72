# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: wrong
# contract: "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit does not write into it."; and input space, shift_matrix(k, C, base) | before: "called first with other arguments" | `other k`
# story: The student memoises the rotation with functools.lru_cache on a helper keyed on every argument (that part is fine) and, to reuse work for a negative k, takes the cached M(|k|) and flips the signs of its sine entries in place, so the cached object itself becomes M(k) and is handed out. shift_matrix(1, 4) then shift_matrix(-1, 4) writes into the first result the caller holds (side-effect); shift_matrix(-1, 4) then shift_matrix(1, 4) returns M(-1), the right result of the earlier call (stale-state: a k no call used before is right); shift_matrix(-1, 4) twice flips it back and returns M(1), the transpose of the right answer. A careful grader should name side-effect or stale-state according to which of these sequences fails, never a formula mistake; the visible demo also prints "M.T shifts back by 5: False".
import functools

import numpy as np


@functools.lru_cache(maxsize=None)
def _rotation(k, C, base):
    """M for a shift of k >= 0 (computed once per k, C and base)."""
    t = k / base ** (np.arange(0, C, 2) / C)
    M = np.zeros((C, C))
    even = np.arange(0, C, 2)
    M[even, even] = np.cos(t)
    M[even, even + 1] = np.sin(t)
    M[even + 1, even] = -np.sin(t)
    M[even + 1, even + 1] = np.cos(t)
    return M


def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2 != 0:
        raise ValueError(f"C must be even (every sine needs its cosine partner), got {C}")
    if k >= 0:
        return _rotation(int(k), int(C), float(base))
    # a rotation by -t is the rotation by t with its sines negated: reuse the cached one
    M = _rotation(int(-k), int(C), float(base))
    M[0::2, 1::2] *= -1
    M[1::2, 0::2] *= -1
    return M
