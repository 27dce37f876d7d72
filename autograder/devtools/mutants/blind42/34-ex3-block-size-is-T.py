# notebook: 05_embedding_layer
# cell: ex3-full-length
# kind: wrong
# contract: practice exercise "how a full-length sequence fills every row of dP" (worth 0 points); the notebook: embed the sequences "in a fresh EmbeddingLayer(vocab_size, block_size=32, C=16)" (the block_size argument); EmbeddingLayer: "a T longer than block_size raises ValueError"
# story: Builds the layer with block_size=T ("just big enough"), ignoring the block_size argument. The counts 16 and 32 still come out, but the experiment no longer has unused rows, and rows_with_gradient(40) returns 40 where a 32-row table must refuse the sequence.
def rows_with_gradient(T, B=2, block_size=32, C=16):
    """Embed B sequences of T corpus ids in a fresh layer, backpropagate a random dout; count the nonzero rows of dP."""
    layer = EmbeddingLayer(vocab_size, block_size=T, C=C)
    ids = data[:B * T].reshape(B, T)
    layer.forward(ids)
    layer.backward(np.random.default_rng(T).standard_normal((B, T, C)))
    return int(np.sum(np.any(layer.dP != 0, axis=1)))
