"""`python -m autograder similarity ASSIGNMENT` (and the end of `grade`): compare the class's solution
cells, write ``similarity.csv`` and the similarity page beside the class report."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ...config import SimilarityConfig, read_course_config
from ...course import Assignment
from .similarity import NotebookResult, Pair, compare_class, flagged, write_csv
from .similarity_page import report_section, text_table, write_page


@dataclass
class SimilarityOutcome:
    results: list[NotebookResult]
    flagged: list[Pair]  # at or above the threshold
    threshold: float
    csv: Path
    page: Path
    seconds: float

    def report_section(self) -> str:
        return report_section(self.flagged, self.threshold)


def similarity_options(course_dir: Path, config=None, **overrides) -> SimilarityConfig:
    """The course's ``c.SimilarityConfig`` with every override that is not None written over it."""
    options = SimilarityConfig(config=config if config is not None else read_course_config(course_dir))
    for name, value in overrides.items():
        if value is not None:
            setattr(options, name, value)
    return options


def run_similarity(assignment: Assignment, report_dir: Path | None, options: SimilarityConfig) -> SimilarityOutcome:
    """Compare the class; write the CSV and the page to ``report_dir`` (default: the course's reports folder)."""
    started = time.perf_counter()
    report_dir = report_dir or assignment.reports
    past = Path(options.past) if options.past else None
    if past is not None and not past.is_absolute():
        past = assignment.root / past
    results = compare_class(assignment, past, options.common_share)
    csv_path = write_csv(results, report_dir / "similarity.csv")
    page = write_page(results, report_dir, assignment.name, shown=options.shown, threshold=options.threshold)
    return SimilarityOutcome(
        results, flagged(results, options.threshold), options.threshold, csv_path, page, time.perf_counter() - started
    )


def summary(outcome: SimilarityOutcome) -> str:
    above = len(outcome.flagged)
    return (
        f"Similar solutions (for a person to review; {above} pair(s) at or above {outcome.threshold:g}, "
        f"compared in {outcome.seconds:.1f}s):\n{text_table(outcome.results)}"
    )


@dataclass
class AfterGrading:
    """What `grade` adds to its report and its output."""

    sections: tuple[str, ...]  # HTML for the class report
    text: str  # for the terminal
    where: str  # the "similar:  PATH" line, or nothing


def after_grading(assignment: Assignment, report_dir: Path, config) -> AfterGrading:
    """The similarity step at the end of `grade`; a bad option (a missing past-terms folder) is reported and
    the class report still written, since the grading itself is done.  A course with one submission and no
    past terms to compare it with is not compared (nothing to pair it with), and the output says so."""
    options = similarity_options(assignment.root, config)
    if not options.past and len(assignment.students("submitted")) < 2:
        why = "one submission and no past terms (c.SimilarityConfig.past) to compare it with"
        return AfterGrading(
            (f"<h2>Similar solutions</h2>\n<p>Not compared: {why}.</p>",), f"similarity: not compared: {why}", ""
        )
    try:
        outcome = run_similarity(assignment, report_dir, options)
    except ValueError as e:
        return AfterGrading((), f"similarity: not compared: {e}", "")
    return AfterGrading((outcome.report_section(),), summary(outcome), f"similar:  {outcome.page}\n")
