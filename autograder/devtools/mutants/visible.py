"""Run a release notebook's visible self-checks in this process, on the reference or on a mutant.

What a student sees before grading, without a kernel: every code cell of the release notebook (the
reference solutions filled in, ``mutant`` applied) runs in one namespace, and each test cell gives
``"pass"`` or the id its self-check failed with (``misconception`` of the notebook's own Diagnosis, or
the exception's type name for a plain failure) and the message.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from ...cells import grade_id, is_test_cell
from ...course import repo_root
from ..personas import filled_notebook, reference_solutions
from . import Mutant


def run_visible(notebook: str, mutant: Mutant | None = None, repo: Path | None = None) -> dict[str, tuple[str, str]]:
    """grade_id of each test cell -> ("pass", "") or (failure id, message)."""
    repo = repo or repo_root()
    overrides = {}
    if mutant is not None:
        overrides[mutant.cell] = mutant.cell_source(reference_solutions(repo, notebook)[mutant.cell])
    nb = filled_notebook(repo, notebook, overrides)
    ns: dict = {"__name__": "__student__"}
    outcome: dict[str, tuple[str, str]] = {}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            try:
                exec(compile(cell.source, f"<{grade_id(cell) or 'cell'}>", "exec"), ns)  # noqa: S102 - kit's own
                result = ("pass", "")
            except Exception as e:  # noqa: BLE001 - a failure is what is being recorded
                result = (getattr(e, "misconception", None) or type(e).__name__, str(getattr(e, "message", e)))
            if is_test_cell(cell):
                outcome[grade_id(cell)] = result
    return outcome
