"""`python -m autograder check NOTEBOOK`: run a notebook's visible self-checks (never the hidden tests)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from ..cells import first_failure, grade_id, is_test_cell, points, strip_hidden
from ..config import KitConfig

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class CheckRow:
    check: str
    points: float
    passed: bool
    message: str


def _failure_text(cell) -> str | None:
    out = first_failure(cell)
    if out is None:
        return None
    if out.get("output_type") == "error":
        return f"{out.get('ename')}: {ANSI.sub('', out.get('evalue', ''))}".strip()
    return "wrote to stderr (a graded cell must not): " + out.get("text", "").strip()[:200]


def run_self_checks(path: Path, timeout: int | None = None) -> list[CheckRow]:
    """Execute the notebook with hidden-test regions removed; one row per graded test cell.
    ``timeout`` is seconds per cell (default: the kit's cell timeout)."""
    path = Path(path)
    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception as e:  # noqa: BLE001 - any unreadable file gets the same clear message
        raise ValueError(f"{path}: not a readable notebook ({type(e).__name__}: {e})") from None
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = strip_hidden(cell.source)
    client = NotebookClient(nb, timeout=timeout or KitConfig().cell_timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute()
    rows = []
    for cell in nb.cells:
        if cell.cell_type == "code" and is_test_cell(cell):
            failure = _failure_text(cell)
            rows.append(CheckRow(grade_id(cell) or "?", points(cell), failure is None, failure or ""))
    return rows


def format_rows(path: Path, rows: list[CheckRow]) -> str:
    width = max([len(r.check) for r in rows] + [5])
    lines = [f"{path}", f"{'check':{width}}  points  result  message", "-" * (width + 30)]
    for r in rows:
        lines.append(f"{r.check:{width}}  {r.points:6g}  {'pass' if r.passed else 'FAIL':6}  {r.message}")
    passed = sum(r.passed for r in rows)
    lines.append(f"{passed}/{len(rows)} self-checks pass "
                 f"({sum(r.points for r in rows if r.passed):g}/{sum(r.points for r in rows):g} points if the hidden "
                 "tests agree; they draw new cases when the notebook is graded)")
    return "\n".join(lines)
