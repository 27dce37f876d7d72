# notebook: 02_token_embeddings
# cell: rel-error
# kind: wrong
# contract: "rel_error(a, b) is the largest entry of |a - b| / max(1e-12, |a| + |b|), as a float"
# story: Normalises the largest difference by the largest magnitude (a norm-style relative error from another course) instead of dividing entry by entry; rel_error([1, 100], [1, 101]) is still 1/201, but a small entry that is badly off is drowned by a large one.
def rel_error(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|), as a float."""
    diff = np.max(np.abs(a - b))
    scale = np.max(np.abs(a) + np.abs(b))
    return float(diff / max(1e-12, scale))
