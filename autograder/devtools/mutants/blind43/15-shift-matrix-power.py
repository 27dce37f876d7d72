# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: correct
# contract: unusual style: builds only the one-step matrix M(1) and returns np.linalg.matrix_power(M(1), |k|) (of M(1).T for a negative k), using the lesson's "M(2) @ M(5) == M(7)"; repeated squaring keeps even k = ±1000000 within about 1e-10 of the direct formula.
# story: The student took "shifting by 2 then by 5 is shifting by 7" as the definition: a shift by k is k shifts by one.
def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2:
        raise ValueError("an odd C has a sin column without a cos partner: no shift matrix")
    C = int(C)
    one = np.zeros((C, C))
    for i in range(C // 2):
        w = base ** (-2 * i / C)
        one[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(w), np.sin(w)], [-np.sin(w), np.cos(w)]]
    k = int(k)
    if k >= 0:
        return np.linalg.matrix_power(one, k)
    return np.linalg.matrix_power(one.T, -k)      # the inverse of a rotation is its transpose
