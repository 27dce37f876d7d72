"""The autograde step that applies the hidden checks' verdicts: a test keeps its points only if its
hidden check, run outside the kernel in this grading, passed it.

:class:`ApplyVerdicts` runs in nbgrader's converter right after ``SaveAutoGrades``, as nbgrader's own
steps do: it reads what the executor left in ``resources`` (:data:`~.checker.VERDICTS`) and writes the
gradebook in the same converter run.  A test that scored in the student's kernel without a passing
verdict gets nbgrader's manual score 0.  nbgrader keeps a manual score across regrades, so the kit
records which cells it zeroed (``Assignment.verdict_record``) and clears those first: a fixed resubmission
is judged afresh, and an instructor's own manual scores are never touched.

The verdicts, and the cells zeroed, are also left in the autograded notebook's metadata
(:data:`RECORD_KEY`), written after the metadata cleaner, where :func:`recorded_verdicts` reads them
back for the student's results.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode, default

from ..course import Assignment, Course
from .checker import VERDICTS, Verdict

RECORD_KEY = "kit_verdicts"  # autograded notebook metadata: {"verdicts": {grade_id: Verdict fields}, "zeroed": [...]}
NO_VERDICT = Verdict(False, "unverified", "no hidden check passed this test in this grading")


class ApplyVerdicts(NbGraderPreprocessor):
    """Zero every graded cell that scored in the kernel but was not passed by its hidden checks."""

    course_root = Unicode(
        help="The course whose .kit/ records the cells the kit zeroed (default: CourseDirectory.root)."
    ).tag(config=True)

    @default("course_root")
    def _default_course_root(self) -> str:
        return str(self.config.CourseDirectory.get("root") or ".")

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook, MissingEntry

        names = resources["nbgrader"]
        notebook, assignment, student = names["notebook"], names["assignment"], names["student"]
        # no verdicts at all (the executor ran no outside checks) is no passing verdict: nothing scores
        verdicts: dict[str, Verdict] = resources.get(VERDICTS) or {}
        # nbgrader hands this step the names only: the assignment is made here, from the course's root
        record = Assignment(Course(self.course_root), assignment).verdict_record(student)
        previous = json.loads(record.read_text()) if record.exists() else []
        zeroed = []
        with Gradebook(names["db_url"]) as gb:
            try:
                grades = gb.find_submission_notebook(notebook, assignment, student).grades
            except MissingEntry:
                grades = []
            for grade in grades:
                if [notebook, grade.name] in previous and grade.manual_score == 0.0:
                    grade.manual_score = None  # the kit's own zero of the last grading: judged afresh
                if not verdicts.get(grade.name, NO_VERDICT).passed and (grade.score or 0) > 0:
                    grade.manual_score = 0.0
                    zeroed.append(grade.name)
            gb.db.commit()
        kept = [entry for entry in previous if entry[0] != notebook]  # the other notebooks' records stay
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(kept + [[notebook, name] for name in zeroed]))
        nb.metadata[RECORD_KEY] = {"verdicts": {gid: asdict(v) for gid, v in verdicts.items()}, "zeroed": zeroed}
        return nb, resources


def recorded_verdicts(nb) -> tuple[dict[str, Verdict], list[str]] | None:
    """(grade_id -> Verdict, grade ids the kit zeroed) from an autograded notebook; None when no
    verdicts were applied to it."""
    record = nb.metadata.get(RECORD_KEY)
    if not isinstance(record, dict):
        return None
    verdicts = {gid: Verdict(**fields) for gid, fields in (record.get("verdicts") or {}).items()}
    return verdicts, list(record.get("zeroed") or [])
