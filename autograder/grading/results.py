"""Read what grading produced: per-test points from the gradebook, diagnoses from autograded notebooks;
and the values it travels as (a student's Status and results)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from ..cells import cell_name, first_failure, grade_id, is_graded_cell, is_solution_cell
from ..voice import KNOWN_IDS

if TYPE_CHECKING:  # the checker and the executor import NumPy, nbclient and nbgrader's preprocessors: results are read
    from .checker import Verdict  # without them (``grade``'s own process, the reports)

# what the executor writes as a cell's error when it stopped the notebook, and the results read back
BUDGET_ENAME = "NotebookBudgetExceeded"
DEAD_ENAME = "KernelDied"
LIMIT_ENAME = "ResourceLimitExceeded"

# the diagnosis of every test of a notebook that was not graded (missing, or not a notebook): no test of it
# ran, so the class report counts it apart from a test that ran and failed
NOT_GRADED = "not-graded"


class Status(str, Enum):
    """Where one student's submission stands after a grading run."""

    GRADED = "graded"
    SKIPPED = "skipped"  # graded by an earlier run, and unchanged since
    FAILED = "failed"  # could not be graded at all; the reason says why
    ERROR = "error"  # the kit's own side failed while grading it: no grade recorded, graded again next run

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass
class TestResult:
    notebook: str
    test: str
    points: float
    max_points: float
    diagnosis: str | None = None  # misconception id, or an error name for other failures
    message: str | None = None


@dataclass
class StudentResult:
    student: str
    status: Status
    reason: str = ""
    score: float = 0.0
    max_score: float = 0.0
    seconds: float = 0.0
    tests: list[TestResult] = field(default_factory=list)
    notebook_seconds: dict = field(default_factory=dict)
    # notebook -> how its kernel came up: "forked", or "started: <why>" (the ordinary start, and its reason)
    kernel_starts: dict = field(default_factory=dict)
    # step -> {"wall": s, "cpu": s of the grading process}: intake, autograde, gradebook, feedback (grade_student)
    step_seconds: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> StudentResult:
        d = dict(d)
        d["tests"] = [TestResult(**t) for t in d.get("tests", [])]
        d["status"] = Status(d["status"])
        return cls(**d)


def failure_text(test: TestResult) -> str:
    """What a student reads of a test that lost points: ``Diagnosis [id]: message`` for a diagnosis (a
    misconception or the checker's word), the message alone for any other failure (an error, a missing
    cell or notebook)."""
    plain = test.diagnosis in (None, "missing", NOT_GRADED) or (test.message or "").startswith(f"{test.diagnosis}:")
    if test.message and not plain:
        return f"Diagnosis [{test.diagnosis}]: {test.message}"
    return test.message or "This test did not pass."


SELF_CHECK_DIAGNOSIS = re.compile(r"\[([A-Za-z-]+)\] (.*)", re.S)  # str() of a notebook's Diagnosis: "[id] message"


def cell_failure(cell, verdict: Verdict | None = None) -> tuple[str | None, str | None]:
    """(diagnosis id, message) of a graded cell's first failure, or (None, None) when it passed.

    A ``Diagnosis`` the kernel showed is the checker's verdict, which the kernel was sent to raise: its
    id and message are taken from ``verdict`` itself, never parsed back out of the kernel's text."""
    out = first_failure(cell)
    if out is None:
        return None, None
    if out.get("output_type") == "error":
        ename, evalue = out.get("ename", ""), out.get("evalue", "")
        if ename == "Diagnosis" and verdict is not None and not verdict.passed:
            return verdict.diagnosis, verdict.message
        told = SELF_CHECK_DIAGNOSIS.match(evalue) if ename == "Diagnosis" else None
        if told and told.group(1) in KNOWN_IDS:  # the cell's visible self-check, after the hidden check passed
            return told.group(1), told.group(2).strip()
        return ename or "error", f"{ename}: {evalue}".strip()
    return "stderr", "the cell wrote to stderr: " + out.get("text", "")[:200]


def notebook_failures(nb, verdicts: dict[str, Verdict] | None = None) -> dict[str, tuple[str | None, str | None]]:
    """grade_id -> (diagnosis, message) for every graded cell of an autograded notebook."""
    verdicts = verdicts or {}
    return {
        grade_id(cell): cell_failure(cell, verdicts.get(grade_id(cell)))
        for cell in nb.cells
        if is_graded_cell(cell) and cell.cell_type == "code"
    }


def run_problems(path: Path, nb=None) -> list[str]:
    """Human reasons from an autograded notebook: timeouts, an exhausted budget, a dead kernel.  ``nb`` is
    the notebook at ``path`` when the caller has read it already."""
    nb = nb if nb is not None else nbformat.read(str(path), as_version=4)
    reasons = []
    for cell in nb.cells:
        name = cell_name(cell)
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
            elif is_solution_cell(cell) and out.get("ename") != DEAD_ENAME:
                reasons.append(f"{path.stem}: cell `{name}` raised {out.get('ename')}")
    return reasons
