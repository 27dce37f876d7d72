"""Making submissions from the release: what a student hands in after filling (some of) the stubs."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from ..cells import grade_id, solution_sources
from ..course import Assignment, Course, kit_assignment


def reference_solutions(repo: Path, notebook: str) -> dict[str, str]:
    """grade id -> the reference solution of each solution cell of ``notebook`` (from its source)."""
    return solution_sources(nbformat.read(str(kit_assignment(repo).notebook("source", notebook)), as_version=4))


def filled_notebook(repo: Path, notebook: str, overrides: dict[str, str] | None = None, *, solve: bool = True):
    """The release notebook with its solution cells filled by the reference (``solve``) and ``overrides``."""
    release = nbformat.read(str(kit_assignment(repo).notebook("release", notebook)), as_version=4)
    reference = reference_solutions(repo, notebook)
    answers = dict(reference) if solve else {}
    answers.update(overrides or {})
    unknown = set(overrides or {}) - set(reference)
    if unknown:
        raise KeyError(f"{notebook}: no solution cell named {sorted(unknown)}")
    for cell in release.cells:
        if grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
    return release


def write_submission(course_dir: Path, student: str, notebooks: dict[str, object]) -> Path:
    """Write ``{notebook name: notebook node or raw bytes/str}`` as the student's submitted folder."""
    folder = Assignment(Course(course_dir)).submitted(student)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, nb in notebooks.items():
        target = folder / (name if name.endswith(".ipynb") else f"{name}.ipynb")
        if isinstance(nb, bytes):
            target.write_bytes(nb)
        elif isinstance(nb, str):
            target.write_text(nb, encoding="utf-8")
        else:
            nbformat.write(nb, str(target))
    return folder
