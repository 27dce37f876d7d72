# notebook: 02_token_embeddings
# cell: rel-error
# kind: wrong
# contract: "rel_error(a, b) is the largest entry of |a - b| / max(1e-12, |a| + |b|)"; input space: "arrays of any shape from one entry, of either sign and of opposite signs"
# story: Writes the denominator as |a + b| ("the size of the two together"); identical for same-sign entries, as in both self-check cases, but for entries of opposite sign it divides by nearly zero and reports huge errors (or the 1e-12 floor: 2 / 1e-12).
def rel_error(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|), as a float."""
    return float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a + b))))
