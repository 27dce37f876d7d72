# notebook: 01_why_position
# cell: softmax
# kind: wrong
# contract: "`softmax(x, axis=-1)` sums to 1 along `axis` and does not overflow for inputs around 1000 (it subtracts the maximum first)."
# story: The student remembers "shift the scores so they are centred" from normalisation layers and subtracts the mean along the axis instead of the max; [1000, 1001, 1002] and [-1000, -1001] become small either way, but a slice spanning -800..800 still overflows to inf/nan.
def softmax(x, axis=-1):
    """Numerically stable softmax: every slice of x along `axis` becomes positive weights summing to 1."""
    x = np.asarray(x)
    # centre every slice around 0 so exp never sees huge numbers
    centred = x - x.mean(axis=axis, keepdims=True)
    e = np.exp(centred)
    return e / e.sum(axis=axis, keepdims=True)
