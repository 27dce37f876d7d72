"""One voice: a self-check that meets a catalogued mistake says what grading will say, fix included.

Every mutant of the catalogue whose hidden diagnosis is a catalogue id runs through the release
notebook's visible self-checks (in this process, as a student would run them): one of them must fail
with the same id and the catalogue's own fix, or the mutant says why only fresh cases can catch it.
"""

from __future__ import annotations

import pytest

from autograder.course import NOTEBOOKS
from autograder.devtools.mutants import catalogue
from autograder.devtools.mutants.visible import run_visible
from autograder.voice import CATALOGUE, VOICE

MUTANTS, ALTERNATIVES = catalogue()
CATALOGUED = [m for m in MUTANTS if m.expects in CATALOGUE]


def fixed_words(misconception: str) -> str:
    """The fix of ``misconception`` up to its first value to fill in: text every message of it holds."""
    return VOICE[misconception][1].split("{")[0].strip()


@pytest.mark.parametrize("mutant", CATALOGUED, ids=lambda m: m.name)
def test_a_self_check_names_the_catalogued_mistake_in_the_graders_words(mutant):
    outcome = run_visible(mutant.notebook, mutant)
    named = {cell: message for cell, (found, message) in outcome.items() if found == mutant.expects}
    if mutant.fresh_only:
        assert not named, (
            f"{mutant.name} is listed as caught only by fresh cases ({mutant.fresh_only}), but the "
            f"self-check of {sorted(named)} names it: drop fresh_only"
        )
        return
    assert named, f"{mutant.name}: no self-check says [{mutant.expects}]; they gave {outcome}"
    for cell, message in named.items():
        assert fixed_words(mutant.expects) in message, f"{cell}: the message lacks the catalogue's fix:\n{message}"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_the_reference_passes_every_self_check(notebook):
    outcome = run_visible(notebook)
    assert {found for found, _ in outcome.values()} == {"pass"}, outcome
