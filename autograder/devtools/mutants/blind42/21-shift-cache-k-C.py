# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: wrong
# contract: input space of shift_matrix: "any positive base; called again with the same k and another C or base"; "A result that is another call's result (for other arguments ...) is the generic mistake stale-state"
# story: The demo applies one shift to thousands of rows and the student expects to call shift_matrix inside a loop, so the matrix is memoised per (k, C), "all it depends on"; base is left out of the key, so shift_matrix(3, 6, base=20.0) after shift_matrix(3, 6) returns the base-10000 matrix. No self-check repeats a (k, C) pair.
_shift_cache = {}


def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2:
        raise ValueError(f"C must be even, got {C}")
    if (k, C) in _shift_cache:
        return _shift_cache[(k, C)]
    t = k * base ** (-np.arange(0, C, 2) / C)
    M = np.zeros((C, C))
    ev = np.arange(0, C, 2)
    M[ev, ev] = np.cos(t)
    M[ev, ev + 1] = np.sin(t)
    M[ev + 1, ev] = -np.sin(t)
    M[ev + 1, ev + 1] = np.cos(t)
    _shift_cache[(k, C)] = M
    return M
