"""`python -m autograder collect ASSIGNMENT PATH`: put submissions from a folder or an LMS zip into submitted/.

Recognised layouts, nested folders included:
- ``<student>/<assignment>/<notebook>.ipynb`` and ``<student>/<notebook>.ipynb`` (nbgrader's own layout);
- Canvas-style file names ``<login>_[LATE_]<user id>_<submission id>_<notebook>[-N].ipynb``.
A roster CSV (columns ``student_id`` plus any of ``login``, ``lms_id``, ``canvas_id``, ``email``, ...;
see :mod:`autograder.classroom.lms.roster`) maps LMS names and ids to student ids.  A newer submission is
never replaced by an older one, and a tie of times is broken by what the LMS says (Canvas's ``-N``
resubmission suffix, then its submission id); every file that cannot be placed is reported with the reason.
"""

from __future__ import annotations

import os
import shutil
import time
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ...course import Assignment, Course
from ...scratch import temporary_folder
from .canvas_names import CANVAS, RESUBMIT_SUFFIX
from .roster import read_roster

IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints"}


@dataclass
class Placed:
    student: str
    notebook: str
    origin: str
    mtime: float


@dataclass
class CollectReport:
    placed: list[Placed] = field(default_factory=list)
    kept_newer: list[str] = field(default_factory=list)  # a newer notebook was already in submitted/
    superseded: list[tuple[str, str, str]] = field(default_factory=list)  # (ignored, kept, why) in the source
    unmatched: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about the roster

    def text(self) -> str:
        students = sorted({p.student for p in self.placed})
        lines = [*self.notes, f"collected {len(self.placed)} notebook(s) for {len(students)} student(s)"]
        for p in self.placed:
            lines.append(f"  {p.student:20} {p.notebook:26} <- {p.origin}")
        for ignored, kept, why in self.superseded:
            lines.append(f"  ignored {ignored}: {why} {kept}, which was collected")
        for origin in self.kept_newer:
            lines.append(f"  kept the newer submission already in place; ignored older {origin}")
        if self.unmatched:
            lines.append(f"{len(self.unmatched)} file(s) could not be placed:")
            for origin, why in self.unmatched:
                lines.append(f"  {origin}: {why}")
        return "\n".join(lines)


def _unpack(path: Path, scratch: Path) -> Path:
    if path.is_dir():
        return path
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                target = (scratch / info.filename).resolve()
                if not str(target).startswith(str(scratch.resolve())):
                    continue  # no path traversal out of the scratch folder
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with z.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                stamp = time.mktime(info.date_time + (0, 0, -1))
                os.utime(target, (stamp, stamp))
        return scratch
    raise ValueError(f"{path}: neither a folder nor a zip file")


def _lms_order(rel: Path) -> tuple[int, int]:
    """What the LMS says of the order of two files of one student and notebook: Canvas's resubmission
    suffix ``-N`` (none = 0), then its submission id; (0, 0) outside Canvas's names."""
    match = CANVAS.match(rel.name)
    stem = Path(match["file"]).stem if match else rel.stem
    suffix = RESUBMIT_SUFFIX.search(stem)
    return (int(suffix.group()[1:]) if suffix else 0, int(match["sub"]) if match else 0)


def _why_later(mtime: float, order: tuple[int, int], other_mtime: float, other_order: tuple[int, int]) -> str:
    """Why the file (mtime, order) replaces the other, in words for the report."""
    if mtime != other_mtime:
        return "older than"
    if order[0] != other_order[0]:
        return "same time, the LMS numbers it an earlier submission than"
    return "same time, an earlier LMS submission id than"


def _identify(rel: Path, notebooks: set[str], assignment: str, roster: dict[str, str]):
    """(student, notebook) for one file, or (None, reason)."""
    name = rel.stem
    match = CANVAS.match(rel.name)
    if match:
        nb = RESUBMIT_SUFFIX.sub("", Path(match["file"]).stem)
        login, user = match["login"].lower(), match["user"]
        student = roster.get(user) or roster.get(login) or (None if roster else match["login"])
        if nb not in notebooks:
            return None, f"not a notebook of {assignment!r} ({nb}.ipynb)"
        if student is None:
            return None, f"LMS user {match['login']} ({user}) is not in the roster"
        return student, nb
    parts = [p for p in rel.parts[:-1] if p != assignment]
    nb = RESUBMIT_SUFFIX.sub("", name)
    if nb not in notebooks:
        return None, f"not a notebook of {assignment!r}"
    if not parts:
        return None, "no student folder or LMS name to tell whose it is"
    folder = parts[-1]
    student = roster.get(folder.lower()) or (None if roster else folder)
    if student is None:
        return None, f"student folder {folder!r} is not in the roster"
    return student, nb


def collect(course_dir: Path, assignment: str, source: Path, roster_csv: Path | None = None) -> CollectReport:
    collected = Assignment(Course(course_dir), assignment)
    notebooks = {p.stem for p in collected.notebooks()}  # CourseError is a ValueError
    if not Path(source).exists():
        raise ValueError(f"{source}: no such file or folder")
    listed = read_roster(roster_csv) if roster_csv is not None else None
    roster = listed.lookup() if listed else {}
    if listed:  # names and emails for grades.csv
        from .lms import remember_roster

        remember_roster(course_dir, listed.entries)
    report = CollectReport()
    if listed and listed.unknown_note():
        report.notes.append(listed.unknown_note())
    with temporary_folder("collect") as scratch:
        root = _unpack(Path(source), Path(scratch))
        chosen: dict[tuple[str, str], tuple[Path, float, str, tuple[int, int]]] = {}
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            rel = path.relative_to(root)
            if IGNORED_PARTS & set(rel.parts) or rel.name.startswith("._"):
                continue
            origin = str(rel)
            if path.suffix != ".ipynb":
                report.unmatched.append((origin, "not a notebook (.ipynb)"))
                continue
            student, nb = _identify(rel, notebooks, assignment, roster)
            if student is None:
                report.unmatched.append((origin, nb))
                continue
            mtime, order = path.stat().st_mtime, _lms_order(rel)
            key = (student, nb)
            if key in chosen:  # a tie of times is broken by what the LMS says (resubmission -N, submission id)
                _, other_mtime, other_origin, other_order = chosen[key]
                if (other_mtime, other_order) >= (mtime, order):
                    report.superseded.append((origin, other_origin, _why_later(mtime, order, other_mtime, other_order)))
                    continue
                why = _why_later(other_mtime, other_order, mtime, order)
                report.superseded.append((other_origin, origin, why))
            chosen[key] = (path, mtime, origin, order)
        for (student, nb), (path, mtime, origin, _) in sorted(chosen.items()):
            folder = collected.submitted(student)
            target = folder / f"{nb}.ipynb"
            if target.exists() and target.stat().st_mtime > mtime:
                report.kept_newer.append(origin)
                continue
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            _write_timestamp(folder, mtime)
            report.placed.append(Placed(student, nb, origin, mtime))
    from .lms import remember_lms_names  # for `export --feedback-zip`: the LMS's own file names

    remember_lms_names(
        collected,
        [(p.student, p.notebook, p.origin) for p in report.placed if CANVAS.match(Path(p.origin).name)],
    )
    return report


def _write_timestamp(folder: Path, mtime: float) -> None:
    """nbgrader reads the submission time from timestamp.txt; keep the newest notebook's time."""
    stamp_file = folder / "timestamp.txt"
    new = datetime.fromtimestamp(mtime)
    try:
        old = datetime.fromisoformat(stamp_file.read_text().strip())
        if old >= new:
            return
    except (OSError, ValueError):
        pass
    stamp_file.write_text(new.isoformat(sep=" "))
