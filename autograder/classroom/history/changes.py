"""What a regrade changed: two states of the class compared student by student and test by test.

A state is ``student -> Grade`` (see :mod:`.history`): the class as it stood after a recorded run,
or after a dry run.  The comparison feeds the end-of-run summary, ``diff``, ``grade --dry-run``,
``export --changed-since`` and the class report's "Changed since the last run".
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from ...grading.notes import SEPARATOR, class_notes, is_class_note, split_notes
from ...grading.results import Status
from .history import Grade

DIFF_COLUMNS = ["student", "notebook", "test", "before", "after"]
LARGEST = 5  # students shown at the end of a run, and tests shown for each


@dataclass
class TestChange:
    notebook: str
    test: str
    before: float | None  # None: the test was not in that grade
    after: float | None
    diagnosis: str | None = None  # the diagnosis after the change, if the test failed

    @property
    def name(self) -> str:
        return f"{self.notebook}/{self.test}"


@dataclass
class StudentChange:
    student: str
    before: Grade | None  # None: not graded before
    after: Grade | None
    tests: list[TestChange] = field(default_factory=list)

    @property
    def delta(self) -> float:
        return score(self.after) - score(self.before)


@dataclass
class Comparison:
    before_label: str
    after_label: str
    before: dict[str, Grade]
    after: dict[str, Grade]
    students: list[StudentChange]  # only students whose grade changed
    regraded: int = 0  # students graded before and graded again (changed or not)

    @property
    def changed_grades(self) -> list[StudentChange]:
        """Changes of students who had a grade before (a newcomer is not a change of a grade)."""
        return [c for c in self.students if c.before is not None and c.after is not None]

    @property
    def changed(self) -> list[str]:
        return [c.student for c in self.students]


def score(grade: Grade | None) -> float:
    return grade.score if grade is not None and grade.status == str(Status.GRADED) else 0.0


def points_text(text: float | None) -> str:
    return "" if text is None else f"{text:g}"


def _shown(grade: Grade | None) -> str:
    if grade is None:
        return "-"
    if grade.status != str(Status.GRADED):
        return grade.status
    return f"{grade.score:g}/{grade.max_score:g}"


def compare_grades(
    before: dict[str, Grade],
    after: dict[str, Grade],
    before_label: str = "before",
    after_label: str = "after",
    students: list[str] | None = None,
) -> Comparison:
    """Every student whose status, score or any test's points differ between ``before`` and ``after``."""
    changes = []
    for student in sorted(set(before) | set(after)):
        if students and student not in students:
            continue
        old, new = before.get(student), after.get(student)
        old_tests = old.tests if old else {}
        new_tests = new.tests if new else {}
        tests = []
        for key in sorted(set(old_tests) | set(new_tests)):
            was = old_tests[key][0] if key in old_tests else None
            now = new_tests[key][0] if key in new_tests else None
            if was != now:
                tests.append(TestChange(key[0], key[1], was, now, new_tests[key][2] if key in new_tests else None))
        same_grade = old is not None and new is not None and old.status == new.status and old.score == new.score
        if tests or not same_grade:
            changes.append(StudentChange(student, old, new, tests))
    return Comparison(before_label, after_label, before, after, changes)


def own_total(grades: dict[str, Grade]) -> float | None:
    """The total a state of the class is on: the one its latest grading was out of (a dry run's, run 0, is the
    latest); None when nobody is graded."""
    graded = [g for g in grades.values() if g.status == str(Status.GRADED)]
    if not graded:
        return None
    latest = max(graded, key=lambda g: (g.run_id or float("inf"), g.max_score))
    return latest.max_score


def on_own_total(grades: dict[str, Grade]) -> list[Grade]:
    """The graded students whose grade is out of the class's own total (:func:`own_total`): the only ones a
    mean may be taken over, never a mix of scales."""
    total = own_total(grades)
    return [g for g in grades.values() if g.status == str(Status.GRADED) and g.max_score == total]


def off_total(grades: dict[str, Grade]) -> int:
    """Graded students out of another total than the class's own (left out of its mean)."""
    return sum(g.status == str(Status.GRADED) for g in grades.values()) - len(on_own_total(grades))


def class_mean(grades: dict[str, Grade]) -> float | None:
    scores = [g.score for g in on_own_total(grades)]
    return sum(scores) / len(scores) if scores else None


def _mean_text(grades: dict[str, Grade]) -> str:
    mean = class_mean(grades)
    return "-" if mean is None else f"{mean:.1f}"


def _totals(grades: dict[str, Grade]) -> set[float]:
    total = own_total(grades)
    return set() if total is None else {total}


def out_of(grades: dict[str, Grade]) -> str:
    """The total the class's mean is out of (:func:`own_total`): ``100``; empty when nobody is graded."""
    total = own_total(grades)
    return "" if total is None else f"{total:g}"


def _means_text(before: dict[str, Grade], after: dict[str, Grade]) -> str:
    """``72.0 -> 74.5``; with each side's total when the totals differ (a point change), ``72.0/100 -> 74.5/102``,
    so that means out of different totals are not read as one scale."""
    totals = (_totals(before), _totals(after))
    if totals[0] == totals[1] or not all(totals):
        return f"{_mean_text(before)} -> {_mean_text(after)}"
    sides = []
    for grades in (before, after):
        sides.append(f"{_mean_text(grades)}/{out_of(grades)}")
    return " -> ".join(sides)


def _test_lines(change: StudentChange, width: int, most: int | None = None, indent: str = "    ") -> list[str]:
    lines = []
    for t in change.tests[:most]:
        why = f"  [{t.diagnosis}]" if t.diagnosis and (t.after or 0) < (t.before or 0) else ""
        line = f"{indent}{t.name:{width}} {points_text(t.before) or '-':>6} -> {points_text(t.after) or '-':<6}{why}"
        lines.append(line.rstrip())
    if most is not None and len(change.tests) > most:
        lines.append(f"{indent}... and {len(change.tests) - most} more test(s)")
    return lines


def _name_width(changes: list[StudentChange]) -> int:
    return max([len(t.name) for c in changes for t in c.tests] + [10])


def new_class_notes(comparison: Comparison) -> list[str]:
    """The notes on the assignment (a point change) that the later state has and the earlier had not, one line
    each for the class: why every score of a regrade moved, said once."""
    before = {n for g in comparison.before.values() for n in split_notes(g.reason) if is_class_note(n)}
    after = {
        s: SEPARATOR.join(n for n in split_notes(g.reason) if n not in before) for s, g in comparison.after.items()
    }
    return class_notes(after)


def format_summary(comparison: Comparison, largest: int = LARGEST) -> str:
    """The end-of-run summary: ups and downs among regraded students, the class mean, the largest changes."""
    regraded = comparison.changed_grades
    up = sum(c.delta > 0 for c in regraded)
    down = sum(c.delta < 0 for c in regraded)
    lines = [
        f"Changed since the last run ({comparison.before_label} -> {comparison.after_label}): "
        f"{comparison.regraded} student(s) regraded: {up} score(s) up, {down} down, "
        f"{comparison.regraded - up - down} the same; "
        f"class mean {_means_text(comparison.before, comparison.after)}"
    ]
    shown = sorted(regraded, key=lambda c: (-abs(c.delta), c.student))[:largest]
    for change in shown:
        lines.append(f"  {change.student}: {_shown(change.before)} -> {_shown(change.after)} ({change.delta:+g})")
        lines += _test_lines(change, _name_width(shown), largest)
    if len(regraded) > largest:
        lines.append(f"  ... and {len(regraded) - largest} more (`autograder diff` lists every change)")
    return "\n".join(lines)


def format_diff(comparison: Comparison) -> str:
    """``diff``'s table: each changed student with their score, then each changed test."""
    lines = [
        f"{comparison.before_label} -> {comparison.after_label}: "
        f"{len(comparison.students)} student(s) changed; class mean "
        f"{_means_text(comparison.before, comparison.after)}"
    ]
    lines += [f"  {note}" for note in new_class_notes(comparison)]
    for change in comparison.students:
        lines.append(f"{change.student}: {_shown(change.before)} -> {_shown(change.after)} ({change.delta:+g})")
        lines += _test_lines(change, _name_width(comparison.students))
    return "\n".join(lines)


def diff_rows(comparison: Comparison) -> list[list[str]]:
    """One row per changed test (a student whose grade changed without a test: one row, no test)."""
    rows = []
    for change in comparison.students:
        for t in change.tests:
            rows.append([change.student, t.notebook, t.test, points_text(t.before), points_text(t.after)])
        if not change.tests:
            rows.append([change.student, "", "", _shown(change.before), _shown(change.after)])
    return rows


def diff_csv(comparison: Comparison) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(DIFF_COLUMNS)
    writer.writerows(diff_rows(comparison))
    return buffer.getvalue()
