"""Notes on a submission, grouped: many notes of one kind read as one line with a count.

A student whose notebooks differ in 32 locked cells gets 32 notes of one kind; listed one by one
they bury the note that matters (a notebook that is not valid JSON).  A note's kind is its text
with the notebook name before the first ": " and every `quoted` name taken out; notes of one kind
become ``<kind> ×<count>: <the first names> and <n> more``, in the order each kind first appears.
The grading keeps every note (a StudentResult's reason); grouping is how they are shown.

Some notes are about the assignment, not the student: after a test's points change, every submission
handed out before carries the old points (:func:`points_note`).  Where the instructor reads the class
(the class report, the summary table, ``diff``) they are grouped across students by the same means,
into one line for the class (:func:`class_notes`), and left out of each student's row.
"""

from __future__ import annotations

import re

SEPARATOR = "; "  # how a StudentResult's reason joins its notes
QUOTED = re.compile(r"`([^`]*)`")
PREFIX = re.compile(r"^([\w.\-]+): (.*)$", re.S)
SHOWN = 3  # names shown of a group before "and N more"
POINTS = re.compile(
    r"^(?P<notebook>[\w.\-]+): (?P<test>[\w.\-]+): (?P<had>[\d.]+) -> (?P<now>[\d.]+) points in the assignment \("
)


def points_note(notebook: str, test: str, had: float, now: float) -> str:
    """The note on a notebook handed out before its test's points changed: the assignment's are applied.
    (No ``SEPARATOR`` in it: a reason is split on that.)"""
    return (
        f"{notebook}: {test}: {had:g} -> {now:g} points in the assignment "
        f"(this copy, handed out before the change, says {had:g}, and is graded on {now:g})"
    )


def split_notes(reason: str | None) -> list[str]:
    """The notes of a StudentResult's reason."""
    return [n for n in (reason or "").split(SEPARATOR) if n]


def _kind_and_name(note: str) -> tuple[str, str]:
    """(the kind of ``note``, what tells it from the others of its kind)."""
    match = PREFIX.match(note)
    where, text = (match.group(1), match.group(2)) if match else ("", note)
    names = QUOTED.findall(text)
    kind = re.sub(r"\s{2,}", " ", QUOTED.sub("", text)).strip()
    name = " ".join(f"`{n}`" for n in names)
    return kind, " ".join(part for part in (where, name) if part)


def group_notes(notes: list[str], shown: int = SHOWN, phrase=None) -> list[str]:
    """``notes`` with those of one kind collapsed into one line with a count; a note alone is kept as it is.
    ``phrase(kind, count, listed)``, if given, says every group (of one note too) in its own words."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for note in notes:
        kind, name = _kind_and_name(note)
        groups.setdefault(kind, []).append((note, name))
    lines = []
    for kind, members in groups.items():
        names = [name for _, name in members if name]
        listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
        if phrase is not None:
            lines.append(phrase(kind, len(members), listed))
        elif len(members) == 1:
            lines.append(members[0][0])
        else:
            lines.append(f"{kind} ×{len(members)}" + (f": {listed}" if listed else ""))
    return lines


def is_class_note(note: str) -> bool:
    """A note on the assignment rather than on the student (:func:`points_note`)."""
    return POINTS.match(note) is not None


def _class_phrase(kind: str, count: int, listed: str) -> str:
    m = POINTS.match(kind)
    if m is None:  # a student id the note's prefix cannot hold: grouped as any note is
        return f"{kind} ×{count}" + (f": {listed}" if listed else "")
    had, now = m.group("had"), m.group("now")
    handed = f"the {count} submission{'s' if count > 1 else ''} handed out before the change"
    return (
        f"{m.group('notebook')}: {m.group('test')}: {had} -> {now} points in the assignment; "
        f"{handed} {'carry' if count > 1 else 'carries'} {had} points, graded on {now} ({listed})"
    )


def class_notes(reasons: dict[str, str | None]) -> list[str]:
    """The notes on the assignment in students' reasons (student -> reason), one line each for the class:
    ``03_sinusoidal: test-table-even: 5 -> 7 points in the assignment; the 8 submissions handed out before
    the change carry 5 points, graded on 7 (s01, s02, s03 and 5 more)``."""
    said = [f"{student}: {n}" for student, reason in reasons.items() for n in split_notes(reason) if is_class_note(n)]
    return group_notes(said, phrase=_class_phrase)


def student_row(reason: str | None) -> str:
    """A StudentResult's reason as a row of the class shows it: grouped, without the notes on the assignment,
    which the class's lines say once (:func:`class_notes`)."""
    return SEPARATOR.join(group_notes([n for n in split_notes(reason) if not is_class_note(n)]))
