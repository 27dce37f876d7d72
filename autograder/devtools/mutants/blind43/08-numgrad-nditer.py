# notebook: 02_token_embeddings
# cell: numerical-gradient
# kind: correct
# contract: unusual style: the cs231n idiom, np.nditer with flags=["multi_index"] to walk every index of any rank and layout, nudging x[ix] through the index (so transposed and strided x are nudged in place) and restoring the saved value exactly.
# story: The student copied the gradient checker from the Stanford CS231n assignments they did before.
def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of the scalar f() with respect to every entry of x (restored after)."""
    grad = np.zeros(x.shape)
    it = np.nditer(x, flags=["multi_index"], op_flags=["readonly"])
    while not it.finished:
        ix = it.multi_index
        oldval = x[ix]
        x[ix] = oldval + eps
        fxph = f()
        x[ix] = oldval - eps
        fxmh = f()
        x[ix] = oldval
        grad[ix] = (fxph - fxmh) / (2 * eps)
        it.iternext()
    return grad
