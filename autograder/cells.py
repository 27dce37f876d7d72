"""One vocabulary for the cells of an nbgrader notebook, by nbgrader's own rules.

A *solution cell* is where the student writes code (nbgrader's ``is_solution``); a *test cell* is a
graded cell that is not a solution (nbgrader's autograder-tests cell); a *protected cell* is one the
student may not change (locked or graded).  Every cell nbgrader knows has a *grade id*.  The three
basic questions are answered by nbgrader's own rules, written here as ``nbgrader.utils`` writes them
(tests/test_selfcheck.py holds the two to the same answers on every cell): importing nbgrader costs
seconds, and a student's ``check`` runs in a Python that may not have it.  Test cells
may hold a *hidden region* between the hidden-test markers, which the release strips and which calls
the checks of ``autograder.hidden`` through one import line (``HIDDEN_IMPORT``).  Everything in the
kit that asks one of these questions asks it here.
"""

from __future__ import annotations

import ast
import re

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
HIDDEN_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
MARKERS = (SOLUTION_MARKERS, HIDDEN_MARKERS)
HIDDEN_IMPORT = re.compile(r"^\s*import autograder\.hidden\.(\w+) as _hidden\s*$", re.M)
HIDDEN_CALL = re.compile(r"^\s*_hidden\.(\w+)\(", re.M)
HIDDEN_REGION = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)


def is_grade(cell) -> bool:
    return bool(cell.metadata.get("nbgrader", {}).get("grade", False))


def is_solution(cell) -> bool:
    return bool(cell.metadata.get("nbgrader", {}).get("solution", False))


def is_locked(cell) -> bool:
    meta = cell.metadata.get("nbgrader")
    if meta is None or is_solution(cell):
        return False
    return is_grade(cell) or bool(meta.get("locked", False))


def nbgrader_metadata(cell) -> dict | None:
    """The cell's nbgrader metadata, or None for a cell nbgrader does not know."""
    return cell.metadata.get("nbgrader")


def grade_id(cell) -> str | None:
    return (nbgrader_metadata(cell) or {}).get("grade_id")


def points(cell) -> float:
    return float((nbgrader_metadata(cell) or {}).get("points", 0))


def is_solution_cell(cell) -> bool:
    return bool(is_solution(cell))


def is_graded_cell(cell) -> bool:
    return bool(is_grade(cell))


def is_test_cell(cell) -> bool:
    """A graded cell that is not a solution: nbgrader runs it and scores what it raises."""
    return bool(is_grade(cell)) and not is_solution(cell)


PRACTICE_CHECK_SUFFIX = "-check"


def is_practice_check_cell(cell) -> bool:
    """The self-check of a practice exercise: an ungraded, locked code cell whose grade id ends in
    ``-check`` (lesson 5's ``ex1-check``, ``ex2-check``, ``ex3-check``, each a ``with self_check(...)``
    block after the exercise's solution cell).  nbgrader scores nothing here; ``check`` runs these
    cells and shows them as 0-point practice rows.  Demos that also use ``self_check`` (such as
    ``demo-attention``) are not exercises and keep other ids."""
    gid = grade_id(cell) or ""
    return (
        cell.cell_type == "code"
        and gid.endswith(PRACTICE_CHECK_SUFFIX)
        and not is_grade(cell)
        and not is_solution(cell)
        and bool(is_locked(cell))
    )


def is_protected_cell(cell) -> bool:
    """A cell the student may not change: locked, or graded."""
    return bool(is_locked(cell) or is_grade(cell))


def cell_name(cell, index: int | str = "?") -> str:
    """How messages name a cell: its grade id, else its cell id, else its position."""
    return grade_id(cell) or cell.get("id") or str(index)


def strip_hidden(source: str) -> str:
    """The source with its hidden-test regions removed (what a student sees)."""
    return re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", "", source, flags=re.S)


def strip_solution_markers(source: str) -> str:
    """A solution cell's source as a student would type it: the solution marker lines removed."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_MARKERS)


def hidden_calls(source: str) -> list[list]:
    """[[module, function, [argument names]], ...] of a test cell's hidden region."""
    region = HIDDEN_REGION.search(source)
    if not region:
        return []
    modules = HIDDEN_IMPORT.findall(region.group(1))
    calls = []
    for node in ast.parse(region.group(1)).body:
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
            and node.value.func.value.id == "_hidden"
            and modules
        ):
            args = [a.id for a in node.value.args if isinstance(a, ast.Name)]
            calls.append([modules[0], node.value.func.attr, args])
    return calls


def first_failure(cell) -> dict | None:
    """The first output of a code cell that fails it for nbgrader (an error, or text on stderr), or None."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return out
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            return out
    return None


def solution_sources(nb) -> dict[str, str]:
    """grade id -> the reference solution of each solution cell, as a student would type it."""
    return {grade_id(cell): strip_solution_markers(cell.source) for cell in nb.cells if is_solution_cell(cell)}
