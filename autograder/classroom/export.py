"""Exports: nbgrader's grades.csv (its own CSV plugin) and the kit's per-test CSV."""
from __future__ import annotations

import csv
import os
from pathlib import Path

from ..grading.results import StudentResult

TEST_COLUMNS = ["student", "notebook", "test", "points", "max", "diagnostic", "message"]


def export_grades(db_url: str, assignment: str, target: Path, leave_out: set[str] = frozenset()) -> Path:
    """grades.csv with nbgrader's columns, written by nbgrader's CsvExportPlugin, without the rows of the
    students in ``leave_out`` (not graded in this run: nbgrader would list them with 0).  Written aside
    and then moved over the old file: a full disk leaves the previous grades.csv whole."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    target = Path(target)
    aside = target.with_name(f".{target.name}.tmp")
    plugin = CsvExportPlugin(to=str(aside), assignment=[assignment])
    try:
        with Gradebook(db_url) as gb:
            plugin.export(gb)
        if leave_out:
            with open(aside, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            with open(aside, "w", newline="", encoding="utf-8") as f:
                writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["student_id"])
                writer.writeheader()
                writer.writerows(r for r in rows if r.get("student_id") not in leave_out)
        os.replace(aside, target)
    finally:
        aside.unlink(missing_ok=True)
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
