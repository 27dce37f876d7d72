"""Validation of an authored notebook before it is written: every rule names the file and the cell."""

from __future__ import annotations

import ast
import importlib

from ..cells import (
    HIDDEN_CALL,
    HIDDEN_IMPORT,
    MARKERS,
    hidden_calls,
    is_graded_cell,
    is_solution_cell,
    is_test_cell,
    nbgrader_metadata,
    strip_hidden,
)
from ..cells import grade_id as cell_grade_id
from ..course import LESSONS

TOTAL_POINTS = 100


class AuthoringError(ValueError):
    """An authored notebook breaks a rule; the message names the file and the cell."""


def _where(path, index, cell) -> str:
    grade_id = cell_grade_id(cell)
    return f"{path}: cell {index}" + (f" ({grade_id})" if grade_id else "")


def _check_markers(where: str, cell) -> None:
    source = cell.source
    for begin, end in MARKERS:
        depth = 0
        for line in source.splitlines():
            if begin in line:
                if depth:
                    raise AuthoringError(f"{where}: nested {begin!r}")
                depth = 1
            elif end in line:
                if not depth:
                    raise AuthoringError(f"{where}: {end!r} without a {begin!r} before it")
                depth = 0
        if depth:
            raise AuthoringError(f"{where}: {begin!r} has no matching {end!r}")
    if "BEGIN SOLUTION" in source and not is_solution_cell(cell):
        raise AuthoringError(f"{where}: a solution region in a cell that is not a solution cell")
    if "BEGIN HIDDEN TESTS" in source and not is_test_cell(cell):
        raise AuthoringError(f"{where}: a hidden-test region in a cell that is not a test cell")


def _check_ends_safely(where: str, source: str) -> None:
    """nbgrader reads a test cell's last value as partial credit: tests end in assert/raise, never a value."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise AuthoringError(f"{where}: does not parse: {e}") from None
    if not tree.body:
        raise AuthoringError(f"{where}: a test cell with no code")
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        call = last.value
        is_hidden_call = (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "_hidden"
        )
        if not is_hidden_call:
            raise AuthoringError(
                f"{where}: a test cell ends in a bare value (line {last.lineno}); end it in an assert "
                "or a hidden check call"
            )


def _check_hidden_calls(where: str, source: str) -> None:
    modules = HIDDEN_IMPORT.findall(source)
    calls = HIDDEN_CALL.findall(source)
    if calls and len(set(modules)) != 1:
        raise AuthoringError(
            f"{where}: hidden checks must be imported as 'import autograder.hidden.<lesson> as _hidden'"
        )
    for name in calls:
        try:
            module = importlib.import_module(f"autograder.hidden.{modules[0]}")
        except ImportError as e:
            raise AuthoringError(f"{where}: cannot import autograder.hidden.{modules[0]}: {e}") from None
        if not callable(getattr(module, name, None)):
            raise AuthoringError(f"{where}: autograder.hidden.{modules[0]} has no check named {name!r}")


def _check_has_hidden_check(where: str, source: str) -> None:
    """With the kit's grade a test scores only if its hidden check passes outside the kernel: a test
    cell without one could never score there, and its points would rest on the kernel alone elsewhere."""
    if not hidden_calls(source):
        raise AuthoringError(
            f"{where}: a test cell needs a hidden check: a '### BEGIN HIDDEN TESTS' region that calls "
            "_hidden.<check>(<names>), so that no score rests on the student's kernel alone"
        )


def _top_level_names(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def validate_notebook(path, nb, notebook_name: str) -> int:
    """Check one authored notebook; return its total points."""
    seen_ids: dict[str, int] = {}
    points = 0
    defined: dict[str, list[tuple[int, bool]]] = {}
    for index, cell in enumerate(nb.cells):
        meta = nbgrader_metadata(cell)
        where = _where(path, index, cell)
        if (
            cell.cell_type == "code"
            and meta is None
            and ("BEGIN SOLUTION" in cell.source or "HIDDEN TESTS" in cell.source)
        ):
            raise AuthoringError(f"{where}: markers in a cell without nbgrader metadata")
        if meta is None:
            continue
        grade_id = meta.get("grade_id")
        if not grade_id:
            raise AuthoringError(f"{where}: nbgrader metadata without a grade_id")
        if grade_id in seen_ids:
            raise AuthoringError(f"{where}: grade_id {grade_id!r} is used again (first in cell {seen_ids[grade_id]})")
        seen_ids[grade_id] = index
        if meta.get("schema_version") != 3:
            raise AuthoringError(f"{where}: nbgrader schema_version should be 3")
        _check_markers(where, cell)
        is_test = is_test_cell(cell)
        if is_graded_cell(cell):
            if not isinstance(meta.get("points"), (int, float)) or meta["points"] <= 0:
                raise AuthoringError(f"{where}: a graded cell needs positive points")
            points += meta["points"]
        if is_test and not meta.get("locked"):
            raise AuthoringError(f"{where}: a test cell must be locked")
        if is_test and cell.cell_type == "code":
            if "BEGIN HIDDEN TESTS" in cell.source and not cell.source.lstrip().startswith("### BEGIN HIDDEN TESTS"):
                raise AuthoringError(
                    f"{where}: the hidden tests must come first in a test cell, so that grading "
                    "reports their diagnosis rather than the first failed self-check"
                )
            _check_ends_safely(where, cell.source)
            _check_ends_safely(where + " as released", strip_hidden(cell.source))
            _check_hidden_calls(where, cell.source)
            _check_has_hidden_check(where, cell.source)
        if cell.cell_type == "code" and "autograder" in strip_hidden(cell.source):
            raise AuthoringError(f"{where}: student-visible code mentions the autograder package")
        if cell.cell_type == "code":
            for name in _top_level_names(cell.source):
                defined.setdefault(name, []).append((index, is_solution_cell(cell)))
    for name in LESSONS.get(notebook_name, ()):
        places = defined.get(name, [])
        solution_places = [i for i, is_solution in places if is_solution]
        if len(solution_places) != 1 or len(places) != 1:
            raise AuthoringError(
                f"{path}: the contract's name {name!r} must be defined in exactly one solution cell and nowhere else; "
                f"found it in cells {[i for i, _ in places] or 'none'}"
            )
    return points
