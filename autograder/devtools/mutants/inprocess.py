"""Run a notebook's hidden checks in this process, on the reference or on a mutant of it.

For fast, kernel-free questions about the checks themselves: does each check give one verdict
whatever cases it draws, and how long do a notebook's checks take.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import os
import time
from pathlib import Path

import nbformat

from ...cells import grade_id, hidden_calls, is_solution_cell, is_test_cell, solution_sources
from ...course import kit_assignment
from ...hidden.diagnostics import Diagnosis
from . import Mutant


def load(notebook: str, mutant: Mutant | None = None, repo: Path | None = None) -> tuple[dict, list]:
    """Execute the notebook's non-test cells (the reference, with ``mutant`` applied); return the
    namespace and the test cells as [(grade_id, hidden calls)]."""
    path = kit_assignment(repo).notebook("source", notebook)
    stat = path.stat()
    cells, ref = _code_cells(str(path), (stat.st_mtime_ns, stat.st_size))
    if mutant is not None and mutant.cell not in ref:
        raise KeyError(
            f"mutant {mutant.name!r}: {notebook} has no solution cell {mutant.cell!r} (it has {sorted(ref)})"
        )
    ns: dict = {"__name__": "__student__"}
    tests = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for cell_id, kind, code in cells:
            if kind == "test":
                tests.append((cell_id, hidden_calls(code)))
                continue
            if mutant is not None and cell_id == mutant.cell:
                code = mutant.cell_source(ref[mutant.cell])
            try:
                exec(_compiled(code), ns)  # noqa: S102 - the kit's own code and catalogue
            except Exception:  # noqa: BLE001 - a failing demo cell does not matter here
                pass
    return ns, tests


@functools.lru_cache(maxsize=16)
def _code_cells(path: str, version: tuple) -> tuple[list, dict]:
    """The source notebook's code cells as (grade_id, "test" or "code", the source to run: the reference's for a
    solution cell), and its reference solutions: read once per ``version`` of the file (its mtime and size)."""
    source = nbformat.read(path, as_version=4)
    ref = solution_sources(source)
    cells = []
    for cell in source.cells:
        if cell.cell_type != "code":
            continue
        if is_test_cell(cell):
            cells.append((grade_id(cell), "test", cell.source))
        else:
            cells.append((grade_id(cell), "code", ref[grade_id(cell)] if is_solution_cell(cell) else cell.source))
    return cells, ref


@functools.lru_cache(maxsize=512)
def _compiled(code: str):
    """A cell's code object: the same for every namespace it runs in, so compiled once."""
    return compile(code, "<cell>", "exec")


def run_checks(ns: dict, tests: list, seed: int | None = None) -> dict[str, str]:
    """grade_id -> "pass" or the misconception id of the first failing check.  With a ``seed``, each check draws its
    own cases from it (seed * 1000 + its place in the notebook), as each check of a real grading draws afresh: two
    checks never draw the same case by construction, so what one leaves in the student's state meets the other's
    calls as it does in a kernel."""
    saved = os.environ.get("AUTOGRADER_SEED")
    try:
        outcome = {}
        place = 0
        for grade_id, calls in tests:
            outcome[grade_id] = "pass"
            for module, function, args in calls:
                place += 1
                if seed is not None:
                    os.environ["AUTOGRADER_SEED"] = str(seed * 1000 + place)
                check = getattr(importlib.import_module(f"autograder.hidden.{module}"), function)
                try:
                    check(*[ns[a] for a in args])
                except Diagnosis as d:
                    outcome[grade_id] = d.misconception
                    break
        return outcome
    finally:
        if saved is None:
            os.environ.pop("AUTOGRADER_SEED", None)
        else:
            os.environ["AUTOGRADER_SEED"] = saved


def time_checks(notebook: str, repeats: int = 20) -> list[float]:
    """Seconds taken by all hidden checks of the reference notebook, once per repeat."""
    ns, tests = load(notebook)
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        run_checks(ns, tests, seed)
        times.append(time.perf_counter() - start)
    return times
