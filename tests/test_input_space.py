"""The input space is declared once (autograder/hidden/space.py) and docs/contract.md's table is generated from it;
the hidden checks draw every value and every pair of it (issue 42)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from autograder.hidden import oracle
from autograder.hidden.space import BEGIN, END, STEP_WORDS, UNITS, table

from .conftest import REPO

pytestmark = pytest.mark.inprocess


def test_the_contracts_input_space_table_is_the_one_generated_from_the_space():
    text = (REPO / "docs" / "contract.md").read_text()
    assert BEGIN in text and END in text, "docs/contract.md has lost the markers of the generated table"
    written = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert written == table().strip(), (
        "docs/contract.md's input-space table differs from autograder/hidden/space.py: `python -m autograder build` "
        "(or `python -m autograder.devtools.doc_tables`) rewrites it"
    )


def test_every_unit_declares_types_ranks_layouts_and_every_stateful_unit_its_call_sequences():
    words = " ".join(d.says + " " + d.name for u in UNITS.values() for d in u.dims + u.invalid)
    for needed in (
        "dtype",
        "rank",
        "layout",
        "axis",
        "Python int",
        "NumPy integer scalar",
        "last id",
        "last position",
        "id 0",
    ):
        assert needed.lower() in words.lower(), needed
    for unit in UNITS.values():
        assert all(s in STEP_WORDS for s in unit.steps), unit.name
    stateful = [u for u in UNITS.values() if u.steps]
    assert {"step in place", "replace table", "backward again", "forward other shape"} <= set(stateful[0].steps)
    assert any("flag" in u.steps for u in stateful)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_grading_draws_every_value_and_every_pair_of_values_of_every_unit(seed, monkeypatch):
    """Valid inputs and invalid ones alike, and a unit of one dimension (no pairs) too: blind round 43's
    sinusoidal_table(3, 3.0) was drawn at one grading in three, the invalid sizes being one dimension."""
    monkeypatch.setenv("AUTOGRADER_SEED", str(seed))
    for name, unit in UNITS.items():
        for invalid, dims in ((False, unit.dims), (True, unit.invalid)):
            rows, _ = oracle.cases(name, invalid)
            for d in dims:
                missing = set(d.values) - {r[d.name] for r in rows}
                assert not missing, f"{name}: values of {d.name} never drawn: {sorted(missing, key=str)}"
            for a, b in itertools.combinations(dims, 2):
                met = {(r[a.name], r[b.name]) for r in rows}
                missing = {(x, y) for x in a.values for y in b.values} - met
                assert not missing, (
                    f"{name}: pairs of {a.name} and {b.name} never drawn: {sorted(missing, key=str)[:5]}"
                )


def test_the_covering_array_is_made_from_the_gradings_seed():
    one = oracle.covering(UNITS["softmax(x, axis)"].dims, np.random.default_rng(1))
    two = oracle.covering(UNITS["softmax(x, axis)"].dims, np.random.default_rng(2))
    assert one != two and one == oracle.covering(UNITS["softmax(x, axis)"].dims, np.random.default_rng(1))


def test_a_stale_cache_after_an_optimizer_step_is_shown_as_its_smallest_call_sequence():
    """A forward that keeps its output under the ids alone goes stale after P -= 0.5 * dP (in place): the failing
    call sequence is shrunk and told in the student's words, the mistake named only because it is verified."""
    from autograder.hidden.lesson05 import LayerMachine

    class Cached:
        def __init__(self, V, block_size, C, seed=42, freeze_positions=False):
            rng = np.random.default_rng(seed)
            self.E, self.P = rng.standard_normal((V, C)) * 0.02, rng.standard_normal((block_size, C)) * 0.02
            self.freeze_positions, self.cache, self.dE, self.dP, self.memo = freeze_positions, None, None, None, {}

        def forward(self, idx):
            key = idx.tobytes() + bytes(idx.shape)
            if key not in self.memo:
                self.memo[key] = self.E[idx] + self.P[: idx.shape[1]]
            self.cache = idx
            return self.memo[key].copy()

        def backward(self, dout):
            self.dE = np.zeros_like(self.E)
            np.add.at(self.dE, self.cache, dout)
            self.dP = np.zeros_like(self.P)
            if not self.freeze_positions:
                self.dP[: dout.shape[1]] = dout.sum(axis=0)

    with pytest.raises(oracle.Diagnosis) as caught:
        oracle.sequences(LayerMachine, "EmbeddingLayer(vocab_size, block_size, C)", Cached)
    d = caught.value
    assert d.misconception == "stale-state", d.message
    line = re.search(r"Smallest failing call sequence: .*", d.message, re.S).group(0)
    assert re.search(r"forward\(A\), .*(-= |= ).*forward\(A\)", line), line
    assert "your output is" in line and "the right output is" in line, line


def test_a_new_boundary_class_is_one_value_in_the_space(monkeypatch):
    """A made-up boundary class, a vocabulary past what a uint8 id holds (V = 300), is added as one value of the
    `V` dimension in space.UNITS and nowhere else: every grading then draws it paired with every other dimension's
    values, and a forward that holds its ids as uint8 (right on every vocabulary the space had) is caught."""
    import dataclasses

    from autograder.hidden import space
    from autograder.hidden.lesson02 import _embedding_trial

    class Uint8Ids:
        def __init__(self, vocab_size, C, seed=0):
            self.E, self.dE, self.cache = np.random.default_rng(seed).standard_normal((vocab_size, C)), None, None

        def forward(self, idx):
            idx = np.asarray(idx)
            if idx.dtype.kind not in "iu" or (idx.size and (idx.min() < 0 or idx.max() >= len(self.E))):
                raise IndexError("an id outside the vocabulary")
            self.cache = idx.astype(np.uint8)  # wrong past id 255
            return self.E[self.cache]

    name = "Embedding.forward(idx)"
    assert oracle.sweep(name, Uint8Ids, _embedding_trial, "forward") > 0  # right on the space as it was
    unit = UNITS[name]
    dims = tuple(dataclasses.replace(d, values=d.values + (300,)) if d.name == "V" else d for d in unit.dims)
    monkeypatch.setitem(space.UNITS, name, dataclasses.replace(unit, dims=dims))
    rows, _ = oracle.cases(name, part="forward")
    for other in (d for d in dims if d.name != "V" and (not d.parts or "forward" in d.parts)):
        assert {r[other.name] for r in rows if r["V"] == 300} == set(other.values), other.name
    with pytest.raises(oracle.Diagnosis) as caught:
        oracle.sweep(name, Uint8Ids, _embedding_trial, "forward")
    assert "vocab_size=300" in caught.value.message, caught.value.message


@pytest.mark.parametrize("seed", range(5))
def test_every_grading_meets_every_pair_of_steps_and_every_flag_switch_between_two_calls(seed):
    """Every ordered pair of a stateful unit's steps, and where it has a flag every ordered pair of calls with the flag
    switched between them, off to on and on to off (blind round 43's layer zeroing the dP it had handed out, in place,
    once frozen, kept full marks at half the gradings: the pairs were met, not that switch between two backwards)."""
    tables = {"Embedding.forward(idx)": ("E",), "EmbeddingLayer(vocab_size, block_size, C)": ("E", "P")}
    for name, unit in UNITS.items():
        if not unit.steps:
            continue
        steps = oracle.alphabet(unit.steps, tables.get(name, ("P",)))
        kinds = oracle.plans(np.random.default_rng(seed), steps)
        assert all(k[0] == "forward other shape" and len(k) <= oracle.SEQUENCE_LENGTH for k in kinds)
        pairs = set().union(*(oracle.met(k)[0] for k in kinds))
        assert pairs == {(a, b) for a in steps for b in steps}, name
        switches = set().union(*(oracle.met(k)[1] for k in kinds))
        calls = [s for s in steps if s != "flag"]
        want = {(a, on, b) for a in calls for b in calls for on in (True, False)} if "flag" in steps else set()
        assert switches == want, (name, sorted(want - switches, key=str)[:5])


def test_a_sequence_meets_a_flag_switch_only_between_two_calls():
    assert oracle.met(["forward other shape", "backward", "flag", "backward", "flag", "flag", "backward"]) == (
        {
            ("forward other shape", "backward"),
            ("backward", "flag"),
            ("flag", "backward"),
            ("flag", "flag"),
        },
        {("backward", True, "backward")},
    )
