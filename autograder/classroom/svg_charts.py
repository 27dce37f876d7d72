"""Two kinds of chart for the class report, written as SVG text: a histogram and a chart of labelled bars.

The report needs nothing more, and SVG keeps it that way: no plotting library to import (matplotlib took
about a second of each graded run: its import and a PNG's layout and rendering), text that stays sharp
at any zoom, and labels a browser's search finds.  Every number on a chart is fixed by its caller (the
axis runs to a given top), so two classes' charts read alike.
"""

from __future__ import annotations

import math
from html import escape

FONT = 'font-family="sans-serif"'
CHAR_WIDTH = 0.6  # a sans-serif character's width, as a share of its font size (for the room a label needs)


def _number(value: float) -> str:
    return f"{value:.4g}"


def _svg(width: float, height: float, parts: list[str], title: str) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" {FONT} font-size="12">'
        f"<title>{escape(title)}</title>"
        f'<rect width="100%" height="100%" fill="white"/>'
        f'<text x="{width / 2:.0f}" y="18" text-anchor="middle" font-size="14">{escape(title)}</text>'
    )
    return head + "".join(parts) + "</svg>\n"


def round_top(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least ``value``: an axis whose five ticks
    read as round numbers."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= value * (1 - 1e-9))


def _ticks(top: float, count: int = 5, whole: bool = False) -> list[float]:
    """Up to ``count`` + 1 evenly spaced values from 0 to ``top`` (whole numbers only when ``whole``)."""
    if whole:
        step = max(1, -(-int(top) // count))
        return [float(v) for v in range(0, int(top) + 1, step)]
    return [top * i / count for i in range(count + 1)]


def histogram(counts: list[int], top: float, title: str, xlabel: str, ylabel: str, color: str) -> str:
    """Bars side by side over 0..``top`` (``len(counts)`` equal bins); the y axis in whole numbers."""
    width, height, left, right, up, down = 560, 260, 50, 20, 30, 45
    plot_w, plot_h = width - left - right, height - up - down
    ymax = max(1, *counts) + 0.5
    parts = []
    for value in _ticks(ymax, whole=True):
        y = up + plot_h * (1 - value / ymax)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value:.0f}</text>')
    bin_w = plot_w / len(counts)
    for i, n in enumerate(counts):
        h = plot_h * n / ymax
        parts.append(
            f'<rect x="{left + i * bin_w:.1f}" y="{up + plot_h - h:.1f}" width="{bin_w:.1f}" height="{h:.1f}" '
            f'fill="{color}" stroke="white"><title>{n}</title></rect>'
        )
    for i in range(len(counts) + 1):
        x = left + i * bin_w
        parts.append(
            f'<text x="{x:.1f}" y="{up + plot_h + 15}" text-anchor="middle">{_number(top * i / len(counts))}</text>'
        )
    parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{up + plot_h}" y2="{up + plot_h}" stroke="black"/>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">{escape(xlabel)}</text>')
    parts.append(
        f'<text transform="translate(14 {up + plot_h / 2}) rotate(-90)" text-anchor="middle">{escape(ylabel)}</text>'
    )
    return _svg(width, height, parts, title)


def bars(
    rows: list[tuple[str, float, str]], top: float, title: str, xlabel: str, color: str, label_size: int = 10
) -> str:
    """One horizontal bar per row (label, value, the text written after the bar), first row on top, the x
    axis from 0 to ``top``."""
    longest = max((len(label) for label, _, _ in rows), default=0)
    left = int(min(320, 12 + CHAR_WIDTH * label_size * longest))
    width, right, up, down, row_h = left + 480, 70, 30, 45, 20
    plot_w, plot_h = width - left - right, row_h * len(rows)
    height = up + plot_h + down
    parts = []
    for value in _ticks(top):
        x = left + plot_w * value / top
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{up}" y2="{up + plot_h}" stroke="#ddd"/>')
        parts.append(f'<text x="{x:.1f}" y="{up + plot_h + 15}" text-anchor="middle">{_number(value)}</text>')
    for i, (label, value, note) in enumerate(rows):
        y = up + i * row_h
        w = plot_w * min(max(value, 0.0), top) / top
        parts.append(
            f'<rect x="{left}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" fill="{color}">'
            f"<title>{escape(label)}: {escape(note)}</title></rect>"
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + row_h / 2 + 4:.1f}" text-anchor="end" font-size="{label_size}">'
            f"{escape(label)}</text>"
        )
        parts.append(f'<text x="{left + w + 4:.1f}" y="{y + row_h / 2 + 4:.1f}" font-size="10">{escape(note)}</text>')
    parts.append(f'<line x1="{left}" x2="{left}" y1="{up}" y2="{up + plot_h}" stroke="black"/>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">{escape(xlabel)}</text>')
    return _svg(width, height, parts, title)
