# notebook: 02_token_embeddings
# cell: numerical-gradient
# kind: wrong
# contract: "Each entry of `x` is nudged in place by `+eps` and `-eps`" (the space's layout dimension: "x's memory layout: nudged in place whatever it is", transposed and strided x)
# story: The student flattens x with x.ravel() to loop over one index, believing ravel is always a view; for a contiguous x it is, so every visible check and the demo pass, but for a transposed or strided x ravel copies, f never sees the nudges and the gradient is all zeros.
def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of the scalar f() with respect to every entry of x (restored after)."""
    flat = x.ravel()                  # a view of x, so nudging flat nudges x
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
