# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: wrong
# contract: "`shift_matrix(k, C, base=10000.0)` is the (C, C) matrix `M` for which `table[p + k] == M @ table[p]` at every position `p`" (the pair k negative with base not the default)
# story: The student handles a backward shift as "undo the forward rotation, i.e. transpose it" with a recursive call, and forgets to pass base along; negative k is only ever used (in the demo) with the default base, so nothing visible notices.
def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2 != 0:
        raise ValueError(f"C must be even for a shift matrix, got {C}")
    if k < 0:
        return shift_matrix(-k, C).T            # a rotation by -t is the transpose of the rotation by t
    M = np.zeros((C, C))
    for i in range(C // 2):
        t = k / base ** (2 * i / C)
        M[2 * i, 2 * i], M[2 * i, 2 * i + 1] = np.cos(t), np.sin(t)
        M[2 * i + 1, 2 * i], M[2 * i + 1, 2 * i + 1] = -np.sin(t), np.cos(t)
    return M
