"""Exports: nbgrader's grades.csv (its own CSV plugin) and the kit's per-test CSV."""
from __future__ import annotations

import csv
from pathlib import Path

from ..grading.results import StudentResult

TEST_COLUMNS = ["student", "notebook", "test", "points", "max", "diagnostic", "message"]


def export_grades(db_url: str, assignment: str, target: Path) -> Path:
    """grades.csv with nbgrader's columns, written by nbgrader's CsvExportPlugin."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    plugin = CsvExportPlugin(to=str(target), assignment=[assignment])
    with Gradebook(db_url) as gb:
        plugin.export(gb)
    return target


def keep_students(target: Path, students: set[str]) -> Path:
    """Drop from an exported grades.csv every row of a student not in ``students``."""
    with open(target, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
        header = rows[0].keys() if rows else None
    if header is None:
        return target
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(header))
        writer.writeheader()
        writer.writerows(r for r in rows if r["student_id"] in students)
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
