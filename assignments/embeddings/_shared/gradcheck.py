def numerical_gradient(f, x, eps=1e-6):
    """Central differences of the scalar f() with respect to every entry of x (restored after)."""
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f()
        x[i] = old - eps
        minus = f()
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def rel_error(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|), as a float."""
    return float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))


# kit-include: _shared/verdict.py
