"""Intake: a checked copy of one submission for nbgrader to grade; the submission itself is never touched.

Every notebook is read strictly (``notebooks.read_notebook``). A file that is not UTF-8, not JSON or not
a valid notebook stays out of the copy, with the reason recorded (it then scores 0, like a missing notebook).
A notebook under a name the assignment does not have is placed under its real name when its graded cells
say which one it is (a renamed file); otherwise it is left out and reported.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from ..cells import grade_id, is_graded_cell, is_protected_cell, is_solution_cell, nbgrader_metadata, strip_hidden
from ..config import NotebookLimits
from ..course import Assignment
from ..notebooks import read_notebook
from .notes import points_note


def renamed_from(nb, expected: dict[str, dict], open_names: set[str]) -> str | None:
    """The one not-yet-placed assignment notebook whose cells this notebook carries (ids no other has)."""
    ids = {grade_id(c) for c in nb.cells} - {None}
    counts = {}
    for name, wanted in expected.items():
        if name not in open_names:
            continue
        others = set().union(*(set(w) for n, w in expected.items() if n != name))
        counts[name] = len(ids & (set(wanted) - others))
    best = sorted(counts.items(), key=lambda kv: -kv[1])
    if best and best[0][1] > 0 and (len(best) == 1 or best[0][1] > best[1][1]):
        return best[0][0]
    return None


def locked_cells(nb) -> dict[str, dict]:
    """grade_id -> {source, grade, points} of the cells a student may not change."""
    found = {}
    for cell in nb.cells:
        if is_protected_cell(cell):
            meta = nbgrader_metadata(cell)
            found[grade_id(cell)] = {
                "source": cell.source,
                "grade": is_graded_cell(cell),
                "points": meta.get("points"),
                "solution": is_solution_cell(cell),
                "meta": dict(meta),
            }
    return found


GRADING_KEYS = ("grade", "solution", "locked", "points", "schema_version")


def _metadata_note(name: str, gid: str, changed: list[str], had: dict, want: dict) -> str:
    """What differs in a cell's grading metadata from the assignment's, and that the assignment's is applied:
    after a point change every submission carries the old points, which is no fault of the student."""
    if changed == ["points"] and all(isinstance(m.get("points"), (int, float)) for m in (had, want)):
        return points_note(name, gid, had["points"], want["points"])
    return f"{name}: the grading metadata of cell `{gid}` differs from the assignment's (the assignment's is applied)"


def repair_cells(name: str, nb, expected: dict[str, dict]) -> list[str]:
    """Note what the student changed in cells they may not change, and undo it in the staged copy.

    nbgrader restores a locked cell's source, but gives up on the whole submission when a graded
    cell's metadata was changed ("Inconsistent checksums") or a cell is duplicated; here the grading
    flags of known cells are put back and a second copy of a known cell is dropped.
    """
    notes, seen, kept = [], set(), []
    for cell in nb.cells:
        meta = nbgrader_metadata(cell) or {}
        gid = grade_id(cell)
        want = expected.get(gid) if gid is not None else None
        if want is None:
            kept.append(cell)
            continue
        if gid in seen:
            notes.append(f"{name}: cell `{gid}` appears more than once (only the first counts)")
            continue
        seen.add(gid)
        kept.append(cell)
        if not want["solution"] and cell.source.strip() != strip_hidden(want["source"]).strip():
            notes.append(f"{name}: locked cell `{gid}` was edited (the original is graded)")
        changed = [k for k in GRADING_KEYS if meta.get(k) != want["meta"].get(k)]
        if changed:
            notes.append(_metadata_note(name, gid, changed, meta, want["meta"]))
            for key in changed:
                if key in want["meta"]:
                    meta[key] = want["meta"][key]
                else:
                    meta.pop(key, None)
    nb.cells = kept
    for gid, want in expected.items():
        if want["grade"] and not want["solution"] and gid not in seen:
            notes.append(f"{name}: test cell `{gid}` was deleted (0 points for it)")
    return notes


_DEFAULTS = NotebookLimits.from_config()  # what ResourceLimits says, written there once
MAX_OTHER_BYTES = _DEFAULTS.max_submitted_mb * 2**20
MAX_OTHER_FILES = _DEFAULTS.max_submitted_files


def copy_other_files(
    source: Path, target: Path, max_bytes: int = MAX_OTHER_BYTES, max_files: int = MAX_OTHER_FILES
) -> list[str]:
    """Copy the submission's files other than its notebooks, in name order, up to ``max_files`` files and
    ``max_bytes`` bytes in all; return a note on what was left out.  Symbolic links are never followed."""
    notes, used, copied, left = [], 0, 0, []
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if ".ipynb_checkpoints" in rel.parts:
            continue
        if path.is_symlink():
            notes.append(f"{rel}: a symbolic link, left out")
            continue
        if len(rel.parts) == 1 and path.suffix == ".ipynb":
            continue
        if not path.is_file():
            continue
        size = path.stat().st_size
        if copied >= max_files or used + size > max_bytes:
            left.append((rel, size))
            continue
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / rel)
        used, copied = used + size, copied + 1
    if left:
        notes.append(
            f"{len(left)} submitted file(s) ({sum(s for _, s in left) / 2**20:.1f} MiB, first {left[0][0]}) "
            f"left out: only {max_files} files and {max_bytes / 2**20:g} MiB besides the notebooks are "
            f"copied in for grading"
        )
    return notes


def stage_submission(
    assignment: Assignment,
    student: str,
    expected: dict[str, dict[str, dict]],
    *,
    max_other_bytes: int = MAX_OTHER_BYTES,
    max_other_files: int = MAX_OTHER_FILES,
) -> list[str]:
    """Copy ``submitted/<student>/<assignment>`` into the staging area; return notes on what was left out.

    ``expected`` maps each notebook name of the assignment to its :func:`locked_cells`.  Files other
    than the notebooks are copied up to the caps (:func:`copy_other_files`).
    """
    source = assignment.submitted(student)
    target = assignment.staged(student)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    notes, placed, strays = copy_other_files(source, target, max_other_bytes, max_other_files), set(), []
    for path in sorted(source.iterdir()):
        if path.is_dir() or path.is_symlink() or path.suffix != ".ipynb":
            continue
        try:
            nb = read_notebook(path)
        except ValueError as e:
            notes.append(str(e))
            if path.stem in expected:
                placed.add(path.stem)  # it was handed in, broken: do not look for a renamed stand-in
            continue
        if path.stem in expected:
            notes += repair_cells(path.stem, nb, expected[path.stem])
            nbformat.write(nb, str(target / path.name))
            placed.add(path.stem)
        else:
            strays.append((path, nb))
    for path, nb in strays:
        name = renamed_from(nb, expected, set(expected) - placed)
        if name:
            notes.append(f"{path.name}: graded as {name}.ipynb (renamed file)")
            notes += repair_cells(name, nb, expected[name])
            nbformat.write(nb, str(target / f"{name}.ipynb"))
            placed.add(name)
        else:
            notes.append(f"{path.name}: not a notebook of this assignment, left out")
    for name in sorted(set(expected) - placed):
        notes.append(f"{name}.ipynb: missing from the submission (0 points)")
    return notes
