def slope_error(loss, x, grad, directions=5, eps=1e-6, seed=0):
    """A gradient check along random directions (given, not one of your graded functions): for each direction d,
    the slope of loss() measured between x - eps * d and x + eps * d (all of x moved at once) against the slope
    that grad predicts, sum(grad * d). Returns the largest gap, relative to the largest slope grad could predict
    for that d (the norm of grad times the norm of d); x is left as it was."""
    start = np.array(x, copy=True)
    worst = 0.0
    for d in np.random.default_rng(seed).standard_normal((directions,) + x.shape):
        x[...] = start + eps * d
        ahead = loss()
        x[...] = start - eps * d
        behind = loss()
        x[...] = start
        slope = (ahead - behind) / (2 * eps)
        bound = np.linalg.norm(grad) * np.linalg.norm(d) + abs(slope)
        worst = max(worst, abs(slope - np.sum(grad * d)) / (bound + 1e-300))
    return float(worst)


# kit-include: _shared/verdict.py
