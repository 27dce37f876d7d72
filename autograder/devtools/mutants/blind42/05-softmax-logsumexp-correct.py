# notebook: 01_why_position
# cell: softmax
# kind: correct
# contract: style: moves the axis to the end, works on a 2-D (rows, n) copy, and normalises with log-sum-exp (exp(x - logsumexp)) instead of dividing by a sum; max taken per row
# story: A student who learned the log-sum-exp trick in a statistics course and prefers to work on rows of a 2-D array.
def softmax(x, axis=-1):
    """Numerically stable softmax: every slice of x along `axis` becomes positive weights summing to 1."""
    x = np.asarray(x, dtype=np.float64)
    moved = np.moveaxis(x, axis, -1)                  # the axis to normalise is now the last one
    rows = moved.reshape(-1, moved.shape[-1])         # a copy when the layout needs one; x is never written
    top = rows.max(axis=1)[:, None]
    lse = top + np.log(np.exp(rows - top).sum(axis=1))[:, None]
    out = np.exp(rows - lse)
    return np.moveaxis(out.reshape(moved.shape), -1, axis)
