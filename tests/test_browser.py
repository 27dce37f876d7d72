"""The student's and the instructor's screens, in a real browser against real Jupyter servers.

Headless Debian chromium (Playwright drives it) against `jupyter lab` servers that this module starts
on 127.0.0.1. The student's server runs in their home folder and as that student (uid 1000 under
bubblewrap, the way test_jupyterhub runs their nbgrader commands), with the exchange set in the
system-wide config; the same server serves Notebook 7's /tree and /notebooks pages. The instructor's
server runs in the course root, where formgrader lives.

The tests are the steps of one session, in order, and share one student server, one browser page
and one instructor server (module-scoped fixtures; conftest's ONE_WORKER keeps the module
on one xdist worker). Each step saves a screenshot under .screens/ (`make screenshots` copies two
of them into docs/).

The student, lin, does everything by clicking and typing: the Assignments tab lists `embeddings`,
she fetches it, opens 02_token_embeddings, types a backward with the scatter-overwrite bug, runs the
notebook and reads the self-check's diagnosis in the cell; fixes it, runs again, validates, submits.
Three classmates hand in through the command line (a reference, a stub, the same bug). The
instructor collects and grades with the kit; lin fetches her feedback in the Assignments tab and
opens it. Then the instructor's pages: formgrader and the class report.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import nbformat
import pytest

from autograder.cells import solution_sources
from autograder.course import ASSIGNMENT

from .browser import SCREENS, WAIT_MS, JupyterServer, chromium_or_skip, launch_chromium
from .conftest import REPO, kit, new_course
from .test_jupyterhub import COURSE_ID, DIAGNOSIS, SECRETS, Student, hand_in, hub_env, run

NOTEBOOK = "02_token_embeddings"
BROWSER_STUDENT = "lin"
CLASSMATES = {"ada": "reference", "ben": "stub", "eli": ["scatter-overwrite"]}
WRONG_BACKWARD = "self.dE[idx] += dout"
RIGHT_BACKWARD = "np.add.at(self.dE, idx, dout)"


def answers(wrong_backward: bool) -> dict[str, str]:
    """grade_id -> what lin types into each solution cell of the lesson (the reference, or its bug)."""
    source = nbformat.read(str(REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"), as_version=4)
    cells = solution_sources(source)
    if wrong_backward:
        assert RIGHT_BACKWARD in cells["embedding"]
        cells["embedding"] = cells["embedding"].replace(RIGHT_BACKWARD, WRONG_BACKWARD)
    return cells


def shot(page, name: str, locator=None) -> Path:
    SCREENS.mkdir(exist_ok=True)
    path = SCREENS / f"{name}.png"
    (locator or page).screenshot(path=str(path))
    return path


# --- the servers and the browser ----------------------------------------------------------------


@pytest.fixture(scope="module")
def playwright_driver():
    chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="module")
def course(tmp_path_factory, playwright_driver):
    """A course released to a scratch exchange; lin's classmates fetch and submit from the command line."""
    base = tmp_path_factory.mktemp("browser")
    exchange = base / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o777)
    system_config = base / "etc-jupyter"
    system_config.mkdir()
    (system_config / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(exchange)!r}\n")
    root = new_course(base / "course")
    instructor = hub_env(system_config)
    run(root, instructor, "release_assignment", ASSIGNMENT)
    for sid, persona in CLASSMATES.items():
        (base / "home" / sid).mkdir(parents=True)
        student = Student(sid, base / "home" / sid, system_config)
        student.nbgrader("fetch_assignment", ASSIGNMENT, "--course", COURSE_ID)
        hand_in(student.home / ASSIGNMENT, persona)
        student.nbgrader("submit", ASSIGNMENT, "--course", COURSE_ID)
    (base / "home" / BROWSER_STUDENT).mkdir(parents=True)
    lin = Student(BROWSER_STUDENT, base / "home" / BROWSER_STUDENT, system_config)
    return {"base": base, "root": root, "exchange": exchange, "instructor": instructor, "lin": lin}


@pytest.fixture(scope="module")
def student_server(course):
    lin = course["lin"]
    server = JupyterServer(lin.home, lin.env, course["base"] / "student-server.log", prefix=lin.prefix)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(playwright_driver, tmp_path_factory):
    context = launch_chromium(playwright_driver, tmp_path_factory.mktemp("chromium-profile"))
    context.set_default_timeout(WAIT_MS)
    yield context
    context.close()


@pytest.fixture(scope="module")
def lab(browser, student_server):
    """lin's JupyterLab, open in one tab for the whole session."""
    page = browser.pages[0] if browser.pages else browser.new_page()
    choose_the_kernel_when_asked(page)
    page.goto(student_server.url("lab"))
    page.wait_for_selector(".jp-LabShell")
    page.wait_for_selector(".jp-DirListing-content")
    return page


@pytest.fixture(autouse=True)
def screenshot_on_failure(request):
    """A failed step leaves a picture of the screen it failed on: .screens/FAILED-<test>.png."""
    failed = request.session.testsfailed
    yield
    page = request.node.funcargs.get("lab") or request.node.funcargs.get("page")
    if page is not None and request.session.testsfailed > failed:
        shot(page, f"FAILED-{request.node.name}")


# --- helpers: what a student does with the mouse and the keyboard ----------------------------------


# JupyterLab asks which kernel to use when a notebook's cells are run before its session has a kernel (a busy machine
# starts it late): a student takes the one offered, Python 3
KERNEL_CHOICE = ".jp-Dialog:has-text('Select Kernel')"
ASKED = "() => [...document.querySelectorAll('.jp-Dialog')].find(d => d.textContent.includes('Select Kernel'))"
TAKE_THE_OFFERED_KERNEL = f"""() => {{
    const asked = ({ASKED})();
    const ok = asked && asked.querySelector('.jp-mod-accept');
    if (ok) {{ ok.click(); window.kitKernelTaken = true; }}
    return !!ok;
}}"""
KERNEL_TAKEN = "() => { const taken = !!window.kitKernelTaken; window.kitKernelTaken = false; return taken; }"


def choose_the_kernel_when_asked(page) -> None:
    """Before each action on ``page``, take the kernel JupyterLab offers if it asks (KERNEL_CHOICE)."""
    page.add_locator_handler(page.locator(KERNEL_CHOICE), lambda dialog: page.evaluate(TAKE_THE_OFFERED_KERNEL))


def menu(page, top: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(rf"^{re.escape(top)}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}")).first.click()


def assignment_list(page) -> None:
    menu(page, "Nbgrader", "Assignment List")
    page.wait_for_selector("#released_assignments_list")


def type_into_cell(page, cell, text: str) -> None:
    """Click into the cell's editor, select everything and type ``text`` over it."""
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


# the lesson's solution cells, found on screen by what their stub says
SOLUTION_CELLS = {
    "embedding": "class Embedding",
    "numerical-gradient": "def numerical_gradient",
    "rel-error": "def rel_error",
}


def solution_cell(notebook, grade_id: str):
    return notebook.locator(
        ".jp-CodeCell", has=notebook.page.locator(".cm-content", has_text=SOLUTION_CELLS[grade_id])
    ).first


def fill_lesson(page, notebook, wrong_backward: bool) -> None:
    for grade_id, text in answers(wrong_backward).items():
        type_into_cell(page, solution_cell(notebook, grade_id), text)


def wait_for_output(page, text: str) -> None:
    """Wait for an output with ``text`` in the open notebook; if none comes, fail with what the page shows instead
    (each cell's prompt and outputs, any dialog), and a picture of it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    try:
        notebook.locator(".jp-OutputArea-output", has_text=text).first.wait_for()
    except PlaywrightTimeout:
        shot(page, "FAILED-waiting-for-output")
        cells = [
            (cell.locator(".jp-InputPrompt").first.inner_text(), cell.locator(".jp-OutputArea").all_inner_texts())
            for cell in notebook.locator(".jp-CodeCell").all()
        ]
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        raise AssertionError(
            f"no output {text!r}; the page's cells (prompt, outputs): {cells}; dialogs: {dialogs}"
        ) from None


def run_all(page) -> None:
    """Run → Run All Cells, then wait until no cell is queued or running ([*]) any more.  (JupyterLab stops at the
    first cell that fails, and clears the queue.)  If JupyterLab asked for a kernel meanwhile, it ran a cell at most
    with the kernel it offered and dropped the rest: the run is made again, as a student would."""
    settled = f"""() => {{
        ({TAKE_THE_OFFERED_KERNEL})();
        const prompts = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-InputPrompt')];
        return prompts.length && prompts.every(p => !p.textContent.includes('*'));
    }}"""
    page.evaluate(KERNEL_TAKEN)
    for _ in range(3):
        menu(page, "Run", "Run All Cells")
        page.wait_for_function(settled, timeout=WAIT_MS)
        page.wait_for_timeout(300)  # the question comes a moment after the click, if it comes
        if not page.evaluate(TAKE_THE_OFFERED_KERNEL) and not page.evaluate(KERNEL_TAKEN):
            return
        page.locator(
            ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator[data-status='idle']"
        ).wait_for(state="attached")
    raise AssertionError("JupyterLab asked for a kernel at each of three Run All")


# --- the student's path in JupyterLab ------------------------------------------------------------


def test_assignments_tab_lists_the_release(lab):
    assignment_list(lab)
    released = lab.locator("#released_assignments_list")
    released.locator(".list_item:not(.nested_list_item)", has_text=ASSIGNMENT).wait_for()
    assert COURSE_ID in released.inner_text()
    shot(lab, "01-assignments-tab")


def test_fetch_from_the_assignments_tab(lab, course):
    lab.locator("#released_assignments_list .list_item:not(.nested_list_item)", has_text=ASSIGNMENT).get_by_role(
        "button", name="Fetch"
    ).click()
    lab.locator("#fetched_assignments_list .list_item:not(.nested_list_item)", has_text=ASSIGNMENT).wait_for()
    folder = course["lin"].home / ASSIGNMENT
    assert (folder / f"{NOTEBOOK}.ipynb").is_file()
    shot(lab, "02-fetched")


def test_self_check_names_the_scatter_overwrite(lab):
    fetched = lab.locator("#fetched_assignments_list")
    fetched.locator("a.assignment-notebooks-link", has_text=ASSIGNMENT).click()  # unfolds its notebooks
    fetched.locator(".nested_list_item .item_name a", has_text=NOTEBOOK).click()
    notebook = lab.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    notebook.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(state="attached")
    fill_lesson(lab, notebook, wrong_backward=True)
    run_all(lab)
    error = notebook.locator(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
        has_text="Diagnosis [scatter-overwrite]",
    ).first
    error.wait_for()
    assert "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]" in error.inner_text()
    error.scroll_into_view_if_needed()
    cell = error.locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), ' jp-CodeCell ')][1]")
    shot(lab, "03-self-check-diagnosis")
    shot(lab, "self-check-diagnosis-cell", cell)


def test_fixed_backward_passes_the_self_check(lab, course):
    notebook = lab.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    type_into_cell(lab, solution_cell(notebook, "embedding"), answers(wrong_backward=False)["embedding"])
    # JupyterLab's question which kernel to use (on a busy machine it came unasked, and stopped the run): the next
    # action takes the kernel it offers
    menu(lab, "Kernel", "Change Kernel")
    lab.wait_for_function(ASKED)
    run_all(lab)
    assert not lab.evaluate(ASKED)
    passed = notebook.locator(".jp-OutputArea-output", has_text="self-check passed: Embedding.backward").first
    passed.wait_for()
    errors = notebook.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()
    notebook.locator(".jp-OutputArea-output", has_text="self-check passed: rel_error").first.wait_for()
    menu(lab, "File", "Save Notebook")
    lab.locator(".lm-TabBar-tab.jp-mod-current:not(.jp-mod-dirty)", has_text=NOTEBOOK).wait_for()
    saved = nbformat.read(str(course["lin"].home / ASSIGNMENT / f"{NOTEBOOK}.ipynb"), as_version=4)
    assert RIGHT_BACKWARD in "".join(c.source for c in saved.cells)
    passed.scroll_into_view_if_needed()
    shot(lab, "04-self-check-passes")


def validate_button(page, scope) -> str:
    """Click the notebook's Validate button; the text of the dialog that answers, closed afterwards."""
    scope.locator(".validate-button").first.click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator(".jp-Dialog-body", has_text=re.compile(r"Success|VALIDATION FAILED|error", re.I)).wait_for()
    return dialog.inner_text()


def test_validate_button_reports_success(lab):
    notebook = lab.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    report = validate_button(lab, notebook)
    shot(lab, "05-validate-success")
    lab.locator(".jp-Dialog .jp-Dialog-button").last.click()
    assert "Success! Your notebook passes all the tests." in report, report


def test_submit_from_the_assignments_tab(lab, course):
    lab.locator(".lm-TabBar-tab", has_text="Assignments").click()
    lab.locator("#fetched_assignments_list .list_item:not(.nested_list_item)", has_text=ASSIGNMENT).get_by_role(
        "button", name="Submit"
    ).click()
    lab.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).wait_for()
    inbound = list((course["exchange"] / COURSE_ID / "inbound").glob(f"{BROWSER_STUDENT}+{ASSIGNMENT}+*"))
    assert len(inbound) == 1, inbound
    shot(lab, "06-submitted")


@pytest.fixture(scope="module")
def graded(course):
    """The instructor collects, grades with the kit and releases the feedback: grades.csv as rows."""
    root, instructor = course["root"], course["instructor"]
    run(root, instructor, "collect", ASSIGNMENT)
    kit("grade", ASSIGNMENT, "--course-dir", str(root), "--jobs", "2")
    run(root, instructor, "release_feedback", ASSIGNMENT)
    with open(root / "grades.csv", newline="") as f:
        return {row["student_id"]: row for row in csv.DictReader(f)}


def test_the_kit_grades_what_was_submitted_in_the_browser(graded):
    assert sorted(graded) == sorted([*CLASSMATES, BROWSER_STUDENT])
    assert float(graded[BROWSER_STUDENT]["score"]) == 25  # lesson 2 right, the other four untouched stubs
    assert float(graded["ada"]["score"]) == 100 and float(graded["ben"]["score"]) == 0


def open_feedback(page, notebook: str) -> str:
    """Double-click ``notebook``.html in the file browser; the HTML of the page the viewer shows."""
    page.locator(".jp-DirListing-item", has_text=f"{notebook}.html").dblclick()
    page.locator(".lm-TabBar-tab.jp-mod-current", has_text=f"{notebook}.html").wait_for()
    frame = page.get_by_label(f"{notebook}.html").locator("iframe").content_frame
    frame.locator("body", has_text="Score").wait_for()
    return frame.locator("html").inner_html()


def test_feedback_fetched_in_the_assignments_tab_shows_the_diagnosis_and_no_hidden_test(lab, graded):
    lab.locator(".lm-TabBar-tab", has_text="Assignments").click()
    lab.locator("#refresh_assignments_list").click()
    submitted = lab.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT)
    submitted.get_by_role("button", name="Fetch Feedback").click()
    submitted.get_by_text("(view feedback)").click()  # the file browser goes to the feedback folder
    pages = {name: open_feedback(lab, name) for name in (NOTEBOOK, "01_why_position")}
    frame = lab.get_by_label("01_why_position.html").locator("iframe").content_frame
    frame.get_by_text("Diagnosis [not-implemented]").first.scroll_into_view_if_needed()
    shot(lab, "07-feedback")
    # lesson 2, fixed in the browser, has full marks and nothing to diagnose; lesson 1 is still the
    # stub, and its hidden checks say so in the kit's words
    assert not re.search(r"Diagnosis \[[a-z-]+\]", pages[NOTEBOOK])  # (the helpers' source has "Diagnosis [{...")
    assert "Diagnosis [not-implemented]" in pages["01_why_position"], pages["01_why_position"][-3000:]
    for name, html in pages.items():
        for secret in SECRETS:
            assert secret not in html, f"the feedback {name}.html shows {secret!r}"


# --- Notebook 7: the tree page, then the notebook page --------------------------------------------


def test_notebook7_open_run_validate(browser, student_server):
    tree = browser.new_page()
    tree.goto(student_server.url(f"tree/{ASSIGNMENT}"))
    with browser.expect_page() as opened:  # Notebook 7 opens a notebook in a new browser tab
        tree.locator(".jp-DirListing-item", has_text=f"{NOTEBOOK}.ipynb").dblclick()
    page = opened.value
    choose_the_kernel_when_asked(page)
    shot(tree, "08-notebook7-tree")
    notebook = page.locator(".jp-NotebookPanel")
    notebook.locator(".jp-Cell").first.wait_for()
    passed = notebook.locator(".jp-OutputArea-output", has_text="self-check passed")
    passed.first.wait_for()  # the outputs saved in JupyterLab; cleared, so what follows is this run's
    menu(page, "Edit", "Clear Outputs of All Cells")
    passed.first.wait_for(state="detached")
    run_all(page)
    wait_for_output(page, "self-check passed: rel_error")
    report = validate_button(page, page)
    shot(page, "09-notebook7-validate")
    page.close()
    tree.close()
    assert "Success! Your notebook passes all the tests." in report, report


# --- the instructor's path: formgrader and the class report --------------------------------------


@pytest.fixture(scope="module")
def formgrader(browser, course, graded):
    server = JupyterServer(course["root"], course["instructor"], course["base"] / "instructor-server.log")
    page = browser.new_page()
    yield server, page
    page.close()
    server.stop()


def table(page) -> list[dict[str, str]]:
    """formgrader's table (its rows are `tbody#main-table tr`) as rows of {cell class: cell text}:
    name, status, num-submissions on Manage Assignments; id, score on Manage Students; name,
    avg-score in a gradebook."""
    rows = page.locator("#main-table tr").filter(has=page.locator("td.name"))
    rows.first.wait_for()
    return [
        dict(
            row.locator("td").evaluate_all(
                "cells => cells.map(c => [c.classList[c.classList[0] === 'text-center' ? 1 : 0], c.innerText.trim()])"
            )
        )
        for row in rows.all()
    ]


def test_formgrader_manage_assignments_shows_the_graded_class(formgrader, graded):
    server, page = formgrader
    page.goto(server.url("formgrader/manage_assignments"))
    page.locator("#main-table tr", has_text=ASSIGNMENT).first.wait_for()
    rows = table(page)
    shot(page, "10-formgrader-assignments")
    (row,) = [r for r in rows if r["name"] == ASSIGNMENT]
    assert row["status"] == "released", row
    assert row["num-submissions"] == str(len(graded)), row


def test_formgrader_gradebook_shows_the_scores_of_grades_csv(formgrader, graded):
    server, page = formgrader
    page.goto(server.url("formgrader/manage_students"))
    page.locator("#main-table tr", has_text=BROWSER_STUDENT).first.wait_for()
    shot(page, "11-formgrader-students")
    shown = {r["id"]: r["score"] for r in table(page)}
    expected = {sid: f"{float(row['score']):g} / {float(row['max_score']):g}" for sid, row in graded.items()}
    assert shown == expected
    # the assignment's gradebook: average score per notebook, which adds up to the class mean
    page.goto(server.url(f"formgrader/gradebook/{ASSIGNMENT}"))
    page.locator("#main-table tr", has_text=NOTEBOOK).first.wait_for()
    shot(page, "12-formgrader-gradebook")
    averages = [float(r["avg-score"].split("/")[0]) for r in table(page)]
    mean = sum(float(row["score"]) for row in graded.values()) / len(graded)
    assert len(averages) == 5 and abs(sum(averages) - mean) < 0.01 * len(averages), (averages, mean)


def test_class_report_renders_with_its_charts(browser, course, graded):
    page = browser.new_page()
    report = course["root"] / "reports" / ASSIGNMENT / "index.html"
    page.goto(report.as_uri())
    page.wait_for_function("() => [...document.images].every(i => i.complete)")
    images = page.evaluate("() => [...document.images].map(i => [i.getAttribute('src'), i.naturalWidth])")
    shot(page, "13-class-report")
    page.screenshot(path=str(SCREENS / "class-report.png"), full_page=True)
    page.close()
    assert len(images) >= 3, images
    assert all(width > 0 for _, width in images), images


def test_class_report_links_the_similarity_page(browser, course, graded):
    """ada and eli handed in the reference (eli with one line of lesson 2 changed), and so did lin for
    lesson 2: the report lists the pairs, and its link opens the side-by-side page, the matching regions
    marked, for a person to review."""
    page = browser.new_page()
    page.goto((course["root"] / "reports" / ASSIGNMENT / "index.html").as_uri())
    section = page.locator("h2", has_text="Similar solutions")
    section.wait_for()
    listed = page.locator("table", has=page.locator("th", has_text="notebook")).last.inner_text()
    assert re.search(rf"{NOTEBOOK}\s+ada\s+eli\s+0\.9", listed), listed
    page.get_by_role("link", name="the similarity page").click()
    page.wait_for_url(re.compile(r"similarity\.html$"))
    notice = page.locator(".notice")
    assert "for a person to review" in notice.inner_text()
    pair = page.locator(f"h3[id^='{NOTEBOOK}-']").first
    assert "ada" in pair.inner_text(), pair.inner_text()
    marks = page.locator(".pair mark")
    assert marks.count() > 2 and marks.first.is_visible()
    assert "ben" not in page.locator(f"h2[id='{NOTEBOOK}'] + p + table").inner_text()  # a stub is not paired
    shot(page, "14-similarity")
    page.close()


# --- a student's feedback page, as a laptop shows it ---------------------------------------------

FEEDBACK_WIDTH = 1200  # a laptop's browser window
FIX = "np.add.at(dE, idx, dout)"


def right_edge_of(page, locator, text: str) -> float:
    """The right edge (px, in the viewport) of ``text`` inside the element ``locator`` finds."""
    return locator.evaluate(
        """(el, text) => {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.textContent.indexOf(text);
            if (at >= 0) {
                const range = document.createRange();
                range.setStart(node, at);
                range.setEnd(node, at + text.length);
                return Math.max(...[...range.getClientRects()].map(r => r.right));
            }
        }
        return Infinity;
    }""",
        text,
    )


def test_feedback_page_summary_and_the_fix_in_sight_at_1200px(browser, course, graded):
    """eli's lesson 2 (the scatter-overwrite bug): the summary on top names the failed test with its
    headline and links to it; the cell is marked failed; its diagnosis wraps, so the fix is on screen
    without scrolling sideways."""
    feedback = course["root"] / "feedback" / "eli" / ASSIGNMENT / f"{NOTEBOOK}.html"
    page = browser.new_page()
    page.set_viewport_size({"width": FEEDBACK_WIDTH, "height": 900})
    page.goto(feedback.as_uri())
    summary = page.locator("#kit-summary")
    assert summary.is_visible() and summary.bounding_box()["y"] < 300  # on top, in the first screen
    text = summary.inner_text()
    assert "test-embedding-backward" in text and DIAGNOSIS in text, text
    shot(page, "feedback-summary")
    summary.get_by_role("link", name="test-embedding-backward", exact=True).click()  # the link leads to the failed cell
    cell = page.locator(".kit-failed", has=page.locator("a[name='test-embedding-backward']"))
    assert "Failed: 0.0 / 6.0 points" in cell.locator(".kit-failed-label").inner_text()
    diagnosis = cell.locator(".output_error pre").first
    diagnosis.scroll_into_view_if_needed()
    assert FIX in diagnosis.inner_text()
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths}"
    assert diagnosis.evaluate("el => el.scrollWidth <= el.clientWidth"), "the diagnosis box scrolls sideways"
    assert right_edge_of(page, diagnosis, FIX) <= FEEDBACK_WIDTH, "the fix is cut off at the right"
    shot(page, "feedback-diagnosis", cell)  # the failed cell whole: its label, code and diagnosis
    page.close()
    html = feedback.read_text()
    for secret in SECRETS:
        assert secret not in html
