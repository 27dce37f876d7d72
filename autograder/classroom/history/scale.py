"""Every score that leaves the kit is on the assignment's current total, and none is above its maximum.

One check, :func:`check_scale`, stands before each file that carries scores: grades.csv, the per-test CSV,
each LMS target's file and the class report.  A score graded on other points than the source notebooks have
now (a point change not yet regraded, a gradebook restored from before it) is refused with one line naming the
students and what to run, instead of being written as, say, 102 out of 100.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...course import Assignment

SLACK = 1e-9  # float sums of points


class OffScale(ValueError):
    """Scores that are not on the assignment's current total: the message is one line, for the instructor."""


def current_total(assignment: Assignment) -> float:
    """The points of every graded cell of the source notebooks as they are now."""
    from ...grading.settings import expected_notebooks

    return sum(
        float(cell.get("points") or 0)
        for cells in expected_notebooks(assignment).values()
        for cell in cells.values()
        if cell.get("grade")
    )


def off_scale(rows: Iterable[tuple[str, float, float]], total: float) -> list[str]:
    """``student score/max`` of each row (student, score, max) above its max or out of another total."""
    return [
        f"{student} {score:g}/{most:g}"
        for student, score, most in rows
        if score > most + SLACK or abs(most - total) > SLACK or score < -SLACK
    ]


def check_scale(rows: Iterable[tuple[str, float, float]], total: float, target: str, shown: int = 5) -> None:
    """OffScale unless every row's score is within 0 and its max and every max is ``total``."""
    wrong = off_scale(rows, total)
    if wrong:
        more = f" and {len(wrong) - shown} more" if len(wrong) > shown else ""
        raise OffScale(
            f"{target} not written: {len(wrong)} grade(s) are not on the assignment's current total of {total:g} "
            f"({', '.join(wrong[:shown])}{more}); run `autograder grade` to grade them on it"
        )
