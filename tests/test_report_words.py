"""Every mistake the class report can list is described in words, never by its id alone (`scaled  scaled`)."""

from __future__ import annotations

from autograder.classroom.report import SKIP_IDS, describe, figures, text_report
from autograder.grading.results import Status, StudentResult, TestResult
from autograder.hidden.diagnostics import KNOWN_IDS


def test_every_mistake_the_report_can_list_has_its_description():
    listed = sorted(set(KNOWN_IDS) - SKIP_IDS)
    assert "scaled" in listed
    for code in listed:
        assert describe(code) not in ("", code), code
    # and the report's own table, for a class that hit each of them
    results = [
        StudentResult(
            f"s{i}",
            Status.GRADED,
            "",
            score=0.0,
            max_score=5.0,
            tests=[TestResult("05_embedding_layer", "test-x", 0.0, 5.0, code, "")],
        )
        for i, code in enumerate(listed)
    ]
    text = text_report(figures(results))
    for code in listed:
        line = next(line for line in text.splitlines() if f"  {code} " in line)
        assert KNOWN_IDS[code] in line, line
