"""The smallest failing case: a wrong answer outside the catalogue is shown on a case small enough to work by hand.

In-process through the checker's ``run_check`` (the grading process's own entry to the hidden checks), on bugs
that are in no catalogue: each must end its diagnosis with a ``Smallest failing case:`` line whose sizes are all
<= 3 (where the bug allows), whose right result is the reference solution's on that case and whose "your" result
is what the buggy code returns on it.  One real-kernel test shows the line reaching ``check --thorough``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import nbformat
import numpy as np
import pytest

from autograder.devtools.mutants import Mutant, catalogue
from autograder.devtools.mutants.inprocess import load
from autograder.devtools.personas import filled_notebook
from autograder.grading import shrink
from autograder.grading.checker import run_check
from autograder.hidden.cases import SPACES, Space, show

from .conftest import REPO, kit

# the notebooks' demo cells run as load() executes them, on the buggy code (a rel_error without its floor divides 0/0)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")

L1, L2, L3, L4, L5 = (
    "01_why_position",
    "02_token_embeddings",
    "03_sinusoidal",
    "04_learned_positions",
    "05_embedding_layer",
)


def _softmax(ns, c):
    x = c["x"].copy()
    return ns["softmax"](x) if c["axis"] is None else ns["softmax"](x, axis=c["axis"])


def _embedding_dE(ns, c):
    emb = ns["Embedding"](c["V"], c["C"])
    emb.forward(c["idx"].copy())
    emb.backward(c["dout"].copy())
    return emb.dE


def _positional_dP(ns, c):
    pe = ns["PositionalEmbedding"](c["block_size"], c["C"])
    pe.forward(c["x"].copy())
    pe.backward(c["dout"].copy())
    return pe.dP


def _positional_dx(ns, c):
    pe = ns["PositionalEmbedding"](c["block_size"], c["C"])
    pe.forward(c["x"].copy())
    return pe.backward(c["dout"].copy())


def _positional_forward(ns, c):
    pe = ns["PositionalEmbedding"](c["block_size"], c["C"])
    pe.P = c["P"].copy()
    return pe.forward(c["x"].copy())


def _layer_gradient(name):
    def run(ns, c):
        layer = ns["EmbeddingLayer"](c["V"], c["block_size"], c["C"])
        layer.forward(c["idx"].copy())
        layer.backward(c["dout"].copy())
        return getattr(layer, name)

    return run


def _layer_forward(ns, c):
    layer = ns["EmbeddingLayer"](c["V"], c["block_size"], c["C"])
    layer.E, layer.P = c["E"].copy(), c["P"].copy()
    return layer.forward(c["idx"].copy())


# (bug outside the catalogue, the check that meets it, how to run a case on a notebook's namespace)
BUGS = [
    (
        Mutant(
            "softmax-max-of-last-axis",
            L1,
            "softmax",
            None,
            replace=(
                (
                    "shifted = x - np.max(x, axis=axis, keepdims=True)",
                    "shifted = x - np.max(x, axis=-1, keepdims=True)",
                ),
            ),
        ),
        "lesson01",
        "softmax_values",
        _softmax,
    ),
    (
        Mutant(
            "softmax-sum-unshifted",
            L1,
            "softmax",
            None,  # "scaled" by a factor with no name: searched too
            replace=(
                (
                    "return e / np.sum(e, axis=axis, keepdims=True)",
                    "return e / np.sum(np.exp(x), axis=axis, keepdims=True)",
                ),
            ),
        ),
        "lesson01",
        "softmax_values",
        _softmax,
    ),
    (
        Mutant(
            "attention-adds-V", L1, "self-attention", None, replace=(("return weights @ V", "return weights @ V + V"),)
        ),
        "lesson01",
        "attention_values",
        lambda ns, c: ns["self_attention"](c["X"], c["Wq"], c["Wk"], c["Wv"]),
    ),
    (
        Mutant(
            "dE-first-sequence",
            L2,
            "embedding",
            None,
            replace=(("np.add.at(self.dE, idx, dout)", "np.add.at(self.dE, idx[0], dout[0])"),),
        ),
        "lesson02",
        "embedding_backward",
        _embedding_dE,
    ),
    (
        Mutant(
            "rel-error-without-floor",
            L2,
            "rel-error",
            None,
            replace=(("np.maximum(1e-12, np.abs(a) + np.abs(b))", "(np.abs(a) + np.abs(b))"),),
        ),
        "lesson02",
        "rel_error_values",
        lambda ns, c: ns["rel_error"](c["a"].copy(), c["b"].copy()),
    ),
    (
        Mutant(
            "returns-the-batch-sum",
            L4,
            "positional-embedding",
            None,
            replace=(("        return dout", "        return dout.sum(axis=0, keepdims=True)"),),
        ),
        "lesson04",
        "positional_backward_dx",
        _positional_dx,
    ),
    (
        Mutant(
            "frequency-over-C-minus-1",
            L3,
            "sinusoidal-table",
            None,
            replace=(("angle = pos / base ** (two_i / C)", "angle = pos / base ** (two_i / (C - 1))"),),
        ),
        "lesson03",
        "table_odd_values",
        lambda ns, c: ns["sinusoidal_table"](c["T"], c["C"]),
    ),
    (
        Mutant(
            "dP-summed-over-C-too",
            L4,
            "positional-embedding",
            None,
            replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = dout.sum(axis=(0, 2))[:, None]"),),
        ),
        "lesson04",
        "positional_backward_dP",
        _positional_dP,
    ),
    (
        Mutant(
            "positions-accumulated",
            L4,
            "positional-embedding",
            None,
            replace=(("return x + self.P[:T]", "return x + self.P[:T].cumsum(axis=0)"),),
        ),
        "lesson04",
        "positional_forward",
        _positional_forward,
    ),
    (
        Mutant(
            "dP-summed-over-C-too",
            L5,
            "embedding-layer",
            None,
            replace=(("self.dP[:T] = dout.sum(axis=0)", "self.dP[:T] = dout.sum(axis=(0, 2))[:, None]"),),
        ),
        "lesson05",
        "layer_backward_dP",
        _layer_gradient("dP"),
    ),
    (
        Mutant(
            "dE-first-sequence",
            L5,
            "embedding-layer",
            None,
            replace=(("np.add.at(self.dE, idx, dout)", "np.add.at(self.dE, idx[0], dout[0])"),),
        ),
        "lesson05",
        "layer_backward_dE",
        _layer_gradient("dE"),
    ),
    (
        Mutant(
            "positions-accumulated",
            L5,
            "embedding-layer",
            None,
            replace=(("return self.E[idx] + self.P[:T]", "return self.E[idx] + self.P[:T].cumsum(axis=0)"),),
        ),
        "lesson05",
        "layer_forward",
        _layer_forward,
    ),
]


LAYER_DP = next(b for b in BUGS if b[2] == "layer_backward_dP")  # the README's example


def _names(module, check, ns, tests):
    """The check's arguments from the namespace, as the notebook's hidden test cell names them."""
    for _, calls in tests:
        for mod, function, names in calls:
            if (mod, function) == (module, check):
                return [ns[n] for n in names]
    raise AssertionError(f"no hidden call {module}.{check}")


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_SEED", "7")


@pytest.mark.parametrize("bug, module, check, replay", BUGS, ids=[f"{b[0].notebook[:2]}-{b[0].name}" for b in BUGS])
def test_a_bug_outside_the_catalogue_is_shown_on_a_small_case(bug, module, check, replay):
    ns, tests = load(bug.notebook, bug)
    reference, _ = load(bug.notebook)
    student = _names(module, check, ns, tests)

    diagnosis, message = run_check(module, check, student)

    assert shrink.searched(diagnosis, message), (diagnosis, message)
    *drawn, line = message.splitlines()
    assert drawn and line.startswith("Smallest failing case: "), message
    case, outcome = shrink.search(module, check, student, diagnosis, message.splitlines()[0])
    assert outcome.line() == line  # the same search, the same case: deterministic
    assert shrink.largest_size(case) <= 3, line  # every size small enough to work by hand
    assert outcome.diagnosis.misconception == diagnosis  # it fails the same way
    with np.errstate(all="ignore"):
        want, got = replay(reference, case), replay(ns, case)
    np.testing.assert_allclose(outcome.want, want, rtol=1e-12, atol=1e-12)  # the reference solution's answer
    np.testing.assert_array_equal(np.asarray(outcome.got), np.asarray(got))  # what the buggy code returns
    assert f"your {outcome.name} is {show(got)}; the right {outcome.name} is {show(want)}." in line
    assert all(
        f"{k}={v}" in line or show(v) in line
        for k, v in case.items()
        if k not in ("axis", "base", "T", "layout", "before")
    )


def test_the_line_is_one_line_written_out_whole():
    bug, module, check, _ = LAYER_DP
    ns, tests = load(bug.notebook, bug)
    line = run_check(module, check, _names(module, check, ns, tests))[1].splitlines()[-1]
    # e.g. EmbeddingLayer(vocab_size=1, block_size=1, C=2), forward([[0]]), backward([[[0.0, 1.0]]]): your dP is
    # [[1.0, 1.0]]; the right dP is [[0.0, 1.0]].
    assert re.fullmatch(
        r"Smallest failing case: EmbeddingLayer\(vocab_size=\d, block_size=\d, C=\d\), "
        r"forward\(\[\[.*\]\]\), "
        r"backward\(\[\[\[.*\]\]\]\): your dP is \[\[.*\]\]; the right dP is \[\[.*\]\]\.",
        line,
    ), line
    assert "..." not in line and "\n" not in line


def _spy_on_the_searches(monkeypatch) -> list:
    """Every case a search runs on student code, recorded."""
    ran = []
    for key, space in list(SPACES.items()):

        def run(student, case, space=space, key=key):
            ran.append(key)
            return space.run(student, case)

        monkeypatch.setitem(SPACES, key, Space(space.cases, run))
    return ran


def test_a_correct_solution_never_searches(monkeypatch):
    searched = _spy_on_the_searches(monkeypatch)
    from autograder.course import NOTEBOOKS

    for name in NOTEBOOKS:
        ns, tests = load(name)
        for _, calls in tests:
            for module, function, names in calls:
                assert run_check(module, function, [ns[n] for n in names]) is None, (name, function)
    assert searched == []


def test_grading_a_correct_notebook_does_not_even_load_hypothesis():
    """What a correct solution costs is unchanged: the search, and Hypothesis, are loaded only after a failure."""
    code = (
        "import sys; from autograder.devtools.mutants.inprocess import load; "
        "from autograder.grading.checker import run_check; ns, tests = load('05_embedding_layer'); "
        "verdicts = [run_check(m, f, [ns[n] for n in names]) for _, calls in tests for m, f, names in calls]; "
        "print(set(verdicts), 'hypothesis' in sys.modules, 'autograder.hidden.cases' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO, check=False
    )
    assert result.stdout.split() == ["{None}", "False", "False"], result.stdout + result.stderr


CATALOGUED = [
    "l5-dP-not-summed",
    "l5-scatter-overwrite",
    "l4-dP-tail-resized",
    "l5-dP-mean",
    "sin-cos-swap",
    "freq-sign",
]


@pytest.mark.parametrize("name", CATALOGUED)
def test_a_catalogued_mistake_or_a_named_relationship_does_not_search(name, monkeypatch):
    mutant = next(m for m in catalogue()[0] if m.name == name)
    searched = _spy_on_the_searches(monkeypatch)
    ns, tests = load(mutant.notebook, mutant)
    found = set()
    for _, calls in tests:
        for module, function, names in calls:
            result = run_check(module, function, [ns[n] for n in names])
            if result:
                found.add(result[0])
                assert "Smallest failing case" not in result[1]
    assert mutant.expects in found and searched == []


def test_only_checks_with_a_case_space_and_generic_ids_search():
    assert {"wrong-value", "wrong-gradient", "wrong-shape", "crashed", "side-effect"} == shrink.SEARCHED
    for module, check in SPACES:
        assert callable(getattr(__import__(f"autograder.hidden.{module}", fromlist=[check]), check))
    assert shrink.smallest_failing_case("lesson05", "layer_backward_dP", [], "dP-not-summed") is None
    assert shrink.smallest_failing_case("lesson05", "layer_too_long", [], "wrong-value") is None


def _counting(delay=0.0):
    """The lesson-5 dP bug, counting its backward calls (and taking ``delay`` seconds for each)."""
    bug, module, check, _ = LAYER_DP
    ns, _ = load(bug.notebook, bug)
    base, calls = ns["EmbeddingLayer"], []

    class Counting(base):
        def backward(self, dout):
            calls.append(1)
            time.sleep(delay)
            return base.backward(self, dout)

    return module, check, Counting, calls


def test_the_search_is_bounded_by_cases_and_by_time():
    module, check, layer, calls = _counting()
    found = shrink.search(module, check, [layer], "wrong-gradient", max_cases=4)
    assert 0 < len(calls) <= 4 * 2  # a case runs backward at most twice (with the scatter probe)
    assert found is None or shrink.largest_size(found[0]) <= 3  # cut short: shown only when already small
    calls.clear()
    assert shrink.search(module, check, [layer], "wrong-gradient") and len(calls) > 8  # unbounded, it goes on

    module, check, layer, calls = _counting(delay=0.05)
    start = time.monotonic()
    found = shrink.search(module, check, [layer], "wrong-gradient", seconds=0.3)
    assert time.monotonic() - start < 0.3 + 1.0  # the budget, and the one case running when it ran out
    assert found is None or shrink.largest_size(found[0]) <= 3  # cut short: shown only when already small


def test_the_search_is_the_same_for_the_same_grading_seed(monkeypatch):
    module, check, layer, _ = _counting()
    first = shrink.smallest_failing_case(module, check, [layer], "wrong-gradient")
    assert first and first == shrink.smallest_failing_case(module, check, [layer], "wrong-gradient")


def test_check_thorough_shows_the_smallest_failing_case_from_a_real_kernel(tmp_path):
    """Real nbgrader, a real (sandboxed when possible) kernel, the checks outside it over the channel."""
    bug = LAYER_DP[0]
    nb = filled_notebook(REPO, bug.notebook)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == bug.cell:
            cell.source = bug.cell_source(cell.source)
    path = tmp_path / f"{bug.notebook}.ipynb"
    nbformat.write(nb, str(path))

    result = kit("check", "--thorough", str(path), check=False)

    assert result.returncode == 1, result.stdout + result.stderr
    row = re.search(
        r"test-layer-backward-dP\s+0/\d+\s+FAIL\s+Diagnosis \[wrong-gradient\]: (.*?)\n(?=\S)", result.stdout, re.DOTALL
    )
    assert row, result.stdout
    assert re.search(
        r"Smallest failing case: EmbeddingLayer\(vocab_size=1, block_size=1, C=2\), forward\(\[\[0\]\]\), "
        r"backward\(\[\[\[[-0-9.]+, [-0-9.]+\]\]\]\): your dP is \[\[.*\]\]; the right dP is \[\[.*\]\]\.",
        row.group(1),
    ), row.group(1)


def test_the_examples_in_the_readme_and_the_student_guide_are_what_these_bugs_get():
    shown = {
        line.strip()
        for page in ("README.md", "docs/students.md")
        for line in (REPO / page).read_text(encoding="utf-8").splitlines()
        if line.startswith("Smallest failing case:")
    }
    produced = set()
    for bug, module, check, _ in BUGS:
        ns, tests = load(bug.notebook, bug)
        produced.add(run_check(module, check, _names(module, check, ns, tests))[1].splitlines()[-1])
    assert len(shown) >= 5 and shown <= produced, shown - produced


def test_the_search_writes_nothing_where_it_runs(tmp_path, monkeypatch):
    """Grading runs in a student's folder: Hypothesis's cache (.hypothesis/) must not land there."""
    monkeypatch.chdir(tmp_path)
    module, check, layer, _ = _counting()
    assert shrink.smallest_failing_case(module, check, [layer], "wrong-gradient")
    assert list(tmp_path.iterdir()) == []


def test_a_search_that_meets_hostile_code_adds_nothing_and_changes_no_verdict():
    """Student code that exits, misbehaves or raises on small inputs gets the drawn case's diagnosis as it is, and
    the line only for a case that fails the same way."""
    bug, module, check, _ = LAYER_DP
    ns, _ = load(bug.notebook, bug)
    base = ns["EmbeddingLayer"]

    class Exits(base):
        def forward(self, idx):
            if np.asarray(idx).size < 4:
                raise SystemExit("small inputs are beneath me")
            return base.forward(self, idx)

    class Weird(base):
        def backward(self, dout):
            base.backward(self, dout)
            if dout.size < 4:
                self.dP = object()

    class Hostile(base):
        def backward(self, dout):
            base.backward(self, dout)
            if np.all(dout == np.round(dout)):  # every case of the search (its numbers are whole), none drawn
                raise KeyError(object())  # not even the kind of error the check expects

    for student in (Exits, Weird, Hostile):
        diagnosis, message = run_check(module, check, [student])
        assert diagnosis == "wrong-gradient" and message.startswith("dP fails the gradient check"), message
    assert "Smallest failing case" not in message  # Hostile: no small case fails the same way
