# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: wrong
# contract: API: "`shift_matrix(k, C, base=10000.0)` is the (C, C) matrix `M` for which `table[p + k] == M @ table[p]` at every position `p`"; input space rows k `-1`, `-7`, `-1000000` with base `100.0`, `2.5`
# story: The lesson says the transpose rotates the other way (M.T == shift_matrix(-5, 8)), so the student handles a negative k by recursing on -k and transposing, and forgets to pass base along. Every positive k and every default-base call is right, and the visible checks use no negative k with a base; shift_matrix(-1, 4, base=100.0) rotates pair 1 by 1/10000**(2/4) instead of 1/100**(2/4). A careful grader should say wrong-value: stateless, the base argument is ignored for negative k (it may look like the transpose of another call's result, but no such call was made).
import numpy as np


def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2 != 0:
        raise ValueError(f"C must be even (every sine needs its cosine partner), got {C}")
    if k < 0:
        return shift_matrix(-k, C).T      # the transpose rotates back
    C = int(C)
    t = k / base ** (np.arange(0, C, 2) / C)
    M = np.zeros((C, C))
    for i, angle in enumerate(t):
        M[2 * i, 2 * i] = M[2 * i + 1, 2 * i + 1] = np.cos(angle)
        M[2 * i, 2 * i + 1] = np.sin(angle)
        M[2 * i + 1, 2 * i] = -np.sin(angle)
    return M
