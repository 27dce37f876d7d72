# notebook: 02_token_embeddings
# cell: rel-error
# kind: wrong
# contract: "`rel_error(a, b)` is the largest entry of `|a - b| / max(1e-12, |a| + |b|)`, as a float." (the space's signs: opposite signs)
# story: A misplaced bracket: the student writes np.abs(a + b) for |a| + |b|. For entries of the same sign the two agree, and every visible example has same-sign or zero entries; with opposite signs the denominator collapses and the error explodes.
def rel_error(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|), as a float."""
    return float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a + b))))
