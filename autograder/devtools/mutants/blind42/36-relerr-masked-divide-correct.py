# notebook: 02_token_embeddings
# cell: rel-error
# kind: correct
# contract: style: np.divide with an explicit floor array built by np.fmax, inputs copied to float64 arrays first, the maximum taken with ndarray.max and converted with .item()
# story: A student who writes the 1e-12 floor as its own named array to make the 0/0 case obvious.
def rel_error(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|), as a float."""
    a = np.array(a, dtype=np.float64)
    b = np.array(b, dtype=np.float64)
    size = np.abs(a) + np.abs(b)
    floor = np.fmax(size, np.full(size.shape, 1e-12))
    ratios = np.divide(np.abs(a - b), floor)
    return float(ratios.max().item())
