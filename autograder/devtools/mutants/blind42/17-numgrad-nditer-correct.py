# notebook: 02_token_embeddings
# cell: numerical-gradient
# kind: correct
# contract: style: np.nditer with a multi-index over a read-write x (works on any layout in place), the old value saved as a Python float and written back exactly
# story: The cs231n-style loop a student copies from an old assignment, with the restore done properly.
def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of the scalar f() with respect to every entry of x (restored after)."""
    grad = np.zeros(x.shape, dtype=np.float64)
    it = np.nditer(x, flags=["multi_index", "refs_ok"], op_flags=["readwrite"])
    while not it.finished:
        ix = it.multi_index
        saved = x[ix]
        x[ix] = saved + eps
        up = float(f())
        x[ix] = saved - eps
        down = float(f())
        x[ix] = saved
        grad[ix] = (up - down) / (2.0 * eps)
        it.iternext()
    return grad
