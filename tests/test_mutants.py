"""Mutation testing: every catalogued bug is caught and diagnosed, and every correct alternative scores full marks.

Every mutant and alternative of the catalogue is tried against the hidden checks in-process, on 25 seeds each, by
tests/test_check_consistency.py (the mutant's diagnosis on every seed, an alternative passing every check). What a
real kernel adds is the crossing: the hidden checks run in the grading process against proxies of the kernel's
objects (autograder.channel), and nbgrader scores the cells. So `python -m autograder mutants`, the full tool
(real nbgrader, real sandboxed kernels), grades here a sample that meets every way a verdict crosses: one mutant
of every diagnosis the catalogue expects (a side effect, an exception of the wrong type, a float32 table, state
kept between calls, ...), every unit with a mutant at least once, and one correct alternative of every unit.
"""

from __future__ import annotations

import re

from autograder.course import NOTEBOOKS
from autograder.devtools.mutants import Mutant, catalogue
from autograder.hidden.diagnostics import CATALOGUE

from .conftest import kit


def test_catalogue_covers_every_spec_diagnostic_and_every_unit():
    mutants, alternatives = catalogue()
    assert set(CATALOGUE) <= {m.expects for m in mutants}, set(CATALOGUE) - {m.expects for m in mutants}
    import nbformat

    from autograder.course import LESSONS

    from .conftest import REPO

    for notebook, names in LESSONS.items():
        source = nbformat.read(str(REPO / "source" / "embeddings" / f"{notebook}.ipynb"), as_version=4)
        cells = {
            c.metadata["nbgrader"]["grade_id"]
            for c in source.cells
            if c.metadata.get("nbgrader", {}).get("solution")
            and any(f"{k} {n}" in c.source for n in names for k in ("def", "class"))
        }
        covered = {a.cell for a in alternatives if a.notebook == notebook}
        assert cells <= covered, f"{notebook}: no independent correct solution for {cells - covered}"


def through_kernels(mutants: list[Mutant], alternatives: list[Mutant]) -> tuple[list[Mutant], list[Mutant]]:
    """The mutants and alternatives graded through real kernels: for each diagnosis the catalogue expects, its
    first mutant of a unit not met yet (else its first); the first mutant of any unit still not met; the first
    alternative of every unit."""
    chosen: list[Mutant] = []
    for expects in dict.fromkeys(m.expects for m in mutants):
        same = [m for m in mutants if m.expects == expects]
        met = {c.cell for c in chosen}
        chosen.append(next((m for m in same if m.cell not in met), same[0]))
    for cell in dict.fromkeys(m.cell for m in mutants):
        if cell not in {c.cell for c in chosen}:
            chosen.append(next(m for m in mutants if m.cell == cell))
    return chosen, list({a.cell: a for a in reversed(alternatives)}.values())[::-1]


def test_the_kernel_sample_meets_every_diagnosis_unit_and_lesson():
    all_mutants, all_alternatives = catalogue()
    mutants, alternatives = through_kernels(all_mutants, all_alternatives)
    assert {m.expects for m in mutants} == {m.expects for m in all_mutants}
    assert {m.cell for m in mutants} == {m.cell for m in all_mutants}
    assert {a.cell for a in alternatives} == {a.cell for a in all_alternatives}
    assert {m.notebook for m in mutants} == {a.notebook for a in alternatives} == set(NOTEBOOKS)


def test_mutants_through_real_kernels_are_caught_and_diagnosed_and_alternatives_score_full():
    mutants, alternatives = through_kernels(*catalogue())
    names = [m.name for m in mutants + alternatives]
    result = kit("mutants", "--jobs", "2", "--only", *names, check=False, timeout=1500)
    table = result.stdout
    wrong = "\n".join(line for line in table.splitlines() if "<- got" in line)  # the rows that failed, whole
    assert result.returncode == 0, wrong + "\n\n" + table[-3000:] + result.stderr[-3000:]
    m = re.search(r"mutants: (\d+)\s+caught: (\d+) \(100%\)\s+diagnosed: (\d+) \(100%\)", table)
    assert m and int(m.group(1)) == len(mutants) == int(m.group(2)) == int(m.group(3)), table[-3000:]
    assert f"correct alternatives at full marks: {len(alternatives)}/{len(alternatives)}" in table
    for mutant in mutants + alternatives:
        assert re.search(rf"^{re.escape(mutant.name)}\s", table, re.M)
