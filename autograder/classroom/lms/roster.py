"""The class roster: one CSV, one row per student, read once for `collect` and `export`.

``student_id`` (the nbgrader id) is required; every other column is optional.  The columns are the
fields of :class:`RosterEntry` (but ``row``), in their order: :data:`COLUMNS` is made from them, so a new
column is one field there (case, spaces and hyphens do not matter in a header, and Canvas's own headers
``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID`` and ``Section`` are understood too, by
:data:`ALIASES`; a name there or in the lists below that is no column fails at import).

``collect`` maps LMS names and ids to student ids with it (:meth:`Roster.lookup`, through the columns of
:data:`LOOKUP_COLUMNS`: a new column an LMS file or row names a student by goes there too, and then no value of it
may name two students); ``export`` takes each row's identifiers from it, once the target (:mod:`.targets`)
has checked that the header has the column that target matches students by.  A roster that cannot be trusted (no
``student_id`` column, an empty or duplicated student id, one LMS id given to two students, a header
that is a misspelt column) is refused with the file and row.  Other headers the kit does not use (a
Canvas export's score columns, say) are named in :attr:`Roster.unknown` for the caller to report.
"""

from __future__ import annotations

import csv
import difflib
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

ALIASES = {
    "student": "name",
    "id": "canvas_id",
    "id_number": "idnumber",
    "email_address": "email",
    "sis_user": "sis_user_id",
    "sis_login": "sis_login_id",
}
# the columns through which an LMS file or row can point at a student (collect's lookup; each value names one student)
LOOKUP_COLUMNS = ("student_id", "login", "lms_id", "canvas_id", "email", "sis_user_id", "sis_login_id", "idnumber")
CANVAS_IDS = ("canvas_id", "lms_id")  # Canvas's user id: the column its gradebook import matches rows by
MOODLE_IDS = ("email", "idnumber")
SAFE_ID = re.compile(r"^[^/\\\s.][^/\\\s]*$")


class RosterError(ValueError):
    """A roster that cannot be used, named with its file and row."""


@dataclass
class RosterEntry:
    student_id: str
    row: int  # the line of the CSV file it came from
    name: str = ""
    login: str = ""
    lms_id: str = ""
    canvas_id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    email: str = ""
    idnumber: str = ""

    @property
    def canvas_user_id(self) -> str:
        return self.canvas_id or self.lms_id


# the roster's columns: RosterEntry's fields but ``row`` (the line it came from), in their order
COLUMNS = tuple(f.name for f in fields(RosterEntry) if f.name != "row")


def _column_lists() -> dict[str, tuple[str, ...]]:
    """This module's lists of columns: ``ALIASES``' columns and every module-level tuple named ``*_COLUMNS`` or
    ``*_IDS`` (an LMS's id columns, such as ``CANVAS_IDS``): a new such list is checked with no further entry."""
    lists = {"ALIASES": tuple(ALIASES.values())}
    for name, value in globals().items():
        if name != "COLUMNS" and name.endswith(("_COLUMNS", "_IDS")) and isinstance(value, tuple):
            lists[name] = value
    return lists


def _check_columns() -> None:
    """Every column the roster's tables name is a field of RosterEntry: fail at import, not with a silent
    "not used" when a field is renamed or a name is misspelt."""
    for table, names in _column_lists().items():
        stray = sorted(set(names) - set(COLUMNS))
        if stray:
            raise RuntimeError(
                f"autograder/classroom/lms/roster.py: {table} names {', '.join(stray)}, which is no field of "
                f"RosterEntry (its columns: {', '.join(COLUMNS)})"
            )


_check_columns()


def table() -> str:
    """docs/lms.md's table of the roster's columns, made from :data:`COLUMNS` and :data:`ALIASES`
    (``python -m autograder build`` writes it)."""
    lines = ["| column | also read from the header |", "|---|---|"]
    for column in COLUMNS:
        aliases = ", ".join(f"`{a}`" for a, c in ALIASES.items() if c == column)
        required = " (required)" if column == "student_id" else ""
        lines.append(f"| `{column}`{required} | {aliases} |")
    return "\n".join(lines)


@dataclass
class Roster:
    path: Path
    entries: list[RosterEntry]
    columns: set[str]  # the known columns its header has
    unknown: list[str] = field(default_factory=list)  # headers the kit does not use, as written

    def lookup(self) -> dict[str, str]:
        """LMS login / id / email (lower-case) -> student id, as ``collect`` uses it."""
        return {
            getattr(e, key).lower(): e.student_id for e in self.entries for key in LOOKUP_COLUMNS if getattr(e, key)
        }

    def unknown_note(self) -> str | None:
        if not self.unknown:
            return None
        return (
            f"{self.path}: column(s) not used: {', '.join(self.unknown)} (the roster's columns: {', '.join(COLUMNS)})"
        )


def column_key(header: str) -> str:
    key = re.sub(r"[\s\-]+", "_", (header or "").strip().lower())
    return ALIASES.get(key, key)


def _check_header(path: Path, header: list[str] | None) -> list[str]:
    """The header's columns (normalised); refuse a header without student_id, with a repeated column, or
    with a misspelt one (an unknown header close to a column the roster lacks)."""
    columns = [column_key(h) for h in header or []]
    if "student_id" not in columns:
        raise RosterError(f"{path}: a roster needs a 'student_id' column (got {header})")
    duplicated = sorted({c for c in columns if c in COLUMNS and columns.count(c) > 1})
    if duplicated:
        raise RosterError(f"{path}: column {duplicated[0]!r} appears twice in the header")
    absent = [c for c in COLUMNS if c not in columns]
    for written, key in zip(header, columns):
        near = difflib.get_close_matches(key, absent, n=1, cutoff=0.8) if key not in COLUMNS else []
        if near:
            raise RosterError(f"{path}: the header {written!r} is not a roster column; did you mean {near[0]!r}?")
    return columns


def read_roster(path: Path) -> Roster:
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            columns = _check_header(path, header)
            entries, seen_ids, seen_values = [], {}, {}
            for values in reader:
                row = reader.line_num
                if not any(v.strip() for v in values):
                    continue  # a blank line
                record = {c: v.strip() for c, v in zip(columns, values) if c in COLUMNS}
                sid = record.get("student_id", "")
                if not sid:
                    raise RosterError(f"{path}, row {row}: the student_id is empty")
                if not SAFE_ID.match(sid):
                    raise RosterError(
                        f"{path}, row {row}: student_id {sid!r} cannot name a folder "
                        "(no spaces, slashes or leading dot)"
                    )
                if sid in seen_ids:
                    raise RosterError(f"{path}, row {row}: student_id {sid!r} is already on row {seen_ids[sid]}")
                seen_ids[sid] = row
                for key in LOOKUP_COLUMNS:
                    value = record.get(key, "").lower()
                    if not value:
                        continue
                    other = seen_values.get(value)
                    if other and other[0] != sid:
                        raise RosterError(
                            f"{path}, row {row}: {key} {record[key]!r} also identifies {other[0]!r} (row {other[1]})"
                        )
                    seen_values[value] = (sid, row)
                entries.append(RosterEntry(row=row, **record))
            unknown = [h for h, c in zip(header, columns) if c not in COLUMNS]
            return Roster(path, entries, {c for c in columns if c in COLUMNS}, unknown)
    except FileNotFoundError:
        raise RosterError(f"{path}: no such roster file") from None
    except UnicodeDecodeError as e:
        raise RosterError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except csv.Error as e:
        raise RosterError(f"{path}: not a readable CSV file ({e})") from None
