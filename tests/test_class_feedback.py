"""A first class as a newcomer meets it: a corrupt notebook, a missing one, many edited locked cells.

One scratch class (conftest's session fixture ``first_class``), collected from a folder with a roster and
graded with the kit's `grade` command (real nbgrader, real kernels): ada hands in the reference, eli the
scatter-overwrite bug, cor a notebook cut short (not JSON) and no lesson 2, and lock the reference with
every locked test cell edited.  Its course renames nbgrader's folders (test_course_config reads that side
of the same grading), so the pages are read where the fixture says they are.  What they and the
instructor read: grouped notes in the progress line, the summary table and the report; a feedback page
for the corrupt and the missing notebook; a summary on top of every graded feedback page; pass rates that
leave out notebooks that were not graded; grades.csv with the roster's names, sorted by student id.  The
kit's cheaper rendering of a page (FeedbackExporter) gives the document nbconvert's own HTMLExporter
gives, with and without images.
"""

from __future__ import annotations

import copy
import csv
import re

import nbformat

from autograder.classroom.report import figures, text_report
from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.grading import results
from autograder.grading.feedback import FeedbackExporter
from autograder.grading.grade import course_config
from autograder.grading.notes import group_notes, student_row

HEADLINE = "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]"


def student_lines(text: str, student: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(rf"^\s*(graded |FAILED )?{student}\b", line)]


def test_notes_of_one_kind_are_one_line_with_a_count(first_class):
    out, edited = first_class["stdout"], first_class["edited"]
    assert edited > 10
    progress, table = student_lines(out, "lock")  # the progress line, then the summary table's row
    for line in (progress, table):
        assert line.count("was edited") == 1, line
        assert f"locked cell was edited (the original is graded) ×{edited}: " in line, line
        assert f"and {edited - 3} more" in line, line
    report = (first_class["root"] / "reports" / ASSIGNMENT / "index.html").read_text()
    assert report.count("was edited") == 1 and f"×{edited}" in report
    # the note that matters stays in sight, as it was written
    for line in student_lines(out, "cor"):
        assert re.search(r"01_why_position\.ipynb: not a notebook: invalid JSON at line \d+, column \d+", line), line
    assert re.search(r"invalid JSON at line \d+, column \d+", report)


def test_a_notebook_that_could_not_be_graded_gets_a_page_saying_why_and_what_to_do(first_class):
    feedback = first_class["feedback"] / "cor" / ASSIGNMENT
    corrupt = (feedback / f"{NOTEBOOKS[0]}.html").read_text()
    assert "This notebook could not be graded" in corrupt
    assert re.search(r"Why:</b> not a notebook: invalid JSON at line \d+, column \d+", corrupt)
    assert "fetch the assignment again" in corrupt and "Score: 0.0 / 15.0" in corrupt
    missing = (feedback / f"{NOTEBOOKS[1]}.html").read_text()
    assert "missing from the submission" in missing and f"<code>{NOTEBOOKS[1]}.ipynb</code>" in missing
    # the notebooks cor handed in whole are graded, with the usual page
    assert "Every test passed" in (feedback / f"{NOTEBOOKS[2]}.html").read_text()
    assert (feedback / "timestamp.txt").is_file()  # nbgrader's release_feedback reads it next to each page


def test_a_feedback_page_opens_with_the_failed_tests_and_their_headlines(first_class):
    page = (first_class["feedback"] / "eli" / ASSIGNMENT / f"{NOTEBOOKS[1]}.html").read_text()
    summary = page.split('id="kit-summary"', 1)[1].split("</div>", 1)[0]
    assert 'href="#test-embedding-backward"' in summary and HEADLINE in summary, summary
    assert "did not pass" in summary
    assert page.index('id="kit-summary"') < page.index('class="cell ')  # on top, before the first cell
    assert page.count('class="kit-failed-label"') == summary.count("<li>")  # each failed cell is marked
    assert "_hidden" not in page and "BEGIN HIDDEN" not in page  # hidden test code never shows


def test_pass_rates_leave_out_notebooks_that_were_not_graded(first_class):
    out = first_class["stdout"]
    report = (first_class["root"] / "reports" / ASSIGNMENT / "index.html").read_text()
    # eli fails it, ada and lock pass it, cor handed no lesson 2 in: 2 of 3 pass (counting cor, it would be 2 of 4)
    assert "02_token_embeddings/test-embedding-backward 67% of 3" in out
    assert (
        f"Notebooks not graded (missing or not a notebook; left out of the pass rates): 2: cor/{NOTEBOOKS[0]}, "
        f"cor/{NOTEBOOKS[1]}" in out
    )
    assert "left out of the pass rates" in report
    with open(first_class["root"] / "reports" / ASSIGNMENT / "tests.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["student"] == "cor"]
    assert {r["diagnostic"] for r in rows if r["notebook"] in NOTEBOOKS[:2]} == {"not-graded"}
    lowest = out.split("Lowest pass rates:")[1].splitlines()[0].split(", ")
    assert all(part.endswith("100% of 3") for part in lowest if f"{NOTEBOOKS[0]}/" in part), lowest


def test_grades_csv_has_the_rosters_names_sorted_by_student_id(first_class):
    with open(first_class["root"] / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["student_id"] for r in rows] == ["ada", "cor", "eli", "lock"]
    names = {r["student_id"]: (r["first_name"], r["last_name"], r["email"]) for r in rows}
    assert names["lock"] == ("Ada", "Lovelace", "lock@example.org")
    assert names["eli"] == ("Eli", "Whitney", "eli@example.org")
    assert float(next(r for r in rows if r["student_id"] == "ada")["score"]) == 100


def test_report_summary_wraps_and_its_charts_are_drawn(first_class):
    folder = first_class["root"] / "reports" / ASSIGNMENT
    assert all((folder / name).stat().st_size > 0 for name in ("scores.svg", "pass_rate.svg", "misconceptions.svg"))
    page = (folder / "index.html").read_text()
    assert "pre{white-space:pre-wrap" in page.replace(" ", "")  # the summary block wraps instead of running off


def feedback_page(exporter_class, root, student: str, nb: nbformat.NotebookNode) -> str:
    """The feedback page of ``nb`` (the student's autograded notebook) as GenerateFeedback renders it with
    ``exporter_class``: the kit's configuration, nbgrader's preprocessors and the gradebook's points."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory

    config = course_config(root)
    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = exporter_class(parent=app, config=app.config)
    for step in app.preprocessors:
        exporter.register_preprocessor(step)
    name = NOTEBOOKS[1]
    resources = {"unique_key": name, "output_files_dir": f"{name}_files"}
    resources["nbgrader"] = {
        "student": student,
        "assignment": ASSIGNMENT,
        "notebook": name,
        "db_url": app.coursedir.db_url,
    }
    return exporter.from_notebook_node(copy.deepcopy(nb), resources)[0]


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def with_images(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` with a plot and an HTML table holding an image in its first code cell's outputs, and two Markdown
    cells of the same text showing different attachments (a page's Markdown is kept by its text and attachments)."""
    nb = copy.deepcopy(nb)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.outputs += [
        nbformat.v4.new_output("display_data", {"image/png": PNG, "text/plain": "<Figure>"}),
        nbformat.v4.new_output(
            "display_data", {"text/html": '<table><tr><td><IMG src="x.png">&nbsp;</td></tr></table>'}
        ),
    ]
    for image in (PNG, PNG[::-1]):
        text = "A dot: ![dot](attachment:dot.png)"
        nb.cells.append(nbformat.v4.new_markdown_cell(text, attachments={"dot.png": {"image/png": image}}))
    return nb


def test_the_kit_renders_the_document_nbconvert_renders(first_class):
    from bs4 import BeautifulSoup
    from nbconvert.exporters import HTMLExporter

    root = first_class["root"]
    graded = nbformat.read(first_class["autograded"] / "eli" / ASSIGNMENT / f"{NOTEBOOKS[1]}.ipynb", as_version=4)
    for nb in (graded, with_images(graded)):
        pages = [feedback_page(cls, root, "eli", nb) for cls in (HTMLExporter, FeedbackExporter, FeedbackExporter)]
        documents = [str(BeautifulSoup(page, features="html.parser")) for page in pages]
        assert documents[0] == documents[1] == documents[2]  # the second kit page: templates and highlights kept
        assert HEADLINE in documents[0] and "kit-failed-label" in documents[0]
    assert documents[0].count("No description has been provided for this image") == 2  # nbconvert's alt text
    assert documents[0].count("data:image/png;base64,") == 3 and PNG[::-1] in documents[0]
    written = (first_class["feedback"] / "eli" / ASSIGNMENT / f"{NOTEBOOKS[1]}.html").read_text()
    assert "&#10007; Failed" in written  # grading wrote the template's own text: no re-parse made it "✗ Failed"


# --- in this process: the grouping and the counting themselves ---------------------------------------


def test_group_notes_collapses_a_kind_and_keeps_a_note_alone():
    notes = ["01_why_position.ipynb: not a notebook: invalid JSON at line 445, column 5"]
    notes += [f"03_sinusoidal: locked cell `test-{i}` was edited (the original is graded)" for i in range(5)]
    notes += [
        "02_token_embeddings.ipynb: missing from the submission (0 points)",
        "04_learned_positions.ipynb: missing from the submission (0 points)",
        "05_embedding_layer: timed out",
    ]
    assert group_notes(notes) == [
        notes[0],
        "locked cell was edited (the original is graded) ×5: 03_sinusoidal `test-0`, 03_sinusoidal `test-1`, "
        "03_sinusoidal `test-2` and 2 more",
        "missing from the submission (0 points) ×2: 02_token_embeddings.ipynb, 04_learned_positions.ipynb",
        "05_embedding_layer: timed out",
    ]
    assert student_row("; ".join(notes[:2])) == "; ".join(notes[:2])  # one of a kind is left as written


def test_a_notebook_that_was_not_graded_is_neither_passed_nor_failed():
    def student(sid, diagnosis, points):  # (results.TestResult by its module: pytest would collect the name)
        return results.StudentResult(
            sid, results.Status.GRADED, "", points, 10, 0, [results.TestResult("n1", "t1", points, 10, diagnosis)]
        )

    f = figures([student("a", None, 10), student("b", results.NOT_GRADED, 0), student("c", "wrong-value", 0)])
    assert f.pass_rate == [("n1/t1", 0.5)] and f.ran == {"n1/t1": 2}
    assert f.not_graded == [("b", "n1")]
    assert "n1/t1 50% of 2" in text_report(f) and "left out of the pass rates): 1: b/n1" in text_report(f)


def test_the_summary_counts_kernels_forked_and_started_the_ordinary_way_with_why():
    """The fallback is visible: the run's summary (and the class report, which shows the same text) counts this
    run's notebooks by how their kernel came up, and names why each one was started the ordinary way."""
    fallback = "started: forking failed: the fork server did not answer within 60 s"

    def student(sid, starts, status=results.Status.GRADED):
        return results.StudentResult(sid, status, "", 0, 10, kernel_starts=starts)

    f = figures(
        [
            student("a", {"01": "forked", "02": "forked"}),
            student("b", {"01": "forked", "02": fallback}),
            student("c", {"01": fallback}),
            student("d", {"01": "started: SandboxedKernelManager.fork_kernels is False"}),
            student("e", {"01": fallback}, results.Status.SKIPPED),  # graded in an earlier run: not counted
        ]
    )
    assert (f.forked, sum(n for _, n in f.started)) == (3, 3)
    assert (
        "  Kernels: 3 forked into their sandboxes, 3 started the ordinary way (2: forking failed: the fork server "
        "did not answer within 60 s; 1: SandboxedKernelManager.fork_kernels is False)"
    ) in text_report(f)
