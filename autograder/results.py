"""Read what grading produced: per-test points from the gradebook, diagnoses from autograded notebooks."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

DIAGNOSIS = re.compile(r"^\[([a-zA-Z0-9-]+)\] (.*)", re.S)


@dataclass
class TestResult:
    notebook: str
    test: str
    points: float
    max_points: float
    diagnosis: str | None = None   # misconception id, or an error name for other failures
    message: str | None = None


@dataclass
class StudentResult:
    student: str
    status: str                    # graded | failed | skipped
    reason: str = ""
    score: float = 0.0
    max_score: float = 0.0
    seconds: float = 0.0
    tests: list[TestResult] = field(default_factory=list)
    notebook_seconds: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "StudentResult":
        d = dict(d)
        d["tests"] = [TestResult(**t) for t in d.get("tests", [])]
        return cls(**d)


def cell_failure(cell) -> tuple[str | None, str | None]:
    """(diagnosis id, message) of a graded cell's first failure, or (None, None) when it passed."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            ename, evalue = out.get("ename", ""), out.get("evalue", "")
            match = DIAGNOSIS.match(evalue)
            if ename == "Diagnosis" and match:
                return match.group(1), match.group(2)
            return ename or "error", f"{ename}: {evalue}".strip()
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            return "stderr", "the cell wrote to stderr: " + out.get("text", "")[:200]
    return None, None


def notebook_failures(path: Path) -> dict[str, tuple[str | None, str | None]]:
    """grade_id -> (diagnosis, message) for every graded cell of an autograded notebook."""
    nb = nbformat.read(str(path), as_version=4)
    found = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            found[meta["grade_id"]] = cell_failure(cell)
    return found


def run_problems(path: Path) -> list[str]:
    """Human reasons from an autograded notebook: timeouts, an exhausted budget, a dead kernel."""
    from .preprocessors import BUDGET_ENAME, DEAD_ENAME, LIMIT_ENAME

    nb = nbformat.read(str(path), as_version=4)
    reasons = []
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id") or cell.get("id", "?")
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            if out.get("ename") == LIMIT_ENAME:
                reasons.append(f"{path.stem}: {out.get('evalue', '')}")
                return reasons
            if out.get("ename") == "CellTimeoutError":
                reasons.append(f"{path.stem}: timed out in cell `{name}`")
            elif out.get("ename") == DEAD_ENAME and "while running" in out.get("evalue", ""):
                reasons.append(f"{path.stem}: kernel died in cell `{name}`")
            elif out.get("ename") == BUDGET_ENAME:
                reasons.append(f"{path.stem}: ran out of its time budget before cell `{name}`")
                return reasons
            elif cell.metadata.get("nbgrader", {}).get("solution") and out.get("ename") != DEAD_ENAME:
                reasons.append(f"{path.stem}: cell `{name}` raised {out.get('ename')}")
    return reasons
