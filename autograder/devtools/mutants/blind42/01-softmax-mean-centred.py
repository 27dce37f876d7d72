# notebook: 01_why_position
# cell: softmax
# kind: wrong
# contract: "softmax(x, axis=-1) sums to 1 along axis and does not overflow for inputs around 1000 (it subtracts the maximum first)"; input space: "scores of any sign and any spread, wider than exp holds (a slice from -800 to 800)"
# story: Centres each slice on its mean instead of its max ("shift so the scores sit around 0"): fine for [1000, 1001, 1002] and for rows at -1000, but a row spanning -800..800 still has exp(800) = inf.
def softmax(x, axis=-1):
    """Numerically stable softmax: every slice of x along `axis` becomes positive weights summing to 1."""
    # centre every slice around 0 so exp never sees huge numbers
    centred = x - np.mean(x, axis=axis, keepdims=True)
    e = np.exp(centred)
    return e / np.sum(e, axis=axis, keepdims=True)
