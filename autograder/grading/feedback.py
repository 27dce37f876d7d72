"""The feedback step: what a student may see of a failed test cell, and the page they read.

nbgrader's GenerateFeedback renders each autograded notebook with the kit's template
(``templates/kit_feedback/page.html.j2``, built on nbgrader's own): a summary on top (points, the failed tests with
the first line of their diagnosis, links to them), failed test cells marked, diagnoses that wrap.  A
notebook the kit could not grade (not submitted, not a notebook) gets a page of its own saying why
and what to do (:func:`write_ungraded_pages`).  The pages are nbconvert's HTML, rendered by
:class:`FeedbackExporter` at a fraction of the CPU a worker would otherwise spend on every student.
"""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
from pathlib import Path

from jinja2 import pass_context
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbgrader.preprocessors import NbGraderPreprocessor

from ..cells import grade_id, is_graded_cell, is_locked, is_solution_cell, is_test_cell
from . import highlight_store
from .results import cell_failure
from .verdicts import recorded_verdicts

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE_NAME = "kit_feedback"
CSS = TEMPLATES / TEMPLATE_NAME / "kit.css"
PREPROCESSORS = ["autograder.grading.feedback.ScrubTestTracebacks", "autograder.grading.feedback.SummariseFeedback"]
EXPORTER = "autograder.grading.feedback.FeedbackExporter"


class ScrubTestTracebacks(NbGraderPreprocessor):
    """Replace the traceback of every error in a test cell by its one-line message.

    IPython's tracebacks quote the source lines around the failing one, and in a test cell those lines
    can be hidden-test code (upstream #917, #1363).  A kit diagnosis already renders as its message
    alone; every other error (a NameError because a solution cell failed, a visible assertion) is cut
    down to ``ename: evalue`` here.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and is_test_cell(cell):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error" and out.get("ename") != "Diagnosis":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
        return cell, resources


def headline(message: str | None) -> str:
    """The first line of a diagnosis: what the summary shows of it (the cell shows it all)."""
    first = (message or "").strip().splitlines()[0] if (message or "").strip() else ""
    return first or "did not pass its hidden check"


class SummariseFeedback(NbGraderPreprocessor):
    """The summary the kit's template shows on top: every test cell that lost points, with its headline.

    Runs after nbgrader's GetGrades (the scores, manual overrides included) and the scrubbing of
    tracebacks, so a headline is what the cell itself shows; and adds the kit's stylesheet.
    """

    def preprocess(self, nb, resources):
        failed = []
        verdicts = (recorded_verdicts(nb) or ({}, []))[0]  # the checker's own words, as grading recorded them
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not is_graded_cell(cell) or is_solution_cell(cell):
                continue
            score, points = float(meta.get("score") or 0.0), float(meta.get("points") or 0.0)
            if score < points:
                diagnosis, message = cell_failure(cell, verdicts.get(grade_id(cell)))
                failed.append(
                    {
                        "grade_id": grade_id(cell),
                        "score": score,
                        "points": points,
                        "diagnosis": diagnosis,
                        "headline": headline(message),
                    }
                )
        resources["kit_feedback"] = {"failed": failed}
        resources.setdefault("inlining", {}).setdefault("css", []).append(CSS.read_text(encoding="utf-8"))
        return nb, resources


def use_kit_feedback(config) -> None:
    """Point ``config``'s GenerateFeedback at the kit's template, with the kit's preprocessors last in its list."""
    nbgrader_templates = Path(__import__("nbgrader").__file__).parent / "server_extensions" / "formgrader" / "templates"
    steps = list(
        config.GenerateFeedback.get("preprocessors", None)
        or [
            "nbgrader.preprocessors.GetGrades",
            "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
            "nbgrader.preprocessors.ClearHiddenTests",
        ]
    )
    config.GenerateFeedback.preprocessors = [s for s in steps if s not in PREPROCESSORS] + PREPROCESSORS
    config.GenerateFeedback.exporter_class = EXPORTER
    config.HTMLExporter.template_name = TEMPLATE_NAME  # its conf.json names nbgrader's "feedback" as its base
    config.HTMLExporter.template_file = "page.html.j2"
    config.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(nbgrader_templates)]


# --- the page, rendered cheaply ----------------------------------------------------------------------------

ENVIRONMENTS_KEPT = 4  # configurations a worker keeps a Jinja environment for (one per course it grades, usually)
_environments: dict[tuple, object] = {}
MARKDOWN_KEPT = 4096  # Markdown cells a worker keeps the rendered HTML of
_rendered_markdown: dict[tuple[str, str], str] = {}


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTMLExporter with what a grading worker repeats for every student done once, and the same page.

    GenerateFeedback builds a new exporter for every student, and nbconvert's exporter spends most of a page's
    CPU on what does not change from one student to the next, or on nothing the page needs:

    - its Jinja environment, in which the templates (the kit's, nbgrader's, nbconvert's) are compiled: kept per
      process, keyed by everything it is built from (:meth:`_create_environment`);
    - highlighting each code cell's source with Pygments: the test cells and the given code are the same in every
      submission, so a source is highlighted once per process (:class:`RememberedHighlight`), and a locked cell's
      once for every process of this user (``highlight_store``);
    - rendering each Markdown cell with mistune, most of the template's own time: the assignment's text is the same
      in every submission, so a cell's Markdown is rendered once per process (:meth:`markdown2html`);
    - parsing the whole rendered page again with BeautifulSoup and writing it out again, to give ``alt`` text to
      images that have none and a ``tabindex`` to JupyterLab-template cells: this template has no such cells,
      and the kit's notebooks no images.  A page that has either still gets nbconvert's pass
      (:func:`accessible`); any other page is the template's output as it is, which a browser reads into the
      same document (``tests/test_class_feedback.py`` compares the two).
    """

    def _create_environment(self):
        if self.extra_loaders:  # loader objects are not a key we can compare
            return super()._create_environment()
        key = (
            type(self),
            tuple(self.template_paths),
            self.template_extension,
            self.raw_template,
            self.enable_async,
            repr(self.config),
        )
        if key not in _environments:
            if len(_environments) >= ENVIRONMENTS_KEPT:
                _environments.clear()
            _environments[key] = super()._create_environment()
        return _environments[key]

    def from_notebook_node(self, nb, resources=None, **kw):
        """HTMLExporter.from_notebook_node (nbconvert 7) with the remembered highlighting and without the re-parse."""
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        highlight_code = self.filters.get("highlight_code", RememberedHighlight(pygments_lexer=lexer, parent=self))
        if isinstance(highlight_code, RememberedHighlight):
            highlight_code.locked = {cell.source for cell in nb.cells if cell.cell_type == "code" and is_locked(cell)}
        resources = self._init_resources(resources)
        filter_data_type = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
        self.register_filter("highlight_code", highlight_code)
        self.register_filter("filter_data_type", filter_data_type)
        page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        return accessible(page, self.log), resources

    @pass_context
    def markdown2html(self, context, source):
        """HTMLExporter.markdown2html (nbconvert 7), remembered per process: a cell's Markdown, with the same
        attachments and options, is rendered once.  With ``embed_images`` the page reads image files: not kept."""
        if self.embed_images:
            return super().markdown2html(context, source)
        attachments = (context.get("cell") or {}).get("attachments") or {}
        options = [attachments, self.anchor_link_text, self.exclude_anchor_links, self.lexer_options]
        key = (source, json.dumps(options, sort_keys=True, default=repr))
        if key not in _rendered_markdown:
            if len(_rendered_markdown) >= MARKDOWN_KEPT:
                _rendered_markdown.clear()
            _rendered_markdown[key] = super().markdown2html(context, source)
        return _rendered_markdown[key]


class RememberedHighlight(Highlight2HTML):
    """nbconvert's highlighting of a cell's source, remembered per process: a source is highlighted once; a locked
    cell's (``locked``: the page's locked code cells' sources) is kept on disk too (``highlight_store``)."""

    locked: frozenset | set = frozenset()

    def __call__(self, source, language=None, metadata=None):
        magics = (metadata or {}).get("magics_language")
        options = json.dumps(self.extra_formatter_options, sort_keys=True, default=repr)
        if source in self.locked:
            return _stored_highlight(source, language, magics, self.pygments_lexer, options)
        return _highlighted(source, language, magics, self.pygments_lexer, options)


@functools.lru_cache(maxsize=1024)
def _stored_highlight(source: str, language: str | None, magics: str | None, lexer: str, options: str) -> str:
    name = highlight_store.name_of(source, language, magics, lexer, options)
    html = highlight_store.read(name)
    if html is None:
        html = _highlighted(source, language, magics, lexer, options)
        highlight_store.write(name, html)
    return html


@functools.lru_cache(maxsize=4096)
def _highlighted(source: str, language: str | None, magics: str | None, lexer: str, options: str) -> str:
    highlight = Highlight2HTML(pygments_lexer=lexer, extra_formatter_options=json.loads(options))
    return highlight(source, language, {"magics_language": magics} if magics else None)


NEEDS_SOUP = re.compile(r"<img\b|jp-Notebook", re.IGNORECASE)


def accessible(page: str, log) -> str:
    """``page`` with nbconvert's accessibility pass when it has something for it to do (an image, a Lab cell).

    The pass is HTMLExporter's own (nbconvert 7), run only on the pages that need it.
    """
    if not NEEDS_SOUP.search(page):
        return page
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, features="html.parser")
    missing_alt = 0
    for elem in soup.select("img:not([alt])"):
        elem.attrs["alt"] = "No description has been provided for this image"
        missing_alt += 1
    if missing_alt:
        log.warning("Alternative text is missing on %s image(s).", missing_alt)
    for elem in soup.select(".jp-Notebook div.jp-Cell-inputWrapper"):
        elem.attrs["tabindex"] = "0"
    for elem in soup.select(".jp-Notebook div.jp-OutputArea-output"):
        elem.attrs["tabindex"] = "0"
    return str(soup)


# --- a notebook that could not be graded ------------------------------------------------------------

WHAT_TO_DO = {
    "missing": "The grader found no file of this name in your submission. Submit it under its original name "
    "(<code>{name}.ipynb</code>, as released), then ask your instructor to grade it again.",
    "unreadable": "The file is damaged: it is not a notebook Jupyter can open (often a copy cut short, or a file "
    "saved by another program). Open it in Jupyter: if it does not open, fetch the assignment "
    "again, copy your answers into the fresh <code>{name}.ipynb</code>, save it and submit that. "
    "Then ask your instructor to grade it again.",
}


def ungraded_page(name: str, assignment: str, reason: str, max_points: float) -> str:
    """The feedback page of a notebook the kit could not grade: 0 points, why, and what to do."""
    kind = "missing" if "missing from the submission" in reason else "unreadable"
    css = CSS.read_text(encoding="utf-8")
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(name)}</title>
<style>body{{font-family:sans-serif;font-size:14px;max-width:60em;margin:1em auto;padding:0 1em}}
{css}</style></head>
<body>
<h4>{html.escape(name)} (Score: 0.0 / {max_points:.1f})</h4>
<div class="kit-summary kit-not-graded" id="kit-summary">
<h2>This notebook could not be graded</h2>
<p><b>Why:</b> {html.escape(reason)}</p>
<p><b>What to do:</b> {WHAT_TO_DO[kind].format(name=html.escape(name))}</p>
<p>None of its tests ran, so none of them scored; your other notebooks of <code>{html.escape(assignment)}</code>
were graded as usual.</p>
</div>
</body></html>
"""


def ungraded_reasons(expected: list[str], staged: Path, notes: list[str]) -> dict[str, str]:
    """Notebook name -> why it was not graded, for each expected notebook intake left out of ``staged``."""
    reasons = {}
    for name in expected:
        if (staged / f"{name}.ipynb").exists():
            continue
        said = [n.split(": ", 1)[1] for n in notes if n.startswith(f"{name}.ipynb: ")]
        reasons[name] = said[0] if said else "missing from the submission (0 points)"
    return reasons


def write_ungraded_pages(
    feedback: Path, submitted: Path, assignment: str, reasons: dict[str, str], max_points: dict[str, float]
) -> list[Path]:
    """Write a page for each notebook of ``reasons`` into ``feedback`` (the student's feedback folder);
    ``max_points`` is each notebook's points.

    nbgrader's release_feedback reads ``timestamp.txt`` and ``submission_secret.txt`` next to every page;
    when GenerateFeedback wrote none (no notebook was graded), they are copied from the submission.
    """
    if not reasons:
        return []
    feedback.mkdir(parents=True, exist_ok=True)
    for extra in ("timestamp.txt", "submission_secret.txt"):
        if not (feedback / extra).exists() and (submitted / extra).is_file():
            shutil.copyfile(submitted / extra, feedback / extra)
    pages = []
    for name, reason in sorted(reasons.items()):
        page = feedback / f"{name}.html"
        page.write_text(ungraded_page(name, assignment, reason, max_points.get(name, 0.0)), encoding="utf-8")
        pages.append(page)
    return pages
