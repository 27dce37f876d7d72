# notebook: 02_token_embeddings
# cell: numerical-gradient
# kind: wrong
# contract: "Each entry of x is nudged in place by +eps and -eps"; input space: "x of any shape (one entry, three axes) and any memory layout: a transpose or strided slice is nudged in place like a contiguous array"
# story: Loops over a flat view, x.reshape(-1), to visit every entry of any shape with one index. For a transpose or a strided slice reshape returns a copy, so the nudges never reach x, f() never changes and the gradient comes back all zero (x also looks "restored").
def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of the scalar f() with respect to every entry of x (restored after)."""
    flat = x.reshape(-1)                 # a flat view of x: one index per entry, whatever the shape
    grad = np.zeros(flat.shape)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        f_plus = f()
        flat[i] = old - eps
        f_minus = f()
        flat[i] = old
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad.reshape(x.shape)
