"""Imported by the run's fork server only (``retries.WARM``, where two workers or more grade students), after the
grading: what every worker would otherwise work out for itself the first time, worked out once here and inherited
by each worker forked from this process.

- The feedback pages' highlighting of the given code (``grading.feedback.highlight_given_code``) of the kit's own
  assignment, as released and as its source has it: some 0.65 s of CPU a worker spent on its first student.  A
  course whose given code differs gets nothing from it: its cells are highlighted in each worker, as before.

A failure here is only a head start lost: each worker does the work itself.
"""

from __future__ import annotations


def warm() -> None:
    try:
        from ...course import kit_assignment
        from ...grading.feedback import highlight_given_code

        assignment = kit_assignment()
        highlight_given_code(
            [p for step in ("source", "release") for p in sorted(assignment.folder(step).glob("*.ipynb"))]
        )
    except Exception:  # noqa: BLE001, S110 - only a head start
        pass


warm()
