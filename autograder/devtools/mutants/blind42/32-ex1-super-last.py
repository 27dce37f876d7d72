# notebook: 05_embedding_layer
# cell: ex1-naive-scatter
# kind: wrong
# contract: practice exercise "why the duplicate-safe scatter matters" (worth 0 points): the variant's backward must compute dE the naive way, dE[idx] += dout, so its gradient check of dE fails while dP passes
# story: Writes the naive dE first and then calls super().backward(dout) "to get dP", which recomputes dE with np.add.at over the naive one; the experiment then shows dE passing (about 1e-10), the opposite of the point.
def naive_scatter_errors(idx, G, block_size=16):
    """Gradient-check a copy of the layer whose backward uses dE[idx] += dout; return (err_dE, err_dP)."""
    # Only dE breaks because dE is written through the ids, which repeat; dP is written by slot.
    class NaiveLayer(EmbeddingLayer):
        def forward(self, idx):
            self.last_idx = idx
            return super().forward(idx)

        def backward(self, dout):
            self.dE = np.zeros_like(self.E)
            self.dE[self.last_idx] += dout       # the naive scatter
            super().backward(dout)               # and dP from the real layer

    C = G.shape[-1]
    layer = NaiveLayer(vocab_size, block_size, C)
    layer.forward(idx)
    layer.backward(G)
    dE, dP = layer.dE.copy(), layer.dP.copy()
    loss = lambda: np.sum(layer.forward(idx) * G)  # noqa: E731
    return rel_error(dE, numerical_gradient(loss, layer.E)), rel_error(dP, numerical_gradient(loss, layer.P))
