# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: wrong
# contract: input space, shift_matrix(k, C, base) | before: "called first with other arguments" | `other base`; and the API: "`shift_matrix(k, C, base=10000.0)` is the (C, C) matrix `M` for which `table[p + k] == M @ table[p]` at every position `p`"
# story: The demos call shift_matrix(5, 8) and friends repeatedly, so the student memoises in a dict keyed on (k, C), the two arguments every worked example changes; base is used to build the matrix but is not part of the key. shift_matrix(3, 4) then shift_matrix(3, 4, base=100.0) returns the default-base matrix (the same object). A careful grader should say stale-state: the result is exactly the right result of the earlier call (3, 4, 10000.0), and the same call with a (k, C) no call used before is right.
import numpy as np

_matrices = {}   # (k, C) -> M


def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2 != 0:
        raise ValueError(f"C must be even (every sine needs its cosine partner), got {C}")
    key = (int(k), int(C))
    if key in _matrices:
        return _matrices[key]
    C = int(C)
    t = k / base ** (np.arange(0, C, 2) / C)
    M = np.zeros((C, C))
    for i, angle in enumerate(t):
        c, s = np.cos(angle), np.sin(angle)
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    _matrices[key] = M
    return M
