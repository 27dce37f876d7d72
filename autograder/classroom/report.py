"""The class report: what the class got wrong, as SVG charts in an HTML page and as terminal text.

A test of a notebook that was not graded (missing, or not a notebook) did not run: it counts neither
as passed nor as failed in the pass rates, and the report lists such notebooks apart.  The charts
have fixed axes (0-100 %, whole students), so two classes' reports read alike at a glance.
"""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..grading.notes import class_notes, student_row
from ..grading.results import NOT_GRADED, Status, StudentResult
from ..hidden.diagnostics import KNOWN_IDS
from . import svg_charts

SKIP_IDS = {"not-implemented", "missing", NOT_GRADED}  # an unfinished stub is not a misconception
# Charts are drawn for a class, not for one student (a late submission graded alone): a histogram of one score
# and pass rates of 0 or 100 % say nothing the text does not.
CHART_MIN_STUDENTS = 2


@dataclass
class ClassFigures:
    students: int
    graded: int
    failed: list[tuple[str, str]]
    scores: list[float]
    max_score: float
    pass_rate: list[tuple[str, float]]  # "notebook/test" -> fraction passing, of the students it ran for
    ran: dict[str, int]  # "notebook/test" -> students whose notebook was graded
    not_graded: list[tuple[str, str]]  # (student, notebook) of notebooks that were not graded
    misconceptions: list[tuple[str, int]]  # id -> students who hit it
    slowest: list[tuple[str, float]]  # "student/notebook" -> seconds
    # this run's notebooks by how their kernel came up: forked, and started the ordinary way per reason
    forked: int = 0
    started: list[tuple[str, int]] = ()  # (why, notebooks)
    class_notes: list[str] = ()  # notes on the assignment, said once for the class (a point change)


def figures(results: list[StudentResult]) -> ClassFigures:
    graded = [r for r in results if r.status in (Status.GRADED, Status.SKIPPED)]
    passes, totals = Counter(), Counter()  # per test, over the students whose notebook was graded
    hit, not_graded = defaultdict(set), set()
    for r in graded:
        for t in r.tests:
            key = f"{t.notebook}/{t.test}"
            if t.diagnosis == NOT_GRADED:  # it never ran: neither passed nor failed
                not_graded.add((r.student, t.notebook))
                continue
            totals[key] += 1
            passes[key] += t.points >= t.max_points
            if t.diagnosis in KNOWN_IDS and t.points < t.max_points and t.diagnosis not in SKIP_IDS:
                hit[t.diagnosis].add(r.student)
    slow = sorted(
        ((f"{r.student}/{nb}", s) for r in graded for nb, s in r.notebook_seconds.items()), key=lambda x: -x[1]
    )[:10]
    starts = [how for r in results if r.status is Status.GRADED for how in r.kernel_starts.values()]
    started = Counter(how.partition(": ")[2] or "no reason recorded" for how in starts if how != "forked")
    return ClassFigures(
        students=len(results),
        graded=len(graded),
        failed=[
            (r.student, r.reason if r.status is Status.FAILED else f"not graded, the kit's side failed: {r.reason}")
            for r in results
            if r.status in (Status.FAILED, Status.ERROR)
        ],
        scores=[r.score for r in graded],
        max_score=max((r.max_score for r in graded), default=0.0),
        pass_rate=[(k, passes[k] / totals[k]) for k in sorted(totals)],
        ran=dict(totals),
        not_graded=sorted(not_graded),
        misconceptions=sorted(((k, len(v)) for k, v in hit.items()), key=lambda x: (-x[1], x[0])),
        slowest=slow,
        forked=starts.count("forked"),
        started=sorted(started.items(), key=lambda x: (-x[1], x[0])),
        class_notes=class_notes({r.student: r.reason for r in results}),
    )


def describe(code: str) -> str:
    """What a mistake the report lists is, in words: every id it can list (:data:`KNOWN_IDS`, the catalogue, the
    relationships such as ``scaled`` and the generic ids) has its description."""
    return KNOWN_IDS.get(code) or code


def text_report(f: ClassFigures) -> str:
    lines = [f"Class report: {f.graded} of {f.students} submissions graded, {len(f.failed)} not"]
    lines += [f"  {note}" for note in f.class_notes]
    if f.scores:
        mean = sum(f.scores) / len(f.scores)
        full = sum(s >= f.max_score for s in f.scores)
        lines.append(
            f"  mean score {mean:.1f}/{f.max_score:g}; full marks: {full}; zero: {sum(s == 0 for s in f.scores)}"
        )
    if f.misconceptions:
        lines.append("  What the class got wrong (students who hit each mistake):")
        for code, n in f.misconceptions:
            lines.append(f"    {100 * n / max(f.graded, 1):3.0f}%  {n:3d}  {code:24} {describe(code)}")
    weakest = sorted(f.pass_rate, key=lambda x: x[1])[:5]
    if weakest:
        lines.append("  Lowest pass rates: " + ", ".join(f"{k} {100 * v:.0f}% of {f.ran[k]}" for k, v in weakest))
    if f.not_graded:
        lines.append(
            "  Notebooks not graded (missing or not a notebook; left out of the pass rates): "
            f"{len(f.not_graded)}: " + ", ".join(f"{student}/{nb}" for student, nb in f.not_graded)
        )
    if f.slowest:
        lines.append("  Slowest notebooks: " + ", ".join(f"{k} {s:.1f}s" for k, s in f.slowest[:5]))
    if f.forked or f.started:  # the fallback is visible: how many kernels were not forked, and why
        why = "; ".join(f"{n}: {reason}" for reason, n in f.started)
        lines.append(
            f"  Kernels: {f.forked} forked into their sandboxes, {sum(n for _, n in f.started)} started the "
            "ordinary way" + (f" ({why})" if why else "")
        )
    for student, reason in f.failed:
        lines.append(f"  could not grade {student}: {student_row(reason)}")
    if not draws_charts(f):
        lines.append(f"  No charts: {f.graded} submission(s) graded, charts are drawn from {CHART_MIN_STUDENTS}")
    return "\n".join(lines)


def draws_charts(f: ClassFigures) -> bool:
    return f.graded >= CHART_MIN_STUDENTS


def _bin_counts(scores: list[float], top: float) -> list[int]:
    """Students per tenth of ``top`` (the histogram's bars), for a y axis that fits the tallest."""
    counts = [0] * 10
    for s in scores:
        counts[min(9, max(0, int(10 * s / top)))] += 1
    return counts


# --- the charts: one function each, registered under the file it draws -------------------------------
# A chart function takes the class's figures and returns the chart as SVG text (autograder/classroom/svg_charts.py
# draws the two kinds there are), or None when the class has nothing for it to show.  CHARTS is the one list: the
# report draws each one, names its file after the key, and removes an earlier run's file when no chart is drawn.
# Adding a chart is one entry.  A chart reads only ClassFigures (above), never the students' results: a chart that
# needs data the figures do not hold yet needs a field of ClassFigures too, filled in by figures() from the results.


def _scores_chart(f: ClassFigures) -> str:
    top = f.max_score or 100.0
    return svg_charts.histogram(
        _bin_counts(f.scores, top), top, "Score distribution", f"score (out of {top:g})", "students", "#3b75af"
    )


def _pass_rate_chart(f: ClassFigures) -> str | None:
    if not f.pass_rate:
        return None
    rows = [(k, 100 * v, f"{round(v * f.ran[k])} of {f.ran[k]}") for k, v in f.pass_rate]
    xlabel = "% of students passing (of those whose notebook was graded)"
    return svg_charts.bars(rows, 100, "Pass rate per test", xlabel, "#4c9a52", label_size=9)


def _misconceptions_chart(f: ClassFigures) -> str | None:
    if not f.misconceptions:
        return None
    rows = [(k, 100 * n / max(f.graded, 1), f"{n} of {f.graded}") for k, n in f.misconceptions]
    title = "Misconceptions: students who hit each mistake"
    return svg_charts.bars(rows, 100, title, "% of the class", "#c44e52")


def _slowest_chart(f: ClassFigures) -> str | None:
    if not f.slowest:
        return None
    top = svg_charts.round_top(max(s for _, s in f.slowest))
    rows = [(k, s, f"{s:.1f} s") for k, s in f.slowest]
    return svg_charts.bars(rows, top, "Slowest notebooks", "seconds to execute", "#8172b2", label_size=9)


# file name -> the function that draws it from ClassFigures (see above); tests/test_bulk_grading.py reads the names here
CHARTS = {
    "scores.svg": _scores_chart,
    "pass_rate.svg": _pass_rate_chart,
    "misconceptions.svg": _misconceptions_chart,
    "slowest.svg": _slowest_chart,
}
# the charts' names before they were SVG: an earlier run's PNG is removed with the rest of its charts
EARLIER_CHARTS = ("scores.png", "pass_rate.png", "misconceptions.png", "slowest.png")


def _charts(f: ClassFigures, folder: Path) -> list[str]:
    """Draws every chart of :data:`CHARTS` that has something to show; the names of the files written.
    A chart with nothing to show leaves no file of an earlier run behind."""
    drawn = []
    for name, chart in CHARTS.items():
        svg = chart(f)
        if svg is None:
            (folder / name).unlink(missing_ok=True)
            continue
        (folder / name).write_text(svg, encoding="utf-8")
        drawn.append(name)
    return drawn


def changes_section(changes) -> str:
    """The report's "Changed since the last run": who went up or down and the tests behind it
    (``changes``: a :class:`~autograder.classroom.history.changes.Comparison`, or None after a first run)."""
    if changes is None:
        return ""
    from .history.changes import format_summary, points_text

    rows = "".join(
        f"<tr><td>{html.escape(c.student)}</td><td>{html.escape(t.name)}</td><td>{points_text(t.before) or '-'}</td>"
        f"<td>{points_text(t.after) or '-'}</td><td>{html.escape(t.diagnosis or '')}</td></tr>"
        for c in changes.students
        for t in c.tests
    )
    header = "<tr><th>student</th><th>test</th><th>before</th><th>after</th><th>diagnosis</th></tr>"
    return (
        f"<h2>Changed since the last run</h2>\n<pre>{html.escape(format_summary(changes))}</pre>\n"
        f"<table>{header}{rows}</table>"
    )


def write_report(results: list[StudentResult], folder: Path, assignment: str, sections: tuple[str, ...] = ()) -> Path:
    """``sections``: further HTML parts of other steps (the similarity listing), placed before the students."""
    folder.mkdir(parents=True, exist_ok=True)
    f = figures(results)
    for name in EARLIER_CHARTS:
        (folder / name).unlink(missing_ok=True)
    if draws_charts(f):
        charts = _charts(f, folder)
    else:
        charts = []
        for name in CHARTS:  # an earlier run's charts are not this run's
            (folder / name).unlink(missing_ok=True)
    rows = "".join(
        f"<tr><td>{n / max(f.graded, 1):.0%}</td><td>{n}</td><td><code>{html.escape(k)}</code></td>"
        f"<td>{html.escape(describe(k))}</td></tr>"
        for k, n in f.misconceptions
    )
    table = "".join(
        f"<tr><td>{html.escape(r.student)}</td><td>{r.status}</td><td>{r.score:g}/{r.max_score:g}</td>"
        f"<td>{html.escape(student_row(r.reason))}</td></tr>"
        for r in sorted(results, key=lambda r: r.student)
    )
    images = "".join(f'<p><img src="{name}" alt="{name}"></p>' for name in charts)
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(assignment)}: class report</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}td,th{{padding:2px 8px;text-align:left}}
tr:nth-child(even){{background:#f3f3f3}}pre{{white-space:pre-wrap;overflow-wrap:anywhere}}
img{{max-width:100%}}</style></head><body>
<h1>{html.escape(assignment)}: class report</h1>
<pre>{html.escape(text_report(f))}</pre>
<h2>What the class got wrong</h2>
<table><tr><th>class</th><th>students</th><th>misconception</th><th>the mistake</th></tr>{rows}</table>
{images}
{"".join(sections)}
<h2>Students</h2><table><tr><th>student</th><th>status</th><th>score</th><th>notes</th></tr>{table}</table>
</body></html>"""
    target = folder / "index.html"
    target.write_text(page, encoding="utf-8")
    return target
