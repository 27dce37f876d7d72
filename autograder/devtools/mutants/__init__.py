"""The mutant catalogue: buggy implementations that the hidden tests must catch and diagnose, and
independent correct implementations that must score full marks.

Each lesson module (``lesson01`` ... ``lesson05``) exports ``MUTANTS`` and ``ALTERNATIVES``.  A
mutant replaces one solution cell of the reference (by its ``grade_id``), either with a whole new
``source`` or by text ``replace`` pairs applied to the reference cell (each old text must occur
exactly once there).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from ...course import NOTEBOOKS, lesson_module


@dataclass(frozen=True)
class Mutant:
    name: str  # unique, short: what the student did
    notebook: str  # e.g. "02_token_embeddings"
    cell: str  # grade_id of the solution cell it replaces
    expects: str | None  # the misconception id its diagnosis must carry; None = a correct solution
    source: str | None = None  # the whole new cell source, or
    replace: tuple = field(default_factory=tuple)  # ((old, new), ...) applied to the reference cell
    # why no visible self-check can meet this bug (only the hidden checks' fresh cases do); empty when one does
    fresh_only: str = ""

    def cell_source(self, reference: str) -> str:
        """The mutant's cell: its ``source``, or the reference cell with each ``replace`` pair applied.

        A cell's text is matched as if it ended in a newline (a notebook keeps a cell's source without its last
        one), so an old text written as whole lines matches the cell's last line too.  An old text found other
        than once, or a pair that changes nothing, is an error naming the mutant, its cell and the text."""
        if self.source is not None:
            return self.source
        ended = reference.endswith("\n")
        text = reference if ended else reference + "\n"
        for old, new in self.replace:
            count = text.count(old)
            if count != 1:
                where = f"mutant {self.name!r} ({self.notebook}, cell {self.cell!r})"
                found = "is not found in" if count == 0 else f"occurs {count} times in"
                raise ValueError(
                    f"{where}: its replace text {old!r} {found} the reference cell (it must occur exactly once; "
                    f"the cell, as the source notebook holds it:\n{reference})"
                )
            if old == new:
                raise ValueError(
                    f"mutant {self.name!r} ({self.notebook}, cell {self.cell!r}): {old!r} is replaced by itself"
                )
            text = text.replace(old, new)
        return text if ended or not text.endswith("\n") else text[:-1]


def catalogue() -> tuple[list[Mutant], list[Mutant]]:
    """All mutants and all correct alternatives, across the lessons that have a catalogue."""
    mutants, alternatives = [], []
    for lesson in map(lesson_module, NOTEBOOKS):
        try:
            module = importlib.import_module(f"{__name__}.{lesson}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{lesson}":
                raise
            continue
        mutants += module.MUTANTS
        alternatives += module.ALTERNATIVES
    from .blind import rounds

    for name, notebook, cell, expects, source, fresh_only in rounds():  # the blind rounds kept as regression tests
        kept = Mutant(name, notebook, cell, expects, source=source, fresh_only=fresh_only)
        (alternatives if expects is None else mutants).append(kept)
    names = [m.name for m in mutants + alternatives]
    duplicated = {n for n in names if names.count(n) > 1}
    if duplicated:
        raise ValueError(f"mutant names used twice: {sorted(duplicated)}")
    return mutants, alternatives
