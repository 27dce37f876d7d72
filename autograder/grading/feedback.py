"""The feedback step's own preprocessor: what a student may see of a failed test cell."""
from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from ..cells import is_test_cell


class ScrubTestTracebacks(NbGraderPreprocessor):
    """Replace the traceback of every error in a test cell by its one-line message.

    IPython's tracebacks quote the source lines around the failing one, and in a test cell those lines
    can be hidden-test code (upstream #917, #1363).  A kit diagnosis already renders as its message
    alone; every other error (a NameError because a solution cell failed, a visible assertion) is cut
    down to ``ename: evalue`` here.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and is_test_cell(cell):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error" and out.get("ename") != "Diagnosis":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
        return cell, resources
