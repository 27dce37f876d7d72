# notebook: 01_why_position
# cell: permutation-gap
# kind: correct
# contract: unusual style: the shuffle is written as a one-hot permutation matrix Pi = np.eye(T)[perm] applied with a broadcast matmul (Pi @ X, Pi @ out), the lesson's own algebra, instead of fancy indexing X[:, perm]; works for every integer dtype of perm.
# story: The student followed the markdown's proof (f(Pi X) = Pi f(X)) literally and built the permutation matrix; a one-hot matmul only adds exact zeros, so the values are the same as indexing.
def permutation_gap(X, perm, Wq, Wk, Wv, P=None):
    """max |self_attention(X[:, perm] + pos) - self_attention(X + pos)[:, perm]| with pos = P[:T] (or 0)."""
    T = X.shape[1]
    Pi = np.eye(T)[np.asarray(perm)]          # row t of Pi is one-hot at perm[t]: (Pi @ X[b])[t] = X[b, perm[t]]
    pos = 0.0 if P is None else P[:T]
    first = self_attention(Pi @ X + pos, Wq, Wk, Wv)      # Pi (T, T) broadcasts over the batch
    after = Pi @ self_attention(X + pos, Wq, Wk, Wv)
    return float(np.abs(first - after).max())
