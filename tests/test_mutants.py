"""Mutation testing: every catalogued bug is caught and diagnosed through real nbgrader grading."""

from __future__ import annotations

import re

from autograder.devtools.mutants import catalogue
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


def test_every_mutant_is_caught_and_diagnosed_and_alternatives_score_full():
    result = kit("mutants", "--jobs", "2", check=False, timeout=1500)
    table = result.stdout
    wrong = "\n".join(line for line in table.splitlines() if "<- got" in line)  # the rows that failed, whole
    assert result.returncode == 0, wrong + "\n\n" + table[-3000:] + result.stderr[-3000:]
    mutants, alternatives = catalogue()
    m = re.search(r"mutants: (\d+)\s+caught: (\d+) \(100%\)\s+diagnosed: (\d+) \(100%\)", table)
    assert m and int(m.group(1)) == len(mutants) == int(m.group(2)) == int(m.group(3)), table[-3000:]
    assert f"correct alternatives at full marks: {len(alternatives)}/{len(alternatives)}" in table
    for mutant in mutants:
        assert re.search(rf"^{re.escape(mutant.name)}\s", table, re.M)
