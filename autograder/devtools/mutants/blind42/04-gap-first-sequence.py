# notebook: 01_why_position
# cell: permutation-gap
# kind: wrong
# contract: "permutation_gap(X, perm, Wq, Wk, Wv, P=None) returns one float: ... the largest absolute difference between attending over the permuted input ... and permuting the output"; input space: "B from 1"
# story: Copied the lamp/palm demo, which looks at out[0], the one sequence of a batch of one; so the gap is measured on sequence 0 only and the other B - 1 sequences are ignored.
def permutation_gap(X, perm, Wq, Wk, Wv, P=None):
    """max |self_attention(X[:, perm] + pos) - self_attention(X + pos)[:, perm]| with pos = P[:T] (or 0)."""
    T = X.shape[1]
    pos = P[:T] if P is not None else 0.0
    first = self_attention(X[:, perm] + pos, Wq, Wk, Wv)[0]         # the sequence, as in the demo
    after = self_attention(X + pos, Wq, Wk, Wv)[0][perm]
    return float(np.max(np.abs(first - after)))
