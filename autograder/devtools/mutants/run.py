"""`python -m autograder mutants`: grade every mutant through the real hidden tests with nbgrader."""

from __future__ import annotations

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...config import grading_options, read_course_config
from ...course import ASSIGNMENT, Assignment, Course, make_scratch_course, repo_root
from ...grading.grade import grade_student
from ...grading.results import Status
from ...scratch import temporary_folder
from ..personas import filled_notebook, reference_solutions, write_submission
from . import Mutant, catalogue


@dataclass
class MutantRow:
    mutant: Mutant
    score: float
    max_score: float
    diagnoses: list[str]
    reason: str

    @property
    def caught(self) -> bool:
        return self.score < self.max_score

    @property
    def diagnosed(self) -> bool:
        return self.mutant.expects in self.diagnoses

    @property
    def ok(self) -> bool:
        if self.mutant.expects is None:
            return self.score == self.max_score and self.max_score > 0
        return self.caught and self.diagnosed


def student_id(m: Mutant) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{m.notebook[:2]}-{m.name}".lower())


def submission_for(repo: Path, m: Mutant):
    reference = reference_solutions(repo, m.notebook)
    if m.cell not in reference:
        raise KeyError(f"mutant {m.name}: {m.notebook} has no solution cell {m.cell!r}")
    return filled_notebook(repo, m.notebook, {m.cell: m.cell_source(reference[m.cell])})


def run_mutants(jobs: int = 2, names: list[str] | None = None, workdir: Path | None = None) -> list[MutantRow]:
    repo = repo_root()
    mutants, alternatives = catalogue()
    chosen = [m for m in mutants + alternatives if not names or m.name in names]
    with temporary_folder("mutants", workdir) as scratch:
        course = Path(scratch)
        db_url = make_scratch_course(course, repo)
        for m in chosen:
            write_submission(course, student_id(m), {m.notebook: submission_for(repo, m)})
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=ctx) as pool:
            options = grading_options(read_course_config(course), feedback=False)
            assignment = Assignment(Course(course), ASSIGNMENT)
            futures = [pool.submit(grade_student, assignment, student_id(m), db_url, options) for m in chosen]
            results = [f.result() for f in futures]
    rows = []
    for m, r in zip(chosen, results):
        tests = [t for t in r.tests if t.notebook == m.notebook]
        rows.append(
            MutantRow(
                m,
                sum(t.points for t in tests),
                sum(t.max_points for t in tests),
                [t.diagnosis for t in tests if t.diagnosis],
                r.reason or (str(r.status) if r.status is not Status.GRADED else ""),
            )
        )
    return rows


def format_table(rows: list[MutantRow]) -> str:
    header = f"{'mutant':34} {'notebook':22} {'expected diagnostic':24} {'score':>11}  caught  diagnosed"
    lines = [header, "-" * len(header)]
    for r in rows:
        expected = r.mutant.expects or "(correct: full marks)"
        if r.mutant.expects is None:
            caught, diagnosed = ("-", "-")
        else:
            caught, diagnosed = ("yes" if r.caught else "NO"), ("yes" if r.diagnosed else "NO")
        lines.append(
            f"{r.mutant.name:34} {r.mutant.notebook:22} {expected:24} {r.score:5g}/{r.max_score:<5g}  "
            f"{caught:6}  {diagnosed:9}" + ("" if r.ok else f"  <- got {sorted(set(r.diagnoses))} {r.reason}")
        )
    bugs = [r for r in rows if r.mutant.expects is not None]
    alts = [r for r in rows if r.mutant.expects is None]
    if bugs:
        lines.append(
            f"\nmutants: {len(bugs)}  caught: {sum(r.caught for r in bugs)} "
            f"({100 * sum(r.caught for r in bugs) / len(bugs):.0f}%)  diagnosed: {sum(r.diagnosed for r in bugs)} "
            f"({100 * sum(r.diagnosed for r in bugs) / len(bugs):.0f}%)"
        )
    if alts:
        lines.append(f"correct alternatives at full marks: {sum(r.ok for r in alts)}/{len(alts)}")
    return "\n".join(lines)
