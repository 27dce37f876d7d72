# notebook: 01_why_position
# cell: permutation-gap
# kind: correct
# contract: style: the permutation as a (T, T) one-hot matrix applied with einsum on both sides (no fancy indexing of X), positions as an explicit zero array when P is None, the gap over the whole batch
# story: A student who followed the Pi X derivation in the notes and writes the shuffle as the matrix Pi.
def permutation_gap(X, perm, Wq, Wk, Wv, P=None):
    """max |self_attention(X[:, perm] + pos) - self_attention(X + pos)[:, perm]| with pos = P[:T] (or 0)."""
    B, T, C = X.shape
    Pi = np.zeros((T, T))
    Pi[np.arange(T), np.asarray(perm)] = 1.0          # (Pi @ seq)[t] = seq[perm[t]]
    pos = np.zeros((T, C)) if P is None else np.asarray(P)[:T]
    shuffled_in = np.einsum("ts,bsc->btc", Pi, X) + pos
    first = self_attention(shuffled_in, Wq, Wk, Wv)
    after = np.einsum("ts,bsh->bth", Pi, self_attention(X + pos, Wq, Wk, Wv))
    return float(np.abs(first - after).max())
