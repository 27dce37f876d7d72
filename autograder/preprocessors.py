"""nbgrader preprocessors of the kit, one small class per step."""
from __future__ import annotations

import time

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Float

BUDGET_ENAME = "NotebookBudgetExceeded"


class BudgetedExecute(Execute):
    """nbgrader's Execute with a budget for the whole notebook, not only per cell.

    A notebook that hangs costs at most ``notebook_budget`` seconds: each cell may run for the
    smaller of ``Execute.timeout`` and what is left of the budget, and once the budget is spent the
    remaining code cells are not run but marked with a ``NotebookBudgetExceeded`` error (0 points).
    """

    notebook_budget = Float(120.0, help="Seconds one notebook may run in all.").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._deadline = time.monotonic() + self.notebook_budget
        self.timeout_func = self._cell_timeout
        return super().preprocess(nb, resources, km)

    def _remaining(self) -> float:
        return self._deadline - time.monotonic()

    def _cell_timeout(self, cell) -> int:
        per_cell = self.timeout if self.timeout and self.timeout > 0 else float("inf")
        return max(1, int(min(per_cell, self._remaining()) + 0.999))

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and cell.source.strip() and self._remaining() <= 0:
            cell.outputs = [NotebookNode(
                output_type="error", ename=BUDGET_ENAME,
                evalue=f"not run: the notebook used up its {self.notebook_budget:g} s budget",
                traceback=[f"{BUDGET_ENAME}: not run: the notebook used up its {self.notebook_budget:g} s budget"])]
            return cell, resources
        return super().preprocess_cell(cell, resources, index)
