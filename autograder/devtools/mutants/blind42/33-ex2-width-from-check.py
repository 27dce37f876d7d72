# notebook: 05_embedding_layer
# cell: ex2-freeze
# kind: wrong
# contract: practice exercise "what the freeze flag does" (worth 0 points); the notebook: "Build two layers with the same seed, block_size = 16 and the width of G"
# story: Copies the width 6 from the self-check's G instead of reading G.shape[-1] (and ignores seed). It passes its self-check; any G of another width crashes in backward (np.add.at cannot put (B, T, 4) into rows of width 6).
def freeze_effect(idx, G, seed=7):
    """Compare a layer frozen after construction with an unfrozen twin; return (dE_change, dP_max, P_moved)."""
    full = EmbeddingLayer(vocab_size, 16, 6)
    frozen = EmbeddingLayer(vocab_size, 16, 6)
    frozen.freeze_positions = True
    full.forward(idx)
    full.backward(G)
    frozen.forward(idx)
    frozen.backward(G)
    P_before = frozen.P.copy()
    frozen.P -= 0.1 * frozen.dP
    dE_change = np.max(np.abs(frozen.dE - full.dE))
    dP_max = np.max(np.abs(frozen.dP))
    P_moved = np.max(np.abs(frozen.P - P_before))
    return dE_change, dP_max, P_moved
