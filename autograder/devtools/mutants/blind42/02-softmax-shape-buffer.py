# notebook: 01_why_position
# cell: softmax
# kind: wrong
# contract: input space of softmax: "called again with another x of the same shape"; "A result that is another call's result (for other arguments ...) is the generic mistake stale-state"
# story: Attention calls softmax on (B, T, T) scores over and over, so the student keeps one scratch buffer per shape and writes the result into it; a second call with the same shape overwrites the array the first call returned.
_softmax_buffers = {}


def softmax(x, axis=-1):
    """Numerically stable softmax: every slice of x along `axis` becomes positive weights summing to 1."""
    x = np.asarray(x, dtype=np.float64)
    buf = _softmax_buffers.get(x.shape)
    if buf is None:                       # allocate once per shape, reuse afterwards
        buf = _softmax_buffers[x.shape] = np.empty(x.shape)
    np.subtract(x, x.max(axis=axis, keepdims=True), out=buf)
    np.exp(buf, out=buf)
    buf /= buf.sum(axis=axis, keepdims=True)
    return buf
