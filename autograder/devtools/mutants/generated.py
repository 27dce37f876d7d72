"""Machine-made mutants: Cosmic Ray's mutation operators applied to the reference solutions, run against the hidden
checks (and, separately, the visible self-checks), in this process.

The hand-written catalogue (``lessonNN.py``) holds the bugs students make, for the words each is told in; this
module holds every small change a mutation tool can make to a graded unit, for the question the catalogue cannot
answer: is there wrong code the checks let through?

- **The tool.** Cosmic Ray (``cosmic_ray.mutating.mutate_code``) takes source text, an operator and an occurrence
  and returns the mutated text, formatting kept; every one of its core operators is applied at every place it
  fits.  (mutmut 3 was the other candidate: it writes all mutants of a module into one file behind trampolines
  and runs them through pytest, whereas a solution here is the text of a notebook cell, run by the kit's own
  in-process runner, so one mutant as plain text is what is needed.)
- **What is mutated.** The lines between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` of each solution cell
  whose unit a graded test cell hands to a hidden check: what a student writes, not the code the notebook gives
  (``__init__`` drawing the tables) nor the ungraded practice exercises.
- **The test suites.** The hidden checks of the notebook (``inprocess.run_checks``, one fixed grading seed per
  run, ``SEEDS``): a mutant is killed when any test cell fails, or when its cell raises as it is defined, or when
  it runs over ``TIMEOUT`` seconds (it would time out in grading too).  Separately, the visible self-checks
  (``visible.run_visible``): killed when any self-check cell fails.
- **Equivalent mutants.** A survivor that computes what the reference computes on the whole input space is
  recorded in ``equivalent.txt`` with a one-line reason; it is not counted as a survivor.  A survivor that is
  neither killed nor recorded there is a gap in the checks (the test suite fails on it).

Each mutant has a stable name: ``notebook:cell:line: old -> new``, the changed line of the cell before and after.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ...cells import SOLUTION_MARKERS, grade_id, hidden_calls, is_solution_cell, is_test_cell, strip_solution_markers
from ...course import NOTEBOOKS, kit_assignment
from . import Mutant
from .inprocess import load, run_checks
from .visible import run_visible

EQUIVALENTS = Path(__file__).with_name("equivalent.txt")
SEEDS = (0,)  # the grading seeds the hidden checks draw their cases with, for every mutant alike
TIMEOUT = 10.0  # seconds one mutant's checks may take; a mutant past it is killed, as the grading timeout would
# operators Cosmic Ray needs arguments for (which variable to insert or replace): not applied
NEEDS_ARGUMENTS = ("core/VariableInserter", "core/VariableReplacer")


@dataclass(frozen=True)
class Generated:
    """One machine-made mutant of one solution cell."""

    notebook: str
    cell: str
    operator: str
    occurrence: int
    line: int  # 1-based, in the cell as a student types it
    old: str
    new: str
    source: str  # the whole mutated cell

    @property
    def name(self) -> str:
        return f"{self.notebook}:{self.cell}:{self.line}: {self.old.strip()} -> {self.new.strip()}"

    def as_mutant(self) -> Mutant:
        return Mutant(self.name, self.notebook, self.cell, None, source=self.source)


@dataclass
class Verdict:
    mutant: Generated
    killed_by: str  # the test cell (or "defining the cell", "timeout") that killed it; "" if it survived
    seconds: float
    diagnoses: dict = field(default_factory=dict)  # test cell -> the diagnosis id it failed with

    @property
    def killed(self) -> bool:
        return bool(self.killed_by)


def graded_cells(notebook: str, repo: Path | None = None) -> dict[str, tuple[str, set[int]]]:
    """grade id -> (the solution as a student types it, its line numbers inside solution regions), for the
    solution cells that define a unit some graded test cell hands to a hidden check."""
    nb = nbformat.read(str(kit_assignment(repo).notebook("source", notebook)), as_version=4)
    graded = {a for cell in nb.cells if is_test_cell(cell) for _, _, args in hidden_calls(cell.source) for a in args}
    cells = {}
    for cell in nb.cells:
        if not is_solution_cell(cell):
            continue
        text = strip_solution_markers(cell.source)
        defined = {
            line.split()[1].split("(")[0].rstrip(":")
            for line in text.splitlines()
            if line.startswith(("def ", "class "))
        }
        if not defined & graded:
            continue
        inside, number, lines = False, 0, set()
        for line in cell.source.splitlines():
            if line.strip() in SOLUTION_MARKERS:
                inside = line.strip() == SOLUTION_MARKERS[0]
                continue
            number += 1
            if inside:
                lines.add(number)
        cells[grade_id(cell)] = (text, lines)
    return cells


def operators() -> list[str]:
    import cosmic_ray.plugins

    return sorted(name for name in cosmic_ray.plugins.operator_names() if name not in NEEDS_ARGUMENTS)


def generate(notebooks: Iterable[str] = NOTEBOOKS, repo: Path | None = None) -> list[Generated]:
    """Every mutant Cosmic Ray's operators make of the graded solution regions, in a fixed order."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code

    chosen = {name: cosmic_ray.plugins.get_operator(name)() for name in operators()}
    found = []
    for notebook in notebooks:
        for cell, (text, lines) in graded_cells(notebook, repo).items():
            before = text.splitlines()
            nodes = list(ast_nodes(get_ast(text)))  # the order mutate_code counts occurrences in
            for name, operator in chosen.items():
                count = sum(1 for node in nodes for _ in operator.mutation_positions(node))
                for occurrence in range(count):
                    mutated = mutate_code(text, operator, occurrence)
                    changed = None if mutated is None else _changed_line(before, mutated.splitlines())
                    if changed is not None and changed[0] in lines:
                        found.append(Generated(notebook, cell, name, occurrence, *changed, source=mutated))
    return found


def _changed_line(before: list[str], after: list[str]):
    """(line number, old line, new line) of a mutation that changes one line, or None."""
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1:
            return i1 + 1, before[i1], after[j1]
        return i1 + 1, "\n".join(before[i1:i2]), "\n".join(after[j1:j2])
    return None


def equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """name -> the one-line reason a mutant computes what the reference computes, from ``equivalent.txt``."""
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, reason = line.rpartition("  # ")
        if not sep or not reason.strip():
            raise ValueError(f"{path.name}, line {number}: no reason after '  # ': {line[:80]}")
        found[name.strip()] = reason.strip()
    return found


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Interrupt what runs inside after ``seconds`` (the main thread only; elsewhere, no limit)."""

    def stop(signum, frame):
        raise _Timeout

    try:
        previous = signal.signal(signal.SIGALRM, stop)
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@functools.cache
def _notebook(notebook: str):
    """The reference notebook loaded once: its namespace and test cells, and its solution cells' code."""
    ns, tests = load(notebook)
    return ns, tests


def against_hidden_checks(mutant: Generated, seeds=SEEDS) -> Verdict:
    """Run the notebook's hidden checks on ``mutant``: the reference namespace with the mutated cell executed into
    it (so the notebook's other units call the mutant, as in a student's kernel), put back afterwards."""
    ns, tests = _notebook(mutant.notebook)
    reference = graded_cells(mutant.notebook)[mutant.cell][0]
    start = time.perf_counter()
    killed, diagnoses = "", {}
    try:
        with _time_limit(TIMEOUT):
            try:
                exec(compile(mutant.source, "<cell>", "exec"), ns)  # noqa: S102 - a mutant of the kit's own solution
            except Exception:  # noqa: BLE001 - a cell that raises as it is defined leaves its unit undefined
                killed = "defining the cell"
            for seed in seeds if not killed else ():
                diagnoses = {t: outcome for t, outcome in run_checks(ns, tests, seed).items() if outcome != "pass"}
                if diagnoses:
                    killed = next(iter(diagnoses))
                    break
    except _Timeout:
        killed = "timeout"
    finally:
        exec(compile(reference, "<cell>", "exec"), ns)  # noqa: S102 - the reference back in place
    return Verdict(mutant, killed, time.perf_counter() - start, diagnoses)


def against_self_checks(mutant: Generated) -> Verdict:
    """Run the release notebook's visible self-checks on ``mutant`` (the whole notebook, in a namespace of its own)."""
    start = time.perf_counter()
    killed, diagnoses = "", {}
    try:
        with _time_limit(TIMEOUT):
            outcome = run_visible(mutant.notebook, mutant.as_mutant())
        diagnoses = {cell: result for cell, (result, _) in outcome.items() if result != "pass"}
        killed = next(iter(diagnoses), "")
    except _Timeout:
        killed = "timeout"
    return Verdict(mutant, killed, time.perf_counter() - start, diagnoses)


@dataclass
class Figures:
    """One run: what was killed, what survived, what is recorded as equivalent."""

    suite: str
    verdicts: list[Verdict]
    equivalent: dict[str, str]
    seconds: float

    @property
    def survivors(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.killed and v.mutant.name not in self.equivalent]

    @property
    def judged_equivalent(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.killed and v.mutant.name in self.equivalent]

    @property
    def killed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.killed]

    @property
    def score(self) -> float:
        """Killed, of the mutants not judged equivalent."""
        counted = len(self.verdicts) - len(self.judged_equivalent)
        return len(self.killed) / counted if counted else 1.0

    def summary(self) -> str:
        return (
            f"{self.suite}: {len(self.verdicts)} mutants, killed {len(self.killed)}, survived {len(self.survivors)}, "
            f"judged equivalent {len(self.judged_equivalent)}: {100 * self.score:.1f}% of the non-equivalent killed "
            f"({self.seconds:.1f} s)"
        )


def run(mutants: list[Generated], suite: str = "hidden") -> Figures:
    """Every mutant against one test suite ("hidden" checks or visible "self-checks")."""
    judge = against_hidden_checks if suite == "hidden" else against_self_checks  # "self-checks"
    start = time.perf_counter()
    verdicts = [judge(m) for m in mutants]
    return Figures(suite, verdicts, equivalents(), time.perf_counter() - start)


def stale_equivalents(mutants: list[Generated]) -> list[str]:
    """Names in equivalent.txt that no mutant has any more (the reference changed under them)."""
    names = {m.name for m in mutants}
    return [name for name in equivalents() if name not in names]


def subset(mutants: list[Generated], every: int) -> list[Generated]:
    """Every ``every``-th mutant of each cell (each cell keeps its first), for a quick run."""
    chosen, per_cell = [], {}
    for m in mutants:
        key = (m.notebook, m.cell)
        if per_cell.get(key, 0) % every == 0:
            chosen.append(m)
        per_cell[key] = per_cell.get(key, 0) + 1
    return chosen


def format_report(figures: list[Figures]) -> str:
    lines = []
    for f in figures:
        lines.append(f.summary())
        for v in f.survivors:
            lines.append(f"  survived: {v.mutant.name}  [{v.mutant.operator}]")
    return "\n".join(lines)
