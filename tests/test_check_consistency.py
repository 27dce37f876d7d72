"""Hidden checks give every submission the same verdict whatever cases they draw.

Cases are drawn from fresh entropy at grading time, so a solution fitted to the visible examples
fails; but a given submission must get the same score on every run (a class graded twice, or with
more workers, gets exactly the same grades), and a mutant is named by its misconception whatever
the cases. This runs each check of each catalogued mutant and alternative in-process over many seeds
and requires one verdict per (submission, check), and the mutant's diagnosis on every seed.
"""

from __future__ import annotations

import pytest

from autograder.devtools.mutants import catalogue
from autograder.devtools.mutants.inprocess import load, run_checks

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
