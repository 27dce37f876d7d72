"""The fixed cost of a small `grade` run: what means nothing for one student is not done, and the output says so."""

from __future__ import annotations

import shutil
from xml.etree import ElementTree

from autograder.classroom import svg_charts
from autograder.classroom.report import CHARTS, figures, text_report, write_report
from autograder.classroom.similarity.similarity_command import after_grading
from autograder.course import ASSIGNMENT, Assignment, Course
from autograder.devtools.personas import write_submission
from autograder.grading import results

from .conftest import REPO, persona_notebooks


def student(sid: str, points: float) -> results.StudentResult:  # (TestResult by its module: pytest would collect it)
    return results.StudentResult(
        sid, results.Status.GRADED, "", points, 10, 1.0, [results.TestResult("n1", "t1", points, 10, "wrong-value")]
    )


def test_a_one_student_run_draws_no_chart_and_says_why(tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "scores.svg").write_text("an earlier run's chart")
    (folder / "scores.png").write_bytes(b"a chart of a run before the charts were SVG")
    index = write_report([student("late", 5)], folder, ASSIGNMENT)
    assert not [name for name in CHARTS if (folder / name).exists()]  # the earlier run's chart is gone too
    assert not (folder / "scores.png").exists()
    page = index.read_text()
    assert "<img" not in page
    why = "No charts: 1 submission(s) graded, charts are drawn from 2"
    assert why in page and why in text_report(figures([student("late", 5)]))
    assert "No charts" not in text_report(figures([student("a", 5), student("b", 10)]))


def test_a_new_chart_is_one_entry_in_the_table(tmp_path, monkeypatch):
    """A made-up chart registered in CHARTS alone is drawn, shown on the page, and removed when a later run
    draws no charts; a chart with nothing to show leaves no file."""

    def zeros_chart(f):
        return svg_charts.bars([("zero", sum(s == 0 for s in f.scores), "")], 2, "Zeros", "students", "#000")

    monkeypatch.setitem(CHARTS, "zeros.svg", zeros_chart)
    monkeypatch.setitem(CHARTS, "nothing.svg", lambda f: None)
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "nothing.svg").write_text("an earlier run's chart")
    page = write_report([student("a", 0), student("b", 10)], folder, ASSIGNMENT).read_text()
    zeros = ElementTree.parse(folder / "zeros.svg").getroot()  # well-formed SVG
    assert zeros.tag == "{http://www.w3.org/2000/svg}svg" and '<img src="zeros.svg"' in page
    assert not (folder / "nothing.svg").exists() and "nothing.svg" not in page
    write_report([student("late", 5)], folder, ASSIGNMENT)
    assert not (folder / "zeros.svg").exists()


def test_one_submission_is_not_compared_for_similarity_and_two_are(tmp_path):
    course = tmp_path / "course"  # no gradebook: the similarity pass reads the source and the submissions
    shutil.copytree(REPO / "source", course / "source")
    shutil.copy(REPO / "nbgrader_config.py", course)
    write_submission(course, "late", persona_notebooks("reference"))
    assignment = Assignment(Course(course), ASSIGNMENT)
    report_dir = assignment.reports
    alone = after_grading(assignment, report_dir, None)
    assert alone.text == (
        "similarity: not compared: one submission and no past terms (c.SimilarityConfig.past) to compare it with"
    )
    assert "Not compared" in alone.sections[0] and alone.where == ""
    assert not (report_dir / "similarity.csv").exists()
    write_submission(course, "other", persona_notebooks("stub"))
    both = after_grading(assignment, report_dir, None)
    assert both.text.startswith("Similar solutions") and (report_dir / "similarity.csv").exists()


def test_the_canary_grades_the_reference_of_the_notebooks_the_class_handed_in(tmp_path):
    """A class that handed in lessons 1 and 3 (and a file that is no lesson) has the canary grade those two
    references; a class that handed in no lesson, every one (the canary is never a pass over nothing)."""
    from autograder.classroom.run.batch import submissions
    from autograder.classroom.run.grade_command import handed_in

    course = tmp_path / "course"
    shutil.copytree(REPO / "source", course / "source")
    reference = persona_notebooks("reference")
    write_submission(course, "ada", {"01_why_position": reference["01_why_position"], "notes": "{}"})
    write_submission(course, "ben", {"03_sinusoidal": reference["03_sinusoidal"]})
    assignment = Assignment(Course(course), ASSIGNMENT)
    assert handed_in(assignment, submissions(assignment)) == ["01_why_position", "03_sinusoidal"]
    assert handed_in(assignment, submissions(assignment, ["ben"])) == ["03_sinusoidal"]
    write_submission(course, "ada", {"notes": "{}"})
    assert handed_in(assignment, submissions(assignment, ["ada"])) is None


def test_a_canary_of_some_notebooks_is_judged_on_their_tests_alone():
    """The canary grades in a copy of the run's gradebook, which knows every notebook: the notebooks it was not
    asked to grade count as not graded there, and neither pass nor fail it; one of its own that lost points does."""
    from autograder.grading.canary import of_notebooks

    def graded(*tests):
        points = sum(t.points for t in tests)
        return results.StudentResult("kit-canary", results.Status.GRADED, "", points, 100, 1.0, list(tests))

    mine, other = results.TestResult("n1", "t1", 10, 10), results.TestResult("n2", "t2", 0, 90, results.NOT_GRADED)
    alone = of_notebooks(graded(mine, other), ["n1"])
    assert (alone.score, alone.max_score, [t.test for t in alone.tests]) == (10, 10, ["t1"])
    assert of_notebooks(graded(mine, other), None).max_score == 100  # every notebook: the whole result
    lost = of_notebooks(graded(results.TestResult("n1", "t1", 4, 10), other), ["n1"])
    assert lost.score < lost.max_score
