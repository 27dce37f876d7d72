# notebook: 02_token_embeddings
# cell: numerical-gradient
# kind: wrong
# contract: "Each entry of x is nudged in place by +eps and -eps, the central difference is taken, and the entry is put back exactly; the result has the shape of x"; input space: "x of any shape (one entry, three axes)"
# story: Every parameter in the course is a matrix (E, P), so the student loops rows and columns and lifts 1-D x with np.atleast_2d (a view, so nudges still land). For a 3-D x, x2[i, j] is a whole vector: the whole fibre is nudged at once (each value is the sum over the last axis), and since old is a view of it, the "restore" leaves (x + eps) - eps with rounding residue.
def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of the scalar f() with respect to every entry of x (restored after)."""
    x2 = np.atleast_2d(x)                # (n,) -> (1, n), a view of x
    grad = np.zeros(x2.shape)
    for i in range(x2.shape[0]):
        for j in range(x2.shape[1]):
            old = x2[i, j]
            x2[i, j] = old + eps
            plus = f()
            x2[i, j] = old - eps
            minus = f()
            x2[i, j] = old
            grad[i, j] = (plus - minus) / (2 * eps)
    return grad.reshape(x.shape)
