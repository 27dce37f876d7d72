# notebook: 02_token_embeddings
# cell: rel-error
# kind: wrong
# contract: "An array handed to a unit is not changed by the caller afterwards; the unit may keep it ... and must not change it itself." (grading compares "the inputs left as they were")
# story: The student "makes local float copies" with np.asarray(..., dtype=np.float64) and then reuses a as a work buffer to save memory; asarray copies only when the dtype changes, so a float64 `a` (e.g. emb.dE in the demo) is overwritten with |a - b| in the caller's hands, while float32 inputs come through untouched.
def rel_error(a, b):
    """max over entries of |a - b| / max(1e-12, |a| + |b|), as a float."""
    a = np.asarray(a, dtype=np.float64)   # local float64 copies
    b = np.asarray(b, dtype=np.float64)
    denom = np.maximum(1e-12, np.abs(a) + np.abs(b))
    a -= b                                # reuse a's buffer for the difference
    np.abs(a, out=a)
    return float(np.max(a / denom))
