"""Machine-made mutants (Cosmic Ray's operators on the reference solutions) against the hidden checks: none survives
that equivalent.txt does not explain.

`make test` runs every second mutant of each cell against the hidden checks (a few seconds) and every eighth against
the visible self-checks; `autograder mutants --generated` runs them all, on demand.
"""

from __future__ import annotations

import pytest

from autograder.devtools.mutants import generated
from autograder.hidden.diagnostics import KNOWN_IDS

# mutants of arithmetic divide by zero or overflow as they run: their warnings are no finding
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

EVERY_HIDDEN = 2
EVERY_SELF = 8


@pytest.fixture(scope="module")
def mutants():
    return generated.generate()


@pytest.fixture(scope="module")
def hidden(mutants):
    return generated.run(generated.subset(mutants, EVERY_HIDDEN), "hidden")


def test_every_graded_unit_is_mutated_and_only_what_a_student_writes(mutants):
    cells = {(m.notebook, m.cell) for m in mutants}
    assert len(cells) == 10, sorted(cells)  # the ten graded units, not the ungraded practice exercises
    assert not any("self.E = np.random.default_rng" in m.old for m in mutants), "the given __init__ is not mutated"
    assert len({m.name for m in mutants}) == len(mutants), "every mutant has a name of its own"


def test_no_mutant_survives_the_hidden_checks_unless_it_is_recorded_as_equivalent(hidden):
    print(hidden.summary())
    assert not hidden.survivors, "\n".join(f"{v.mutant.name}  [{v.mutant.operator}]" for v in hidden.survivors)
    assert hidden.score >= 0.98


def test_a_survivor_not_recorded_fails_the_run(hidden):
    """The run is a guard: the same verdicts without equivalent.txt's explanations are survivors, and the command
    exits 1 on survivors."""
    bare = generated.Figures("hidden", hidden.verdicts, {}, hidden.seconds)
    assert hidden.judged_equivalent and len(bare.survivors) == len(hidden.judged_equivalent)


def test_every_recorded_equivalent_is_a_mutant_still_made_with_its_reason(mutants):
    assert generated.stale_equivalents(mutants) == []
    assert all(len(reason) > 20 for reason in generated.equivalents().values())


def test_the_visible_self_checks_kill_most_mutants_too_and_say_why_in_the_kits_words(mutants):
    figures = generated.run(generated.subset(mutants, EVERY_SELF), "self-checks")
    print(figures.summary())
    assert figures.score >= 0.9, generated.format_report([figures])
    # a self-check fails with a Diagnosis, never a bare AssertionError or an exception of the student's code
    told = {(v.mutant.name, cell, why) for v in figures.verdicts for cell, why in v.diagnoses.items()}
    assert told and not [t for t in told if t[2] not in KNOWN_IDS], sorted(t for t in told if t[2] not in KNOWN_IDS)
