"""Making submissions from the release: what a student hands in after filling (some of) the stubs."""
from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from .. import ASSIGNMENT

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def reference_cells(source_nb) -> dict[str, str]:
    """grade_id -> the reference solution as a student would type it (markers removed)."""
    cells = {}
    for cell in source_nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            lines = [line for line in cell.source.splitlines() if line.strip() not in MARKERS]
            cells[meta["grade_id"]] = "\n".join(lines)
    return cells


def filled_notebook(repo: Path, notebook: str, overrides: dict[str, str] | None = None, *, solve: bool = True):
    """The release notebook with its solution cells filled by the reference (``solve``) and ``overrides``."""
    release = nbformat.read(str(repo / "release" / ASSIGNMENT / f"{notebook}.ipynb"), as_version=4)
    source = nbformat.read(str(repo / "source" / ASSIGNMENT / f"{notebook}.ipynb"), as_version=4)
    answers = reference_cells(source) if solve else {}
    answers.update(overrides or {})
    unknown = set(overrides or {}) - set(reference_cells(source))
    if unknown:
        raise KeyError(f"{notebook}: no solution cell named {sorted(unknown)}")
    for cell in release.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return release


def write_submission(course_dir: Path, student: str, notebooks: dict[str, object]) -> Path:
    """Write ``{notebook name: notebook node or raw bytes/str}`` as ``submitted/<student>/embeddings/``."""
    folder = Path(course_dir) / "submitted" / student / ASSIGNMENT
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
