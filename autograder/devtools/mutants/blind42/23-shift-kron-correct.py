# notebook: 03_sinusoidal
# cell: shift-matrix
# kind: correct
# contract: style: every 2x2 block as cos(t) * I + sin(t) * J with J = [[0, 1], [-1, 0]], placed with np.kron of a one-hot diagonal; the angle reduced with np.mod only after multiplying k by the frequency
# story: A student who writes a rotation as cos t * I + sin t * J and lets kron place the blocks.
def shift_matrix(k, C, base=10000.0):
    """The (C, C) block-diagonal rotation M with table[pos + k] == M @ table[pos] for every pos."""
    if C % 2 == 1:
        raise ValueError(f"an odd C ({C}) has an unpaired sin column: no shift matrix exists")
    n = C // 2
    angles = np.mod(k * base ** (-2.0 * np.arange(n) / C), 2 * np.pi)
    I2 = np.eye(2)
    J = np.array([[0.0, 1.0], [-1.0, 0.0]])
    M = np.zeros((C, C))
    for i, t in enumerate(angles):
        pick = np.zeros((n, n))
        pick[i, i] = 1.0
        M += np.kron(pick, np.cos(t) * I2 + np.sin(t) * J)
    return M
