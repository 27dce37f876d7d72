"""Hidden checks give every submission the same verdict whatever cases they draw.

Cases are drawn from fresh entropy at grading time, so a solution fitted to the visible examples
fails; but a given submission must get the same score on every run (a class graded twice, or with
more workers, gets exactly the same grades), and a mutant is named by its misconception whatever
the cases. This runs each check of each catalogued mutant and alternative in-process over many seeds
and requires one verdict per (submission, check), and the mutant's diagnosis on every seed.
"""

from __future__ import annotations

import os

import pytest

from autograder.devtools.mutants import Mutant, blind, catalogue
from autograder.devtools.mutants.inprocess import load, run_checks
from autograder.hidden.diagnostics import Diagnosis

SEEDS = range(25)
MUTANTS, ALTERNATIVES = catalogue()


@pytest.mark.parametrize("mutant", MUTANTS + ALTERNATIVES, ids=lambda m: m.name)
def test_one_verdict_per_check_whatever_the_seed(mutant):
    ns, tests = load(mutant.notebook, mutant)
    found: dict[str, set] = {}
    undiagnosed = []  # seeds whose cases no check named the mutant's misconception on
    first = None
    for seed in SEEDS:
        outcomes = run_checks(ns, tests, seed)
        changed = first is not None and {k: v == "pass" for k, v in outcomes.items()} != first
        if changed or (mutant.expects is not None and mutant.expects not in outcomes.values()):
            # a grading is one fresh kernel: what an earlier seed's checks left in the student's module state (a
            # memo filled by other calls) is not this grading's, so the seed is run again in a namespace of its own
            outcomes = run_checks(load(mutant.notebook, mutant)[0], tests, seed)
        first = first or {k: v == "pass" for k, v in outcomes.items()}
        for test, outcome in outcomes.items():
            found.setdefault(test, set()).add(outcome)
        if mutant.expects is not None and mutant.expects not in outcomes.values():
            undiagnosed.append((seed, sorted(set(outcomes.values()))))
    flaky = {test: sorted(o) for test, o in found.items() if len({x == "pass" for x in o}) > 1}
    assert not flaky, f"{mutant.name}: pass/fail depends on the drawn cases: {flaky}"
    if mutant.expects is None:
        assert all(o == {"pass"} for o in found.values()), found
    else:
        assert not undiagnosed, f"{mutant.name}: not named {mutant.expects} on (seed, diagnoses) {undiagnosed[:5]}"


def test_reference_passes_every_check_on_every_seed():
    from autograder.course import NOTEBOOKS

    for name in NOTEBOOKS:
        ns, tests = load(name)
        for seed in range(50):
            outcome = run_checks(ns, tests, seed)
            assert set(outcome.values()) == {"pass"}, (name, seed, outcome)


CACHES = [m for m in MUTANTS if m.notebook.startswith("03") and "cache" in m.name and m.expects == "stale-state"]
# (the student's function, the checks that call it with the default base, the check that calls it with another base)
CALLERS = {
    "sinusoidal_table": (("table_even_values", "table_odd_values"), "table_base_and_length"),
    "shift_matrix": (("shift_matrix_values",), "shift_matrix_base"),
}


def _sizes(check, seed: int, reference) -> list[tuple]:
    """The calls ``check`` makes with ``seed`` (on the reference, which passes): (args, base or None)."""
    made = []

    def recorder(*args, base=None):
        made.append((args, base))
        return reference(*args) if base is None else reference(*args, base=base)

    os.environ["AUTOGRADER_SEED"] = str(seed)
    check(recorder)
    return made


@pytest.mark.parametrize("mutant", CACHES, ids=lambda m: m.name)
def test_a_cache_filled_by_an_earlier_check_is_named_stale_state(mutant):
    """Each check of a real grading draws its own cases, so an earlier check of the notebook may call the student's
    function with the very sizes a later check then calls with another base, and leave its result in a cache keyed on
    too little.  The later check must name the cache whichever check made the earlier call: here the seeds of an
    earlier and a later check whose sizes meet are looked for, and the two run in turn on one namespace."""
    import autograder.hidden.lesson03 as lesson03

    function = "shift_matrix" if "shift" in mutant.name else "sinusoidal_table"
    earlier_checks, later_check = CALLERS[function]
    reference = load(mutant.notebook)[0][function]
    named = []
    try:
        for later_seed in range(3):
            with_base = {args for args, base in _sizes(getattr(lesson03, later_check), later_seed, reference) if base}
            met = next(
                (
                    (check, seed)
                    for seed in range(400)
                    for check in earlier_checks
                    if with_base & {a for a, base in _sizes(getattr(lesson03, check), seed, reference) if not base}
                ),
                None,
            )
            assert met, f"no seed of {earlier_checks} below 400 calls {function} with the sizes {sorted(with_base)}"
            check, seed = met
            ns = load(mutant.notebook, mutant)[0]
            for name, s in ((check, seed), (later_check, later_seed)):
                os.environ["AUTOGRADER_SEED"] = str(s)
                try:
                    getattr(lesson03, name)(ns[function])
                    named.append((name, s, "pass"))
                except Diagnosis as d:
                    named.append((name, s, d.misconception))
    finally:
        os.environ.pop("AUTOGRADER_SEED", None)
    assert all(n in ("pass", "stale-state") for _, _, n in named[0::2]), named  # (its own sweep may see the cache)
    assert all(n == "stale-state" for _, _, n in named[1::2]), named


HISTORY = [
    Mutant(name, notebook, cell, None, source=source) for name, notebook, cell, source in blind.named_by_history()
]


@pytest.mark.parametrize("mutant", HISTORY, ids=lambda m: m.name)
def test_a_mistake_named_by_its_history_is_caught_on_every_seed(mutant):
    """A blind solution whose diagnosis depends on the calls drawn before the failing one (a cache keyed on C alone
    is stale-state where the same sizes were asked before under the first base, a wrong value where they were not):
    it fails the same test cells on every seed, whatever each one's name."""
    _, tests = load(mutant.notebook, mutant)
    failing = {
        seed: {
            test
            for test, outcome in run_checks(load(mutant.notebook, mutant)[0], tests, seed).items()
            if outcome != "pass"
        }
        for seed in SEEDS
    }
    assert all(failing.values()), f"{mutant.name}: full marks on seeds {[s for s, f in failing.items() if not f]}"
    assert len({frozenset(f) for f in failing.values()}) == 1, (
        f"{mutant.name}: pass/fail depends on the seed: {failing}"
    )
