"""The similarity page (``reports/ASSIGNMENT/similarity.html``), its listing in the class report, and
its terminal table: each notebook's most similar pairs, side by side, with the matching regions marked.

The page shows similarity for a person to review.  It accuses nobody: two honest students can write
alike, and the page says why each pair scored so that the reader can judge."""

from __future__ import annotations

import html
from pathlib import Path

from .similarity import NotebookResult, Pair, matching_regions

PAGE = "similarity.html"
NOTICE = (
    "This page shows how similar the students' solution code is, for a person to review. A high score is "
    "a reason to look at two submissions side by side, not a finding: students who follow the same lesson "
    "can write alike, and only a person who knows the class can judge."
)
METHOD = (
    "Only the solution cells are compared. Each cell is first rewritten the same way for everyone: comments "
    "and docstrings dropped, the layout made uniform, methods put in one order, and every name treated as "
    "the same placeholder (so renaming changes nothing). The released starter code, and any fragment that "
    "many submissions share, never count. A pair's score is the share of both students' remaining code "
    "that lies in regions the two have in common (0: none, 1: all of it), averaged over the two."
)
STYLE = """body{font-family:sans-serif;max-width:90em;margin:2em auto;padding:0 1em}
td,th{padding:2px 8px;text-align:left}tr:nth-child(even){background:#f3f3f3}
.notice{background:#eef4fb;border-left:4px solid #3b75af;padding:.6em 1em}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.pair pre{background:#fafafa;border:1px solid #ddd;padding:.5em;overflow-x:auto;font-size:12px;white-space:pre-wrap}
mark{background:#ffd27a}"""


def why(pair: Pair) -> str:
    """One sentence on why a pair scored what it did."""
    return (
        f"{pair.matched} characters of tokenized code lie in regions both have: {pair.share_a:.0%} of "
        f"{pair.student_a}'s compared code and {pair.share_b:.0%} of {pair.student_b}'s "
        f"(score {pair.score:.2f}, the mean of the two)."
    )


def _side_by_side(result: NotebookResult, pair: Pair) -> str:
    from .winnowing import utils

    highlight_overlap = utils().highlight_overlap

    a, b = result.documents[pair.student_a], result.documents[pair.student_b]
    slices_a, slices_b = matching_regions(a, b)
    marked = [
        highlight_overlap(doc.code, slices, "<mark>", "</mark>", escape_html=True)[0]
        for doc, slices in ((a, slices_a), (b, slices_b))
    ]
    columns = "".join(
        f"<div><h4>{html.escape(name)}</h4><pre>{code}</pre></div>"
        for name, code in zip((pair.student_a, pair.student_b), marked)
    )
    return f'<p>{html.escape(why(pair))}</p><div class="pair">{columns}</div>'


def _notebook_section(result: NotebookResult, shown: int, threshold: float) -> str:
    rows = "".join(
        f"<tr><td>{rank}</td><td>{html.escape(p.student_a)}</td><td>{html.escape(p.student_b)}</td>"
        f"<td>{p.score:.2f}</td><td>{p.share_a:.0%} / {p.share_b:.0%}</td>"
        f"<td>{'at or above the threshold' if p.score >= threshold else ''}</td></tr>"
        for rank, p in enumerate(result.pairs[:shown], 1)
    )
    unpaired = "".join(
        f"<li>{html.escape(s)}: {html.escape(why_not)}</li>" for s, why_not in sorted(result.unpaired.items())
    )
    pairs = "".join(
        f'<h3 id="{html.escape(result.notebook)}-{rank}">{rank}. {html.escape(p.student_a)} and '
        f"{html.escape(p.student_b)}: {p.score:.2f}</h3>{_side_by_side(result, p)}"
        for rank, p in enumerate(result.pairs[:shown], 1)
    )
    return (
        f'<h2 id="{html.escape(result.notebook)}">{html.escape(result.notebook)}</h2>'
        f"<p>{len(result.documents)} submission(s) compared, {len(result.pairs)} pair(s) with code in common.</p>"
        + (
            f"<table><tr><th>#</th><th>student</th><th>student</th><th>score</th><th>shares</th><th></th></tr>"
            f"{rows}</table>"
            if rows
            else "<p>No pair has code in common.</p>"
        )
        + (
            f"<details><summary>not compared ({len(result.unpaired)})</summary><ul>{unpaired}</ul></details>"
            if unpaired
            else ""
        )
        + pairs
    )


def write_page(
    results: list[NotebookResult], folder: Path, assignment: str, *, shown: int = 5, threshold: float = 0.5
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    title = f"{html.escape(assignment)}: similar solutions, for review"
    contents = " &middot; ".join(f'<a href="#{html.escape(r.notebook)}">{html.escape(r.notebook)}</a>' for r in results)
    body = "".join(_notebook_section(r, shown, threshold) for r in results)
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>
<style>{STYLE}</style></head><body>
<h1>{title}</h1>
<p class="notice">{html.escape(NOTICE)}</p>
<p>{html.escape(METHOD)} The class report lists the pairs scoring at least {threshold:g}; this page shows the top
{shown} of each notebook. <a href="index.html">Back to the class report</a>.</p>
<p>{contents}</p>
{body}
</body></html>"""
    target = folder / PAGE
    target.write_text(page, encoding="utf-8")
    return target


def report_section(pairs: list[Pair], threshold: float) -> str:
    """The class report's part: a link to the page and the pairs at or above the threshold."""
    rows = "".join(
        f"<tr><td>{html.escape(p.notebook)}</td><td>{html.escape(p.student_a)}</td>"
        f"<td>{html.escape(p.student_b)}</td><td>{p.score:.2f}</td></tr>"
        for p in pairs
    )
    listing = (
        f"<table><tr><th>notebook</th><th>student</th><th>student</th><th>score</th></tr>{rows}</table>"
        if pairs
        else f"<p>No pair of solutions scores {threshold:g} or more.</p>"
    )
    return (
        f"<h2>Similar solutions</h2><p>For a person to review, not a finding: "
        f'<a href="{PAGE}">the similarity page</a> shows each notebook\'s most similar pairs side by side and '
        f"why they scored. Pairs scoring at least {threshold:g}:</p>{listing}"
    )


def text_table(results: list[NotebookResult], shown: int = 3) -> str:
    """Each notebook's top pairs, for the terminal."""
    lines = []
    for r in results:
        lines.append(f"{r.notebook}: {len(r.documents)} compared, {len(r.unpaired)} not compared")
        for p in r.pairs[:shown]:
            lines.append(f"  {p.score:.2f}  {p.student_a} ~ {p.student_b}  ({p.share_a:.0%} / {p.share_b:.0%})")
    return "\n".join(lines)
