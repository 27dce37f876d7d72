"""Intake: a checked copy of one submission for nbgrader to grade; the submission itself is never touched.

Every notebook is read strictly. A file that is not UTF-8, not JSON or not a valid notebook stays out of
the copy, with the reason recorded (it then scores 0, like a missing notebook). A notebook under a
name the assignment does not have is placed under its real name when its graded cells say which one
it is (a renamed file); otherwise it is left out and reported.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat

from .validate import strip_hidden

STAGING = ".kit/staging"
MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024


def read_notebook(path: Path):
    """The notebook at ``path`` as nbformat v4, or raise ValueError with a reason a person can read."""
    data = path.read_bytes()
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{path.name}: {len(data) / 2**20:.0f} MiB is larger than the {MAX_NOTEBOOK_BYTES // 2**20} MiB limit")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path.name}: not UTF-8 text (byte {e.start})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path.name}: not a notebook: invalid JSON at line {e.lineno}, column {e.colno}") from None
    if not isinstance(raw, dict) or "cells" not in raw and "worksheets" not in raw:
        raise ValueError(f"{path.name}: not a notebook: the JSON has no cells")
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # noqa: BLE001 - nbformat raises several kinds; the reason is what matters
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path.name}: not a valid notebook (nbformat {raw.get('nbformat', '?')}): {first[:200]}") from None
    return nb


def grade_ids(nb) -> set[str]:
    return {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells} - {None}


def locked_cells(nb) -> dict[str, dict]:
    """grade_id -> {source, grade, points} of the cells a student may not change."""
    found = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("locked") or meta.get("grade"):
            found[meta["grade_id"]] = {"source": cell.source, "grade": bool(meta.get("grade")),
                                       "points": meta.get("points"), "solution": bool(meta.get("solution"))}
    return found


def tampered_cells(name: str, nb, expected: dict[str, dict]) -> list[str]:
    """What the student changed in cells they may not change (nbgrader restores what it can)."""
    notes, seen = [], {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        gid = meta.get("grade_id")
        if gid is None:
            continue
        seen[gid] = seen.get(gid, 0) + 1
        want = expected.get(gid)
        if want is None:
            continue
        if want["solution"]:
            if not meta.get("solution"):
                notes.append(f"{name}: cell `{gid}` is no longer marked as a solution cell")
            continue
        if cell.source.strip() != strip_hidden(want["source"]).strip():
            notes.append(f"{name}: locked cell `{gid}` was edited (the original is graded)")
        if bool(meta.get("grade")) != want["grade"] or (want["grade"] and meta.get("points") != want["points"]):
            notes.append(f"{name}: the grading metadata of cell `{gid}` was changed (the original is used)")
    for gid, count in seen.items():
        if count > 1:
            notes.append(f"{name}: cell `{gid}` appears {count} times")
    for gid, want in expected.items():
        if want["grade"] and not want["solution"] and gid not in seen:
            notes.append(f"{name}: test cell `{gid}` was deleted (0 points for it)")
    return notes


def stage_submission(course_dir: Path, assignment: str, student: str, expected: dict[str, dict[str, dict]]) -> list[str]:
    """Copy ``submitted/<student>/<assignment>`` into the staging area; return notes on what was left out.

    ``expected`` maps each notebook name of the assignment to its :func:`locked_cells`.
    """
    course_dir = Path(course_dir)
    source = course_dir / "submitted" / student / assignment
    target = course_dir / STAGING / student / assignment
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    notes, placed, strays = [], set(), []
    for path in sorted(source.iterdir()):
        if path.is_dir():
            if path.name != ".ipynb_checkpoints":
                shutil.copytree(path, target / path.name, symlinks=False, ignore_dangling_symlinks=True)
            continue
        if path.is_symlink():
            notes.append(f"{path.name}: a symbolic link, left out")
            continue
        if path.suffix != ".ipynb":
            shutil.copy(path, target / path.name)
            continue
        try:
            nb = read_notebook(path)
        except ValueError as e:
            notes.append(str(e))
            if path.stem in expected:
                placed.add(path.stem)  # it was handed in, broken: do not look for a renamed stand-in
            continue
        if path.stem in expected:
            nbformat.write(nb, str(target / path.name))
            placed.add(path.stem)
            notes += tampered_cells(path.stem, nb, expected[path.stem])
        else:
            strays.append((path, nb))
    for path, nb in strays:
        ids = grade_ids(nb)
        candidates = [name for name, wanted in expected.items() if name not in placed and ids & set(wanted)]
        if len(candidates) == 1:
            nbformat.write(nb, str(target / f"{candidates[0]}.ipynb"))
            placed.add(candidates[0])
            notes.append(f"{path.name}: graded as {candidates[0]}.ipynb (renamed file)")
            notes += tampered_cells(candidates[0], nb, expected[candidates[0]])
        else:
            notes.append(f"{path.name}: not a notebook of this assignment, left out")
    for name in sorted(set(expected) - placed):
        notes.append(f"{name}.ipynb: missing from the submission (0 points)")
    return notes
