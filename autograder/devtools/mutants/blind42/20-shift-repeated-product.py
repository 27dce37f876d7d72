# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: wrong
# contract: "shift_matrix(k, C, base=10000.0) is the (C, C) matrix M for which table[p + k] == M @ table[p]"; input space: "k negative, zero, small and large (up to 10**6)"
# story: Took the hint "shifting by 2 and then by 5 is shifting by 7" literally: build the one-step rotation and multiply it k times. For a negative k the loop never runs and M is the identity; for k = 10**6 it takes a million matrix products.
def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2 != 0:
        raise ValueError("shift_matrix needs an even C: the last sin column has no cos partner")
    step = np.zeros((C, C))
    for i in range(C // 2):
        w = 1.0 / base ** (2 * i / C)
        step[2 * i, 2 * i], step[2 * i, 2 * i + 1] = np.cos(w), np.sin(w)
        step[2 * i + 1, 2 * i], step[2 * i + 1, 2 * i + 1] = -np.sin(w), np.cos(w)
    M = np.eye(C)
    for _ in range(k):                    # shift by 1, k times
        M = step @ M
    return M
