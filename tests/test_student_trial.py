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


# ---------------------------------------------------------------- the second trial (at a04087e): 56 wrong versions
# Each case below is a wrong solution from that trial whose message was false or gave no fix.


def softmax_of(*lines):
    return "def softmax(x, axis=-1):\n" + "".join(f"    {line}\n" for line in lines)


def test_a_coincidence_of_one_small_example_is_not_named_as_a_shift(tmp_path):
    # the max over axis -1, the sum over `axis`: on the (2, 3) example column k happens to hold column k + 1's values
    wrong = softmax_of(
        "e = np.exp(x - np.max(x, axis=-1, keepdims=True))", "return e / np.sum(e, axis=axis, keepdims=True)"
    )
    rows, text, _ = checked(tmp_path, "01_why_position", {"softmax": wrong})
    message = rows["test-softmax-values"].message
    assert not rows["test-softmax-values"].passed and "shifted" not in message, text
    assert "the max and the sum" in message, text  # the hint names the two reductions


def test_a_softmax_that_subtracts_a_max_without_keepdims_is_not_told_it_subtracts_none(tmp_path):
    wrong = softmax_of("e = np.exp(x - np.max(x, axis=axis))", "return e / np.sum(e, axis=axis, keepdims=True)")
    rows, text, _ = checked(tmp_path, "01_why_position", {"softmax": wrong})
    assert "keepdims=True" in rows["test-softmax-values"].message, text  # the crash names the fix
    stable = rows["test-softmax-stable"].message
    assert not rows["test-softmax-stable"].passed and "softmax-unstable" not in stable, text
    assert "keepdims=True" in stable, text
    for row in ("test-attention-values", "test-attention-scaling", "test-permutation-gap-no-pos"):
        assert "softmax" in rows[row].message.splitlines()[0], text  # the crash is softmax's, not the caller's
        assert "self_attention: your code raised" not in rows[row].message, text


def test_one_global_max_is_told_as_underflow_not_as_a_missing_max(tmp_path):
    wrong = softmax_of("e = np.exp(x - x.max())", "return e / np.sum(e, axis=axis, keepdims=True)")
    rows, text, _ = checked(tmp_path, "01_why_position", {"softmax": wrong})
    first = rows["test-softmax-stable"].message.splitlines()[0]
    # the grader names it softmax-unstable too (one voice): the headline itself must fit a max of the whole array
    assert "underflows" in first and "the max of each slice" in first, text
    assert "one max of the whole array" in rows["test-softmax-stable"].message, text


def test_a_softmax_with_no_max_is_still_told_unstable(tmp_path):
    wrong = softmax_of("e = np.exp(x)", "return e / np.sum(e, axis=axis, keepdims=True)")
    rows, text, _ = checked(tmp_path, "01_why_position", {"softmax": wrong})
    assert rows["test-softmax-stable"].message.startswith("Diagnosis [softmax-unstable]"), text
    assert text.count("exp(1000)") == 1, text  # said once, in the fix (the trial saw it in the detail and the fix)


def test_an_all_zero_numerical_gradient_is_not_told_one_value_per_row(tmp_path):
    wrong = (
        "def numerical_gradient(f, x, eps=1e-6):\n    grad = np.zeros(x.size)\n    flat = x.flatten()\n"
        "    for i in range(flat.size):\n        old = flat[i]\n        flat[i] = old + eps\n        fp = f()\n"
        "        flat[i] = old - eps\n        fm = f()\n        flat[i] = old\n        grad[i] = (fp - fm) / (2 * eps)\n"
        "    return grad.reshape(x.shape)\n"
    )
    rows, text, _ = checked(tmp_path, "02_token_embeddings", {"numerical-gradient": wrong})
    message = rows["test-numerical-gradient"].message
    assert "one value per row" not in message and "copy" in message, text


def test_k_dot_t_on_a_3d_array_gets_its_fix(tmp_path):
    wrong = (
        "def self_attention(X, Wq, Wk, Wv):\n    Q, K, V = X @ Wq, X @ Wk, X @ Wv\n"
        "    return softmax(Q @ K.T / np.sqrt(Wq.shape[1]), axis=-1) @ V\n"
    )
    rows, text, _ = checked(tmp_path, "01_why_position", {"self-attention": wrong})
    assert not rows["test-attention-values"].passed, text
    for row in ("test-attention-values", "test-attention-scaling"):
        assert "swapaxes(-1, -2)" in rows[row].message, text


def test_an_odd_slice_assignment_gets_its_fix(tmp_path):
    wrong = (
        "def sinusoidal_table(T, C, base=10000.0):\n    pos = np.arange(T)[:, None]\n"
        "    i = np.arange(0, C, 2)\n    ang = pos / base ** (i / C)\n    pe = np.zeros((T, C))\n"
        "    pe[:, 0::2] = np.sin(ang)\n    pe[:, 1::2] = np.cos(ang)\n    return pe\n"
    )
    rows, text, _ = checked(tmp_path, "03_sinusoidal", {"sinusoidal-table": wrong})
    crashed = [r for r in rows.values() if "could not broadcast input array" in r.message]
    assert crashed and all("the slice" in r.message for r in crashed), text


def test_an_in_place_add_in_permutation_gap_is_told_as_a_side_effect(tmp_path):
    wrong = (
        "def permutation_gap(X, perm, Wq, Wk, Wv, P=None):\n    T = X.shape[1]\n"
        "    if P is not None:\n        X += P[:T]\n"
        "    first = self_attention(X[:, perm], Wq, Wk, Wv)\n    after = self_attention(X, Wq, Wk, Wv)[:, perm]\n"
        "    return float(np.max(np.abs(first - after)))\n"
    )
    rows, text, _ = checked(tmp_path, "01_why_position", {"permutation-gap": wrong})
    assert "side-effect" in rows["test-permutation-gap-with-pos"].message, text


def test_a_naive_experiment_on_top_of_the_right_gradient_does_not_pass_exercise_1(tmp_path):
    wrong = (
        "def naive_scatter_errors(idx, G, block_size=16):\n"
        "    class Naive(EmbeddingLayer):\n        def forward(self, idx):\n            self.idx = idx\n"
        "            return super().forward(idx)\n\n        def backward(self, dout):\n"
        "            super().backward(dout)\n            self.dE[self.idx] += dout  # on top, no reset\n\n"
        "    layer = Naive(vocab_size, block_size, G.shape[-1])\n    layer.forward(idx)\n    layer.backward(G)\n"
        "    loss = lambda: np.sum(layer.forward(idx) * G)  # noqa: E731\n"
        "    return slope_error(loss, layer.E, layer.dE), slope_error(loss, layer.P, layer.dP)\n"
    )
    rows, text, _ = checked(tmp_path, "05_embedding_layer", {"ex1-naive-scatter": wrong})
    assert not rows["ex1-check"].passed and "naive_scatter_errors" in rows["ex1-check"].message, text


def test_a_crashing_demo_is_shown_like_one_that_says_fail(tmp_path):
    from autograder.devtools.personas import reference_solutions

    right = reference_solutions(REPO, "04_learned_positions")["positional-embedding"]
    wrong = right.replace("return dout", "pass  # returns None: the demo's chain rule crashes")
    assert wrong != right
    rows, text, ok = checked(tmp_path, "04_learned_positions", {"positional-embedding": wrong})
    assert rows["demo-gradcheck"].demo and not rows["demo-gradcheck"].passed, text
    assert "TypeError" in rows["demo-gradcheck"].message and not ok, text


def test_hints_write_arrays_with_commas_and_a_scalar_without_an_index(tmp_path):
    wrong = softmax_of(
        "e = np.exp(x - np.max(x, axis=-1, keepdims=True))", "return e / np.sum(e, axis=axis, keepdims=True)"
    )
    _, text, _ = checked(tmp_path, "01_why_position", {"softmax": wrong})
    assert "[0.2689 0.7311]" not in text and "[0.7311 0.2689]" not in text
    gap = (
        "def permutation_gap(X, perm, Wq, Wk, Wv, P=None):\n    T = X.shape[1]\n    pos = 0.0 if P is None else P[:T]\n"
        "    first = self_attention(X[:, perm] + pos, Wq, Wk, Wv)\n    after = self_attention(X + pos, Wq, Wk, Wv)\n"
        "    return float(np.max(np.abs(first - after)))\n"
    )
    _, text, _ = checked(tmp_path, "01_why_position", {"permutation-gap": gap})
    assert "at []" not in text, text


def test_two_gradients_that_accumulate_are_both_named_and_not_folded_under_one(tmp_path):
    wrong = LAYER
    for grad, table in (("dE", "E"), ("dP", "P")):  # zeroed once, on the first call only
        zeros = f"        self.{grad} = np.zeros_like(self.{table})\n"
        wrong = wrong.replace(zeros, f"        if self.{grad} is None:\n    " + zeros)
    wrong = wrong.replace("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] += dout.sum(axis=0)")
    rows, text, _ = checked(tmp_path, "05_embedding_layer", {"embedding-layer": wrong})
    fresh = rows["test-layer-backward-fresh"].message
    assert "dE" in fresh and "dP" in fresh, text
    assert "fixes this row too" not in text, text


def test_one_table_mistake_met_by_two_sizes_is_told_in_full_once(tmp_path):
    from autograder.devtools.personas import reference_solutions

    right = reference_solutions(REPO, "03_sinusoidal")["sinusoidal-table"]
    wrong = right.replace("= np.sin(angle)", "= np.COS(angle)").replace("= np.cos(angle", "= np.sin(angle")
    wrong = wrong.replace("np.COS", "np.cos")  # sines and cosines swapped
    assert wrong != right
    rows, text, _ = checked(tmp_path, "03_sinusoidal", {"sinusoidal-table": wrong})
    odd = next(line for line in text.splitlines() if line.startswith("test-table-odd"))
    assert "the same diagnosis as test-table-even above" in odd, text


def test_a_crash_in_forward_met_by_the_backward_check_points_at_forward(tmp_path):
    from autograder.devtools.personas import reference_solutions

    right = reference_solutions(REPO, "04_learned_positions")["positional-embedding"]
    wrong = right.replace("T > self.block_size", "T >= self.block_size")  # a full window refused
    assert wrong != right
    rows, text, _ = checked(tmp_path, "04_learned_positions", {"positional-embedding": wrong})
    assert "the line to change is in PositionalEmbedding.forward" in rows["test-pos-backward"].message, text


def test_a_gradient_check_that_measured_nan_does_not_blame_the_gradient(tmp_path):
    wrong = (
        "def rel_error(a, b):\n    return float(np.max(np.abs(a - b) / (np.abs(a) + np.abs(b))))  # no floor: 0 / 0\n"
    )
    rows, text, _ = checked(tmp_path, "02_token_embeddings", {"rel-error": wrong})
    demos = [r for r in rows.values() if r.demo]
    assert demos and all("above the bar" not in r.message and "says nothing yet about" in r.message for r in demos), (
        text
    )


def test_a_softmax_summed_over_the_whole_array_is_not_charged_to_attention(tmp_path):
    wrong = softmax_of("e = np.exp(x - np.max(x, axis=axis, keepdims=True))", "return e / e.sum()")
    rows, text, _ = checked(tmp_path, "01_why_position", {"softmax": wrong})
    scaling = rows["test-attention-scaling"].message
    assert "a mean where a sum belongs" not in scaling and "softmax" in scaling.splitlines()[0], text
