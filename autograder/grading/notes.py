"""Notes on a submission, grouped: many notes of one kind read as one line with a count.

A student whose notebooks differ in 32 locked cells gets 32 notes of one kind; listed one by one
they bury the note that matters (a notebook that is not valid JSON).  A note's kind is its text
with the notebook name before the first ": " and every `quoted` name taken out; notes of one kind
become ``<kind> ×<count>: <the first names> and <n> more``, in the order each kind first appears.
The grading keeps every note (a StudentResult's reason); grouping is how they are shown.
"""

from __future__ import annotations

import re

SEPARATOR = "; "  # how a StudentResult's reason joins its notes
QUOTED = re.compile(r"`([^`]*)`")
PREFIX = re.compile(r"^([\w.\-]+): (.*)$", re.S)
SHOWN = 3  # names shown of a group before "and N more"


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


def group_notes(notes: list[str], shown: int = SHOWN) -> list[str]:
    """``notes`` with those of one kind collapsed into one line with a count; a note alone is kept as it is."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for note in notes:
        kind, name = _kind_and_name(note)
        groups.setdefault(kind, []).append((note, name))
    lines = []
    for kind, members in groups.items():
        if len(members) == 1:
            lines.append(members[0][0])
            continue
        names = [name for _, name in members if name]
        listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
        lines.append(f"{kind} ×{len(members)}" + (f": {listed}" if listed else ""))
    return lines


def grouped_reason(reason: str | None) -> str:
    """A StudentResult's reason as it is shown: its notes grouped (:func:`group_notes`)."""
    return SEPARATOR.join(group_notes(split_notes(reason)))
