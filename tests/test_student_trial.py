"""Issue 44's student trial, kept: mistakes a student makes, each through `check`, and what it must say.

Every case is a finished notebook with one unit replaced by a wrong solution (the classic ones and some a
student made on their own); the self-check rows must point at the line to change, charge one fault once,
and never promise marks.
"""

from __future__ import annotations

import nbformat
import pytest

from autograder.devtools.personas import filled_notebook
from autograder.student.selfcheck import all_graded_pass, format_rows, run_self_checks

from .conftest import REPO

LAYER = """class EmbeddingLayer:
    def __init__(self, vocab_size, block_size, C, seed=42, freeze_positions=False):
        self.vocab_size, self.block_size, self.C = vocab_size, block_size, C
        rng = np.random.default_rng(seed)
        self.E = rng.standard_normal((vocab_size, C)) * 0.02
        self.P = rng.standard_normal((block_size, C)) * 0.02
        self.freeze_positions = freeze_positions
        self.cache = None
        self.dE = self.dP = None

    def forward(self, idx):
        idx = np.asarray(idx)
        B, T = idx.shape
        if T > self.block_size:
            raise ValueError("too long")
        self.cache = (idx, T)
        return self.E[idx] + self.P[:T]

    def backward(self, dout):
        idx, T = self.cache
        self.dE = np.zeros_like(self.E)
        np.add.at(self.dE, idx, dout)
        self.dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            self.dP[:T] = dout.sum(axis=0)
"""


def checked(tmp_path, notebook, overrides):
    path = tmp_path / f"{notebook}.ipynb"
    nbformat.write(filled_notebook(REPO, notebook, overrides), str(path))
    rows = run_self_checks(path)
    return {r.check: r for r in rows}, format_rows(path, rows), all_graded_pass(rows)


def test_a_mistake_the_self_checks_miss_but_a_demo_shows_is_told_before_submitting(tmp_path):
    wrong = LAYER + "        if self.C == 8 and T == 5:\n            self.dP[:T] *= 1.01  # only the demo's sizes\n"
    rows, text, ok = checked(tmp_path, "05_embedding_layer", {"embedding-layer": wrong})
    assert all(r.passed for r in rows.values() if r.graded), text
    assert rows["demo-gradcheck"].demo and not rows["demo-gradcheck"].passed and "FAIL: dP" in text
    assert "warning: every self-check passes, but demo-gradcheck says FAIL" in text
    assert not ok  # check exits 1
    assert "points if the hidden" not in text and "25 points at stake" in text and "--thorough" in text


@pytest.mark.parametrize(
    "cell, wrong, row, words",
    [
        (  # a restore by arithmetic: exact for most x, not for entries far below eps
            "numerical-gradient",
            "def numerical_gradient(f, x, eps=1e-6):\n    grad = np.zeros(x.shape)\n    for i in np.ndindex(x.shape):\n"
            "        old = x[i]\n        x[i] = old + eps\n        plus = f()\n        x[i] = old - eps\n"
            "        minus = f()\n        x[i] += eps\n        grad[i] = (plus - minus) / (2 * eps)\n    return grad\n",
            "test-numerical-gradient-restore",
            "Diagnosis [no-restore]",
        ),
        (  # the whole array's largest difference over its largest size
            "rel-error",
            "def rel_error(a, b):\n    return float(np.max(np.abs(a - b)) / max(1e-12, np.max(np.abs(a) + np.abs(b))))\n",
            "test-rel-error",
            "taken over the whole array",
        ),
        (  # Python's max on an array, as the docstring reads
            "rel-error",
            "def rel_error(a, b):\n    return float(np.max(np.abs(a - b) / max(1e-12, np.abs(a) + np.abs(b))))\n",
            "test-rel-error",
            "np.maximum(a, b) for max",
        ),
    ],
)
def test_lesson_2_mistakes_are_told_where_they_are(tmp_path, cell, wrong, row, words):
    rows, text, _ = checked(tmp_path, "02_token_embeddings", {cell: wrong})
    assert not rows[row].passed and words in rows[row].message, text


def test_a_forward_that_hands_back_its_cached_output_is_told_stale_state(tmp_path):
    wrong = LAYER.replace(
        "        self.cache = (idx, T)\n        return self.E[idx] + self.P[:T]\n",
        "        if self.cache is not None and np.array_equal(self.cache[0], idx):\n            return self.out\n"
        "        self.cache = (idx, T)\n        self.out = self.E[idx] + self.P[:T]\n        return self.out\n",
    )
    rows, text, _ = checked(tmp_path, "05_embedding_layer", {"embedding-layer": wrong})
    assert rows["test-layer-forward"].message.startswith("Diagnosis [stale-state]"), text


def test_one_forward_mistake_is_told_in_full_once(tmp_path):
    wrong = LAYER.replace("return self.E[idx] + self.P[:T]", "return self.E[idx] + self.P[idx]")
    _, text, _ = checked(tmp_path, "05_embedding_layer", {"embedding-layer": wrong})
    assert text.count("Positions are looked up by slot t") == 1, text
    assert text.count("the same diagnosis as test-layer-forward above") >= 4, text


def test_a_fault_of_attention_is_not_charged_again_in_the_gap_cells(tmp_path):
    wrong = (
        "def self_attention(X, Wq, Wk, Wv):\n    Q, K, V = X @ Wq, X @ Wk, X @ Wv\n"
        "    scores = Q @ K.swapaxes(-1, -2) / np.sqrt(Wq.shape[1]) + 0.1 * np.arange(X.shape[1])  # a bias by slot\n"
        "    return softmax(scores, axis=-1) @ V\n"
    )
    rows, text, _ = checked(tmp_path, "01_why_position", {"self-attention": wrong})
    assert not rows["test-attention-values"].passed, text
    assert rows["test-permutation-gap-no-pos"].passed and rows["test-permutation-gap-with-pos"].passed, text


def test_practice_messages_point_at_the_exercise_when_the_layer_is_right(tmp_path):
    ex2 = (
        "def freeze_effect(idx, G, seed=7):\n    full = EmbeddingLayer(vocab_size, 16, G.shape[-1], seed=seed)\n"
        "    frozen = EmbeddingLayer(vocab_size, 16, G.shape[-1], seed=seed)\n    frozen.freeze_positions = True\n"
        "    for layer in (full, frozen):\n        layer.forward(idx)\n        layer.backward(G)\n"
        "    return 0.0, float(np.abs(full.dP).max()), 0.0  # the unfrozen layer's dP, by mistake\n"
    )
    ex3 = (
        "def rows_with_gradient(T, B=2, block_size=32, C=16):\n    layer = EmbeddingLayer(vocab_size, block_size, C)\n"
        "    layer.forward(data[:B * T].reshape(B, T))\n"
        "    layer.backward(np.random.default_rng(0).standard_normal((B, T, C)))\n"
        "    return int(np.count_nonzero(layer.dP))  # entries, not rows\n"
    )
    rows, text, _ = checked(tmp_path, "05_embedding_layer", {"ex2-freeze": ex2, "ex3-full-length": ex3})
    assert "the difference is in freeze_effect" in rows["ex2-check"].message, text
    assert "the count in rows_with_gradient is what to change" in rows["ex3-check"].message, text
    assert "np.zeros_like(self.P)" not in rows["ex3-check"].message  # the backward was right
