"""`python -m autograder check NOTEBOOK`: run a notebook's visible self-checks (never the hidden tests).

One row per graded test cell (its points, pass / FAIL / not done, the message), then one 0-point row
per practice exercise (``cells.is_practice_check_cell``): practice is not graded, so the summary counts
it apart from the points.  A stub that still raises NotImplementedError is "not done", not a crash.
A demo cell (locked, ungraded, neither a test nor a practice check) whose output has a line starting
``FAIL`` (a gradient check's verdict) gets a 0-point row too: the visible self-checks passing and a demo
of the same notebook failing means a mistake the self-checks missed, which the hidden tests may find.
The summary never promises points: the self-checks see a few fixed cases, the hidden tests draw new ones.

It needs what the notebooks need, Python and NumPy, and nothing of Jupyter: the notebook is read as
JSON (``notebooks.read_notebook``) and its code cells run in order in a plain Python child process
(``cell_runner.py``), which reports each cell's output and error as a kernel would.  A cell that runs
past the timeout, or a child that dies, fails that cell and leaves the cells after it not run.
"""

from __future__ import annotations

import json
import queue
import re
import secrets
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from ..cells import first_failure, grade_id, is_practice_check_cell, is_solution, is_test_cell, points, strip_hidden
from ..notebooks import read_notebook

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# what the notebooks' self_check() says when the code it runs is still a stub (assignments/_shared/self_check.py)
NOT_IMPLEMENTED = "not implemented yet"
DIAGNOSIS_VALUE = re.compile(r"\[([A-Za-z-]+)\] (.*)", re.S)  # str() of a Diagnosis: "[id] message"
PASSED_LINE = "self-check passed:"
LISTS = re.compile(r"#(, #)+")
NUMBERS = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")  # the values of one case in a message (sizes, ids, measures)

PASS, FAIL, NOT_DONE = "pass", "FAIL", "not done"


@dataclass
class CheckRow:
    check: str
    points: float
    passed: bool
    message: str
    practice: bool = False  # a practice exercise's self-check: 0 points, counted apart
    done: bool = True  # False while the code it checks is still a stub
    demo: bool = False  # a demo cell whose output says FAIL: 0 points, told apart

    @property
    def result(self) -> str:
        return PASS if self.passed else FAIL if self.done else NOT_DONE

    @property
    def label(self) -> str:
        return f"{self.check} (practice)" if self.practice else f"{self.check} (demo)" if self.demo else self.check

    @property
    def graded(self) -> bool:
        return not (self.practice or self.demo)


def _failure_text(cell) -> str | None:
    out = first_failure(cell)
    if out is None:
        return None
    if out.get("output_type") == "error":
        ename, evalue = out.get("ename"), ANSI.sub("", out.get("evalue", ""))
        told = DIAGNOSIS_VALUE.match(evalue) if ename == "Diagnosis" else None
        if told:  # as the feedback writes a diagnosis (grading.results): "Diagnosis [id]: message"
            return f"Diagnosis [{told.group(1)}]: {told.group(2)}".strip()
        return f"{ename}: {evalue}".strip()
    return "wrote to stderr (a graded cell must not): " + out.get("text", "").strip()[:200]


def _not_done(cell) -> bool:
    """The cell failed only because the code it runs is still the released stub."""
    out = first_failure(cell)
    if out is None or out.get("output_type") != "error":
        return False
    return out.get("ename") == "NotImplementedError" or NOT_IMPLEMENTED in out.get("evalue", "")


def _printed(cell) -> str:
    """What a passing practice check printed (its measured numbers), without the "passed" line."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            lines = [line for line in out.get("text", "").splitlines() if line and not line.startswith(PASSED_LINE)]
            if lines:
                return lines[0][:200]
    return ""


def row_of(cell) -> CheckRow:
    """The row of an executed test cell or practice check cell."""
    failure = _failure_text(cell)
    practice = is_practice_check_cell(cell)
    message = failure if failure is not None else (_printed(cell) if practice else "")
    done = failure is None or not _not_done(cell)
    if not done:
        # self_check's own words: "X: not implemented yet"
        message = message.removeprefix("Diagnosis [not-implemented]: ").removeprefix("AssertionError: ")
    return CheckRow(
        grade_id(cell) or "?", 0.0 if practice else points(cell), failure is None, message, practice=practice, done=done
    )


def practice_rows(nb) -> list[CheckRow]:
    """The rows of an executed notebook's practice exercises, in notebook order."""
    return [row_of(cell) for cell in nb.cells if is_practice_check_cell(cell)]


DEMO_FAIL = "FAIL"


def is_demo_cell(cell) -> bool:
    """A cell the notebook gives, to run and read: locked code that is neither graded nor a practice check."""
    return (
        cell.cell_type == "code"
        and not is_test_cell(cell)
        and not is_practice_check_cell(cell)
        and not is_solution(cell)
        and bool(cell.metadata.get("nbgrader", {}).get("locked", False))
    )


def demo_rows(nb) -> list[CheckRow]:
    """A 0-point row for each demo cell whose printed output has a line starting with FAIL, in notebook order."""
    rows = []
    for cell in nb.cells:
        if not is_demo_cell(cell):
            continue
        printed = [
            line
            for out in cell.get("outputs", [])
            if out.get("output_type") == "stream" and out.get("name") == "stdout"
            for line in out.get("text", "").splitlines()
        ]
        failed = next((line for line in printed if line.startswith(DEMO_FAIL)), None)
        error = next((out for out in cell.get("outputs", []) if out.get("output_type") == "error"), None)
        if failed is None and error is not None and error.get("ename") not in DEMO_NOT_TOLD:
            # a demo that stops is a demo that fails: told like one that prints FAIL
            told = (
                DIAGNOSIS_VALUE.match(ANSI.sub("", error.get("evalue", "")))
                if error.get("ename") == "Diagnosis"
                else None
            )
            said = (ANSI.sub("", error.get("evalue", "")).strip().splitlines() or [""])[0]
            failed = (
                f"Diagnosis [{told.group(1)}]: {told.group(2)}".strip()  # as a self-check tells it, so it folds
                if told
                else f"FAIL: the demo stopped with {error.get('ename')}: {said}"
            )
        if failed is not None:
            rows.append(CheckRow(grade_id(cell) or "?", 0.0, False, failed.strip(), demo=True))
    return rows


# a demo stopped by these is not a mistake of its own: a stub not filled in yet, or a cell above that stopped the run
DEMO_NOT_TOLD = {"NotImplementedError", "NotRun"}


# seconds per cell: config.CELL_TIMEOUT, written again because config needs traitlets, which check must not (a test
# keeps the two equal)
DEFAULT_TIMEOUT = 60
RUNNER = Path(__file__).with_name("cell_runner.py")


def error_output(ename: str, evalue: str) -> dict:
    return {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": []}


def run_cells(sources: list[str], folder: Path, timeout: float) -> list[list[dict]]:
    """Each cell's outputs, in order, from running ``sources`` in one fresh Python whose working folder is
    ``folder`` (:mod:`cell_runner`).  A cell that is still running after ``timeout`` seconds, or during
    which the Python stopped, gets an error output saying so, and the cells after it one saying they
    did not run."""
    token = secrets.token_hex(8)
    child = subprocess.Popen(
        [sys.executable, str(RUNNER)],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in child.stdout:
            if line.startswith(token + " "):
                lines.put(json.loads(line[len(token) + 1 :]))
        lines.put(None)  # the child has ended

    threading.Thread(target=read, daemon=True).start()
    try:
        child.stdin.write(json.dumps({"token": token, "cells": sources}))
        child.stdin.close()
    except BrokenPipeError:
        pass
    results: list[list[dict]] = []
    try:
        while len(results) < len(sources):
            try:
                got = lines.get(timeout=timeout)
            except queue.Empty:
                results.append([error_output("TimeoutError", f"the cell ran longer than {timeout:g} s (--timeout)")])
                break
            if got is None:
                child.wait()
                results.append(
                    [
                        error_output(
                            "DeadKernelError", f"Python stopped while running this cell (exit code {child.returncode})"
                        )
                    ]
                )
                break
            results.append(got["outputs"])
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    not_run = error_output("NotRun", "not run: a cell above stopped the notebook")
    return results + [[not_run] for _ in range(len(sources) - len(results))]


def run_self_checks(path: Path, timeout: float | None = None) -> list[CheckRow]:
    """Run the notebook's code cells with hidden-test regions removed; one row per graded test cell, then
    one per practice exercise.  ``timeout`` is seconds per cell (default: DEFAULT_TIMEOUT)."""
    path = Path(path)
    nb = read_notebook(path)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    for cell, outputs in zip(
        code, run_cells([strip_hidden(cell.source) for cell in code], path.parent.resolve(), timeout or DEFAULT_TIMEOUT)
    ):
        cell.outputs = outputs
    graded = [row_of(cell) for cell in code if is_test_cell(cell)]
    return graded + practice_rows(nb) + demo_rows(nb)


def table(rows: list[CheckRow], max_points: list[float] | None = None) -> list[str]:
    """The rows as aligned lines: check, points (``earned/max`` when ``max_points`` is given), result, message."""
    width = max([len(r.label) for r in rows] + [5])
    shown = [
        f"{r.points:g}" if max_points is None or not r.graded else f"{r.points:g}/{m:g}"
        for r, m in zip(rows, max_points or [None] * len(rows))
    ]
    pwidth = max([len(s) for s in shown] + [6])
    lines = [f"{'check':{width}}  {'points':>{pwidth}}  result    message", "-" * (width + pwidth + 30)]
    indent = " " * (width + pwidth + 14)
    told: dict[str, str] = {}  # a diagnosis's first line -> the row that showed it whole
    for r, p in zip(rows, shown):
        first, *rest = r.message.splitlines() or [""]
        same = LISTS.sub("#", NUMBERS.sub("#", r.message))  # [1.0, 1.0] and [1.0, 1.0, 1.0] alike
        # the same text, or that text with a sentence added (why this cell stopped), counts as the same
        same = next((k for k in told if same.startswith(k) or k.startswith(same)), same)
        if not r.passed and first.startswith("Diagnosis [") and same in told:
            # one mistake met by several checks (a wrong forward stops every cell that calls it): said once.  Only
            # messages that differ in their numbers alone (each check's sizes) are folded: two that share a headline
            # may differ in what they blame (dE, dP), and each is then told in full.
            first, rest = f"the same diagnosis as {told[same]} above: fix it there, then run check again", []
        elif not r.passed and first.startswith("Diagnosis ["):
            told[same] = r.check
        lines.append(f"{r.label:{width}}  {p:>{pwidth}}  {r.result:8}  {first}".rstrip())
        lines += [indent + line for line in rest if line.strip()]  # a diagnosis's fix, under its headline
    return lines


def practice_summary(rows: list[CheckRow]) -> str | None:
    practice = [r for r in rows if r.practice]
    if not practice:
        return None
    not_done = sum(not r.done for r in practice)
    return f"practice exercises (not graded, 0 points): {sum(r.passed for r in practice)}/{len(practice)} pass" + (
        f", {not_done} not done" if not_done else ""
    )


SEES = (
    "The self-checks try the few fixed cases written in this notebook, so passing them cannot promise points: the "
    "hidden tests draw new cases when the notebook is graded."
)
THOROUGH = (
    "`check --thorough` (with the kit's clone) runs those hidden tests here, as grading does, with the diagnosis and "
    "the smallest failing case of each failure."
)


def format_rows(path: Path, rows: list[CheckRow]) -> str:
    graded = [r for r in rows if r.graded]
    demos = [r for r in rows if r.demo]
    lines = [f"{path}", *table(rows)]
    passed = sum(r.passed for r in graded)
    lines.append(f"{passed}/{len(graded)} self-checks pass ({sum(r.points for r in graded):g} points at stake)")
    practice = practice_summary(rows)
    if practice:
        lines.append(practice)
    if demos and passed == len(graded):
        names = ", ".join(r.check for r in demos)
        lines.append(
            f"warning: every self-check passes, but {names} says FAIL: your code has a mistake the self-checks did not "
            "meet, and the hidden tests may. Find it before you submit (the demo's line above says which gradient)."
        )
    elif demos:
        lines.append(f"{', '.join(r.check for r in demos)} says FAIL too: fix the failing self-checks first.")
    lines += [SEES, THOROUGH]
    return "\n".join(lines)


def all_graded_pass(rows: list[CheckRow]) -> bool:
    """What `check` exits 0 on: every graded self-check passes and no demo says FAIL (practice rows inform, they
    do not count)."""
    graded = [r for r in rows if r.graded]
    return bool(graded) and all(r.passed for r in graded) and not any(r.demo for r in rows)
