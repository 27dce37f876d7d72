"""Exports: nbgrader's grades.csv (its own CSV plugin) and the kit's per-test CSV."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from ...grading.results import Status, StudentResult
from ..history.scale import check_scale

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


def sort_rows(target: Path, key: str, keep: set[str] | None = None, leave_out: set[str] = frozenset()) -> None:
    """Rewrite the CSV at ``target`` with its rows sorted by column ``key`` (its header kept first);
    with ``keep``, only the rows whose ``key`` is in it; never the rows whose ``key`` is in ``leave_out``."""
    with open(target, newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f))
    column = header.index(key)
    rows = [row for row in rows if (keep is None or row[column] in keep) and row[column] not in leave_out]
    with open(target, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([header, *sorted(rows, key=lambda row: row[column])])


def export_grades(
    db_url: str,
    assignment: str,
    target: Path,
    roster: dict[str, dict[str, str]] | None = None,
    students: set[str] | None = None,
    leave_out: set[str] = frozenset(),
    total: float | None = None,
) -> Path:
    """grades.csv with nbgrader's columns, written by nbgrader's CsvExportPlugin, one row per student sorted
    by student id (``students``: only these); names and emails the gradebook lacks come from ``roster``
    (:func:`~.lms.load_roster`).  The students in ``leave_out`` (not graded in this run: nbgrader would list
    them at 0) get no row.  With ``total`` (the assignment's current total), a row off that scale stops the
    export (:func:`~..history.scale.check_scale`), the old file kept.  Written aside and then moved over the
    old file: a full disk leaves the previous grades.csv whole."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    target = Path(target)
    aside = target.with_name(f".{target.name}.tmp")
    plugin = CsvExportPlugin(to=str(aside), assignment=[assignment])
    try:
        with Gradebook(db_url) as gb:
            if roster:
                name_students(gb, roster)
            plugin.export(gb)
        sort_rows(aside, "student_id", students, leave_out)
        if total is not None:
            with open(aside, newline="", encoding="utf-8") as f:
                rows = [
                    (r["student_id"], float(r["score"] or 0), float(r["max_score"] or 0)) for r in csv.DictReader(f)
                ]
            check_scale(rows, total, str(target))
        os.replace(aside, target)
    finally:
        aside.unlink(missing_ok=True)
    return target


def scored_rows(results: list[StudentResult]) -> list[tuple[str, float, float]]:
    """(student, score, max) of each graded student, and of each of their tests against the test's own max
    (a test's max is checked by the student's: only the score may not pass it)."""
    rows = []
    for r in results:
        if r.status in (Status.GRADED, Status.SKIPPED):
            rows.append((r.student, r.score, r.max_score))
            rows += [
                (f"{r.student}/{t.notebook}/{t.test}", t.points, r.max_score)
                for t in r.tests
                if t.points > t.max_points
            ]
    return rows


def export_tests(results: list[StudentResult], target: Path, total: float | None = None) -> Path:
    """One row per student and test cell: points, max and the diagnosis id of a failure; with ``total``, none
    off the assignment's current total (:func:`~..history.scale.check_scale`)."""
    if total is not None:
        check_scale(scored_rows(results), total, str(target))
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(TEST_COLUMNS)
        for r in results:
            if not r.tests:
                writer.writerow([r.student, "", "", 0, r.max_score, r.status, r.reason])
            for t in r.tests:
                writer.writerow(
                    [
                        r.student,
                        t.notebook,
                        t.test,
                        f"{t.points:g}",
                        f"{t.max_points:g}",
                        t.diagnosis or "",
                        (t.message or "").splitlines()[0][:300] if t.message else "",
                    ]
                )
    return target
