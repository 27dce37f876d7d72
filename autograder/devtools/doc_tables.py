"""The documents' generated tables, written from the registries they show: ``python -m autograder.devtools.doc_tables``
(``python -m autograder build`` runs it too).

Each entry of :data:`GENERATED` is a :class:`Table`: a document, the two marker lines the table sits between, and
the function that makes it from the code: docs/contract.md's input-space table from ``UNITS`` (and the layouts of
``LAYOUTS`` it draws), docs/threat-model.md's file view from ``SHOWN``, ``HIDDEN`` and ``NOT_SHOWN``, docs/lms.md's
roster columns from ``RosterEntry``'s fields and ``ALIASES`` and its export targets from ``TARGETS``,
docs/limits.md's options from ``ResourceLimits`` (each limit's name, default and help).  A new boundary class, a new
layout, a new hidden folder, a new roster column, a new export target or a changed limit changes the registry; this
rewrites the tables (tests/test_registries.py fails while a document's table is stale, as do
tests/test_input_space.py and tests/test_system_view.py for theirs).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from .. import config
from ..classroom.lms import roster, targets
from ..hidden import space
from ..sandbox import system_view

VIEW_BEGIN, VIEW_END = (
    "<!-- file-view table: generated from autograder/sandbox/system_view.py -->",
    "<!-- end of the generated file-view table -->",
)
ROSTER_BEGIN, ROSTER_END = (
    "<!-- roster-column table: generated from autograder/classroom/lms/roster.py -->",
    "<!-- end of the generated roster-column table -->",
)
LIMITS_BEGIN, LIMITS_END = (
    "<!-- limits table: generated from ResourceLimits in autograder/config.py -->",
    "<!-- end of the generated limits table -->",
)
TARGETS_BEGIN, TARGETS_END = (
    "<!-- export-target table: generated from autograder/classroom/lms/targets.py -->",
    "<!-- end of the generated export-target table -->",
)


def limits_table() -> str:
    """Each option of ``ResourceLimits`` as it declares it: its name, its default, its help (in the order a run
    decides them, ``NotebookLimits``'s fields)."""
    traits = config.ResourceLimits.class_traits(config=True)
    rows = [
        "| option (`c.ResourceLimits.…`) | default | what it limits, and what happens when it is reached |",
        "|---|---|---|",
    ]
    for name in config.NotebookLimits.__dataclass_fields__:
        trait = traits[name]
        default = f'`"{trait.default_value}"`' if isinstance(trait.default_value, str) else f"{trait.default_value}"
        words = " ".join(trait.help.split()).replace("|", r"\|")  # a bar in the words, escaped
        rows.append(f"| `{name}` | {default} | {words} |")
    return "\n".join(rows)


class Table(NamedTuple):
    document: str  # from the repository's root
    begin: str  # the marker lines the table sits between
    end: str
    make: Callable[[], str]  # what makes the table from the code


GENERATED: list[Table] = [
    Table("docs/contract.md", space.BEGIN, space.END, space.table),
    Table("docs/threat-model.md", VIEW_BEGIN, VIEW_END, system_view.table),
    Table("docs/lms.md", ROSTER_BEGIN, ROSTER_END, roster.table),
    Table("docs/lms.md", TARGETS_BEGIN, TARGETS_END, targets.table),
    Table("docs/limits.md", LIMITS_BEGIN, LIMITS_END, limits_table),
]
DOCUMENTS = sorted({table.document for table in GENERATED})


def checked_table(table: str, path: Path) -> str:
    """``table`` if each of its rows has as many cells as its header (a ``|`` in a cell's words, unescaped, would
    split it); else an error naming the document and the row."""
    rows = [line for line in table.splitlines() if line.startswith("|")]
    width = len(_cells(rows[0])) if rows else 0
    for row in rows[1:]:
        if len(_cells(row)) != width:
            raise ValueError(f"{path}: a generated table's row has {len(_cells(row))} cells, not {width}: {row}")
    return table


def _cells(row: str) -> list[str]:
    return re.split(r"(?<!\\)\|", row.strip().strip("|"))


def regenerate(repo: Path, missing_ok: bool = False) -> list[Path]:
    """Rewrite each document's table between its markers; the documents that changed.  A document of the list that
    is missing (unless ``missing_ok``: a course's copy of the kit without docs/), or has lost a marker, is an error
    naming it."""
    changed = []
    for name in DOCUMENTS:
        path = repo / name
        if not path.exists():
            if missing_ok:
                continue
            raise FileNotFoundError(f"{path}: missing (it holds a generated table)")
        text = original = path.read_text(encoding="utf-8")
        for _, begin, end, make in (table for table in GENERATED if table.document == name):
            if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
                raise ValueError(
                    f"{path}: the generated table's markers are lost; they are, each on its line: {begin} {end}"
                )
            head, rest = text.split(begin, 1)
            tail = rest.split(end, 1)[1]
            text = f"{head}{begin}\n{checked_table(make().strip(), path)}\n{end}{tail}"
        if text != original:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    for written in regenerate(root):
        print(f"wrote {written.relative_to(root)}")
