"""Exports: nbgrader's grades.csv (its own CSV plugin) and the kit's per-test CSV."""
from __future__ import annotations

import csv
from pathlib import Path

from ..grading.results import StudentResult

TEST_COLUMNS = ["student", "notebook", "test", "points", "max", "diagnostic", "message"]


def split_name(name: str) -> tuple[str, str]:
    """(first name, last name) of a roster's name: "Last, First" as LMS exports write it, else "First Last"."""
    name = " ".join(name.split())
    if "," in name:
        last, first = (part.strip() for part in name.split(",", 1))
        return first, last
    first, _, last = name.rpartition(" ")
    return first, last


def name_students(gb, roster: dict[str, dict[str, str]]) -> None:
    """Fill the gradebook's empty names and emails from the roster ``collect`` recorded (never overwrite)."""
    for student in gb.students:
        entry = roster.get(student.id)
        if not entry:
            continue
        first, last = split_name(entry.get("name") or "")
        if not (student.first_name or student.last_name) and (first or last):
            student.first_name, student.last_name = first or None, last or None
        if not student.email and entry.get("email"):
            student.email = entry["email"]
    gb.db.commit()


def sort_rows(target: Path, key: str, keep: set[str] | None = None) -> None:
    """Rewrite the CSV at ``target`` with its rows sorted by column ``key`` (its header kept first);
    with ``keep``, only the rows whose ``key`` is in it."""
    with open(target, newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f))
    column = header.index(key)
    rows = [row for row in rows if keep is None or row[column] in keep]
    with open(target, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([header, *sorted(rows, key=lambda row: row[column])])


def export_grades(db_url: str, assignment: str, target: Path, roster: dict[str, dict[str, str]] | None = None,
                  students: set[str] | None = None) -> Path:
    """grades.csv with nbgrader's columns, written by nbgrader's CsvExportPlugin, one row per student sorted
    by student id (``students``: only these); names and emails the gradebook lacks come from ``roster``
    (:func:`~.lms.load_roster`)."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    plugin = CsvExportPlugin(to=str(target), assignment=[assignment])
    with Gradebook(db_url) as gb:
        if roster:
            name_students(gb, roster)
        plugin.export(gb)
    sort_rows(target, "student_id", students)
    return target


def export_tests(results: list[StudentResult], target: Path) -> Path:
    """One row per student and test cell: points, max and the diagnosis id of a failure."""
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(TEST_COLUMNS)
        for r in results:
            if not r.tests:
                writer.writerow([r.student, "", "", 0, r.max_score, r.status, r.reason])
            for t in r.tests:
                writer.writerow([r.student, t.notebook, t.test, f"{t.points:g}", f"{t.max_points:g}",
                                 t.diagnosis or "", (t.message or "").splitlines()[0][:300] if t.message else ""])
    return target
