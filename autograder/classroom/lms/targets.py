"""Where ``export`` can send grades: one table, :data:`TARGETS`, of target name -> what it writes and
which roster column the target matches students by.

The command line's ``--to`` choices, the roster check and the export command all read this table, so a
new target (a Blackboard file, say) is one entry here: a :class:`Target` with its help line, the roster
columns it needs, the function that turns the roster and the scores into its rows and the one that writes
them to the file (CSV as Python's ``csv`` writes it, unless the entry says otherwise).  docs/lms.md's table
of targets is made from it (:func:`table`).  It imports only the roster, so ``python -m autograder --help``
stays quick.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .roster import CANVAS_IDS, MOODLE_IDS, Roster, RosterEntry, RosterError

CANVAS_FIXED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


@dataclass(frozen=True)
class ExportOptions:
    """What the export command was asked, beyond the target: what a target's rows may depend on."""

    assignment: str
    assignment_id: str | None = None  # the LMS's id of the assignment (what each target does with it: Target.uses_id)
    missing_as_zero: bool = False  # a roster student without a graded submission gets 0, not an empty cell
    moodle_id: str = "email"  # the roster column Moodle matches users by
    # the assignment's maximum points (the source notebooks' as they are now), for a file whose header or rows
    # carry it; filled once the course is read (None while a target checks the roster, before anything is read)
    total: float | None = None


Rows = Callable[[Roster, "dict[str, float]", ExportOptions], "list[list[str]]"]


def write_csv(table: list[list[str]], path: Path) -> Path:
    """A target's rows as a CSV file (Python's ``csv``: a cell quoted only where it must be), UTF-8."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(table)
    return path


@dataclass(frozen=True)
class Target:
    help: str  # what the target is, for --help
    # the roster columns the target matches students by (the header needs one of them); () = no roster needed
    needs: Callable[[ExportOptions], tuple[str, ...]]
    needs_why: Callable[[ExportOptions], str]  # the words for that column, for the error naming it
    rows: Rows | None  # the file's rows from the roster and the scores; None: nbgrader's own grades.csv
    # what the target does with --assignment-id, for --help ("" = the target has no use for it, and refuses one)
    uses_id: str = ""
    write: Callable[[list[list[str]], Path], Path] = write_csv  # the rows to the file (its quoting, its encoding)

    def require(self, name: str, roster: Roster | None, options: ExportOptions) -> None:
        """Refuse, before anything is read or written, a roster this target cannot match students by."""
        if options.assignment_id and not self.uses_id:
            users = ", ".join(n for n, t in TARGETS.items() if t.uses_id)
            raise ValueError(f"--to {name} has no use for --assignment-id (the targets that use one: {users})")
        needed = self.needs(options)
        if not needed:
            return
        if roster is None:
            raise ValueError(f"--to {name} needs --roster: the LMS identifies students by the roster's ids")
        if not roster.columns & set(needed):
            raise RosterError(
                f"{roster.path}: --to {name} needs a column {self.needs_why(options)}; the roster has "
                f"{', '.join(sorted(roster.columns))}"
            )


def score_cell(entry: RosterEntry, scores: dict[str, float], missing_as_zero: bool) -> str:
    if entry.student_id in scores:
        return f"{scores[entry.student_id]:g}"
    return "0" if missing_as_zero else ""


def canvas_rows(roster: Roster, scores: dict[str, float], options: ExportOptions) -> list[list[str]]:
    """Canvas's gradebook import: its five identifying columns, then one column for the assignment."""
    title = f"{options.assignment} ({options.assignment_id})" if options.assignment_id else options.assignment
    table = [CANVAS_FIXED + [title]]
    for e in roster.entries:
        if not e.canvas_user_id:
            raise RosterError(
                f"{roster.path}, row {e.row}: student {e.student_id!r} has no canvas_id (Canvas's "
                "user ID), so Canvas could not match the row"
            )
        row = [e.name or e.student_id, e.canvas_user_id, e.sis_user_id, e.sis_login_id, e.section]
        table.append(row + [score_cell(e, scores, options.missing_as_zero)])
    return table


def moodle_rows(roster: Roster, scores: dict[str, float], options: ExportOptions) -> list[list[str]]:
    """Moodle's grade import (CSV): the identifier to map to a user (email or idnumber), then the grade."""
    column = options.moodle_id
    table = [[column, options.assignment]]
    for e in roster.entries:
        if not getattr(e, column):
            raise RosterError(
                f"{roster.path}, row {e.row}: student {e.student_id!r} has no {column}, "
                "which Moodle needs to match the row"
            )
        table.append([getattr(e, column), score_cell(e, scores, options.missing_as_zero)])
    return table


def _moodle_id(options: ExportOptions) -> tuple[str, ...]:
    if options.moodle_id not in MOODLE_IDS:
        raise ValueError(f"Moodle identifies users by one of {', '.join(MOODLE_IDS)}, not {options.moodle_id!r}")
    return (options.moodle_id,)


TARGETS: dict[str, Target] = {
    "csv": Target(
        help="nbgrader's own grades.csv",
        needs=lambda options: (),
        needs_why=lambda options: "",
        rows=None,
    ),
    "canvas": Target(
        help="Canvas's gradebook import",
        needs=lambda options: CANVAS_IDS,
        needs_why=lambda options: (
            "canvas_id (Canvas's user ID; the header 'ID' or lms_id work too), which Canvas's gradebook "
            "import matches students by"
        ),
        rows=canvas_rows,
        uses_id="Canvas's id of the assignment: its column becomes 'ASSIGNMENT (ID)'",
    ),
    "moodle": Target(
        help="Moodle's grade import",
        needs=_moodle_id,
        needs_why=lambda options: f"{options.moodle_id}, which Moodle's grade import matches users by",
        rows=moodle_rows,
    ),
}


def table() -> str:
    """docs/lms.md's table of the export targets, made from :data:`TARGETS` (``python -m autograder build``
    writes it)."""
    lines = ["| `--to` | the file | matches students by the roster column | `--assignment-id` |", "|---|---|---|---|"]
    for name, target in TARGETS.items():
        columns = ", ".join(f"`{c}`" for c in target.needs(ExportOptions("assignment"))) or "(no roster needed)"
        cells = (f"`{name}`", target.help, columns, target.uses_id or "refused")
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")  # a bar in words: escaped
    return "\n".join(lines)


def assignment_id_help() -> str:
    """--assignment-id's help: what each target of :data:`TARGETS` that uses the id does with it."""
    said = "; ".join(f"{name}: {t.uses_id}" for name, t in TARGETS.items() if t.uses_id)
    return f"the LMS's id of the assignment, for {said}"


def target_named(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown export target {name!r}: the kit exports to {', '.join(TARGETS)}") from None


def rows_for(name: str, roster: Roster, scores: dict[str, float], options: ExportOptions) -> list[list[str]]:
    """The rows of target ``name``'s file, once the roster is checked for the column it matches students by."""
    target = target_named(name)
    target.require(name, roster, options)
    return target.rows(roster, scores, options)
