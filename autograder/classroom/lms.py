"""Grades back to the LMS: the class roster, Canvas and Moodle gradebook CSVs, feedback for bulk re-upload.

The roster is one CSV, one row per student.  ``student_id`` (the nbgrader id) is required; every other
column is optional and named as below (case, spaces and hyphens do not matter, and Canvas's own
headers ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID`` and ``Section`` are understood too):

    student_id, name, login, lms_id, canvas_id, sis_user_id, sis_login_id, section, email, idnumber

``collect`` maps LMS names and ids to student ids with it; ``export --to canvas`` and ``--to moodle``
take each row's identifiers from it.  A roster that cannot be trusted (no ``student_id`` column, an
empty or duplicated student id, one LMS id given to two students) is refused with the file and row.

``collect`` remembers the LMS file name of every notebook it placed (``.kit/lms/<assignment>.json``),
so that ``export --feedback-zip`` can name each feedback file the way the LMS named the submission.
"""
from __future__ import annotations

import csv
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ("student_id", "name", "login", "lms_id", "canvas_id", "sis_user_id", "sis_login_id", "section",
           "email", "idnumber")
ALIASES = {"student": "name", "id": "canvas_id", "id_number": "idnumber", "email_address": "email",
           "sis_user": "sis_user_id", "sis_login": "sis_login_id"}
# the columns through which an LMS file or row can point at a student
LOOKUP_COLUMNS = ("student_id", "login", "lms_id", "canvas_id", "email", "sis_user_id", "sis_login_id", "idnumber")
CANVAS_FIXED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDS = ("email", "idnumber")
SAFE_ID = re.compile(r"^[^/\\\s.][^/\\\s]*$")


class RosterError(ValueError):
    """A roster that cannot be used, named with its file and row."""


@dataclass
class RosterEntry:
    student_id: str
    row: int                 # the line of the CSV file it came from
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


def _column(header: str) -> str:
    key = re.sub(r"[\s\-]+", "_", (header or "").strip().lower())
    return ALIASES.get(key, key)


def read_roster(path: Path) -> list[RosterEntry]:
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header or "student_id" not in [_column(h) for h in header]:
                raise RosterError(f"{path}: a roster needs a 'student_id' column (got {header})")
            columns = [_column(h) for h in header]
            duplicated = sorted({c for c in columns if c in COLUMNS and columns.count(c) > 1})
            if duplicated:
                raise RosterError(f"{path}: column {duplicated[0]!r} appears twice in the header")
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
                    raise RosterError(f"{path}, row {row}: student_id {sid!r} cannot name a folder "
                                      "(no spaces, slashes or leading dot)")
                if sid in seen_ids:
                    raise RosterError(f"{path}, row {row}: student_id {sid!r} is already on row {seen_ids[sid]}")
                seen_ids[sid] = row
                for key in LOOKUP_COLUMNS:
                    value = record.get(key, "").lower()
                    if not value:
                        continue
                    other = seen_values.get(value)
                    if other and other[0] != sid:
                        raise RosterError(f"{path}, row {row}: {key} {record[key]!r} also identifies "
                                          f"{other[0]!r} (row {other[1]})")
                    seen_values[value] = (sid, row)
                entries.append(RosterEntry(row=row, **record))
            return entries
    except FileNotFoundError:
        raise RosterError(f"{path}: no such roster file") from None
    except UnicodeDecodeError as e:
        raise RosterError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except csv.Error as e:
        raise RosterError(f"{path}: not a readable CSV file ({e})") from None


def roster_lookup(entries: list[RosterEntry]) -> dict[str, str]:
    """LMS login / id / email (lower-case) -> student id, as ``collect`` uses it."""
    return {getattr(e, key).lower(): e.student_id for e in entries for key in LOOKUP_COLUMNS if getattr(e, key)}


# --- what was graded -------------------------------------------------------------------------------

def graded_scores(db_url: str, assignment: str) -> dict[str, float]:
    """student id -> final score (nbgrader's ``score``: raw score minus late penalty, at least 0)
    for every student with a graded submission of ``assignment``."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise ValueError(f"assignment {assignment!r} is not in the gradebook {db_url}") from None
        return {s.student.id: max(0.0, float(s.score or 0.0) - float(s.late_submission_penalty or 0.0))
                for s in gb.assignment_submissions(assignment)}


def _score_cell(entry: RosterEntry, scores: dict[str, float], missing_as_zero: bool) -> str:
    if entry.student_id in scores:
        return f"{scores[entry.student_id]:g}"
    return "0" if missing_as_zero else ""


# --- gradebook files -------------------------------------------------------------------------------

def canvas_table(entries: list[RosterEntry], scores: dict[str, float], assignment: str,
                 assignment_id: str | None = None, missing_as_zero: bool = False,
                 roster_path: Path | str = "roster") -> list[list[str]]:
    """Canvas's gradebook import: its five identifying columns, then one column for the assignment."""
    title = f"{assignment} ({assignment_id})" if assignment_id else assignment
    table = [CANVAS_FIXED + [title]]
    for e in entries:
        if not (e.canvas_user_id or e.sis_user_id or e.sis_login_id):
            raise RosterError(f"{roster_path}, row {e.row}: student {e.student_id!r} has no canvas_id (or lms_id), "
                              "sis_user_id or sis_login_id, so Canvas could not match the row")
        table.append([e.name or e.student_id, e.canvas_user_id, e.sis_user_id, e.sis_login_id, e.section,
                      _score_cell(e, scores, missing_as_zero)])
    return table


def moodle_table(entries: list[RosterEntry], scores: dict[str, float], assignment: str, id_column: str = "email",
                 missing_as_zero: bool = False, roster_path: Path | str = "roster") -> list[list[str]]:
    """Moodle's grade import (CSV): the identifier to map to a user (email or idnumber), then the grade."""
    if id_column not in MOODLE_IDS:
        raise ValueError(f"Moodle identifies users by one of {', '.join(MOODLE_IDS)}, not {id_column!r}")
    table = [[id_column, assignment]]
    for e in entries:
        if not getattr(e, id_column):
            raise RosterError(f"{roster_path}, row {e.row}: student {e.student_id!r} has no {id_column}, "
                              "which Moodle needs to match the row")
        table.append([getattr(e, id_column), _score_cell(e, scores, missing_as_zero)])
    return table


def write_table(table: list[list[str]], target: Path) -> Path:
    with open(target, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(table)
    return target


def outside_roster(entries: list[RosterEntry], scores: dict[str, float]) -> dict[str, float]:
    known = {e.student_id for e in entries}
    return {s: v for s, v in sorted(scores.items()) if s not in known}


# --- LMS file names and feedback for re-upload ------------------------------------------------------

def lms_names_file(course_dir: Path, assignment: str) -> Path:
    return Path(course_dir) / ".kit" / "lms" / f"{assignment}.json"


def remember_lms_names(course_dir: Path, assignment: str, placed: list[tuple[str, str, str]]) -> None:
    """Record ``(student, notebook, LMS file name)`` of placed notebooks; a later collect updates them."""
    if not placed:
        return
    path = lms_names_file(course_dir, assignment)
    names = load_lms_names(course_dir, assignment)
    for student, notebook, origin in placed:
        names.setdefault(student, {})[notebook] = Path(origin).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(names, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")


def load_lms_names(course_dir: Path, assignment: str) -> dict[str, dict[str, str]]:
    path = lms_names_file(course_dir, assignment)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@dataclass
class FeedbackZip:
    path: Path
    files: dict[str, str]          # name in the zip -> student
    unnamed: list[str]             # students whose LMS file names are unknown (filed under their id)


def feedback_zip(course_dir: Path, assignment: str, target: Path) -> FeedbackZip:
    """Every student's feedback HTML, each named after the LMS file of the same notebook
    (``login_userid_submissionid_notebook.html``), for the LMS's bulk re-upload."""
    course_dir = Path(course_dir)
    names = load_lms_names(course_dir, assignment)
    files, unnamed = {}, []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for folder in sorted(p for p in (course_dir / "feedback").glob(f"*/{assignment}") if p.is_dir()):
            student = folder.parent.name
            known = names.get(student, {})
            for html in sorted(folder.glob("*.html")):
                lms_name = known.get(html.stem)
                arcname = f"{Path(lms_name).stem}.html" if lms_name else f"{student}/{html.name}"
                if not lms_name and student not in unnamed:
                    unnamed.append(student)
                z.write(html, arcname)
                files[arcname] = student
    return FeedbackZip(Path(target), files, unnamed)


# --- the export command -----------------------------------------------------------------------------

def export_to_lms(course_dir: Path, assignment: str, *, to: str, roster: Path | None, out: Path | None = None,
                  db_url: str | None = None, assignment_id: str | None = None, missing_as_zero: bool = False,
                  moodle_id: str = "email", feedback: Path | None = None, changed_since: int | None = None,
                  echo=print) -> Path:
    """``python -m autograder export``: grades.csv (nbgrader's), or a Canvas / Moodle gradebook file;
    ``changed_since``: only the students whose score changed since that recorded grade run."""
    from .export import export_grades, keep_students
    from .history import History
    from .regrade import changed_since as changed_since_run, gradebook_url

    if to in ("canvas", "moodle") and roster is None:
        raise ValueError(f"--to {to} needs --roster: the LMS identifies students by the roster's ids")
    entries = read_roster(roster) if roster else None
    course_dir = Path(course_dir).resolve()
    db_url = gradebook_url(course_dir, db_url)
    scores = graded_scores(db_url, assignment)
    if changed_since is not None:
        with History(db_url) as history:
            changed = set(changed_since_run(history, assignment, changed_since))
        scores = {s: v for s, v in scores.items() if s in changed}
        if entries is not None:
            entries = [e for e in entries if e.student_id in changed]
        echo(f"{len(changed)} student(s) whose score changed since run {changed_since}: "
             f"{', '.join(sorted(changed)) or 'none'}")
    since = f"-changed-since-run{changed_since}" if changed_since is not None else ""
    if to == "csv":
        target = export_grades(db_url, assignment, Path(out or course_dir / f"grades{since}.csv"))
        if changed_since is not None:
            keep_students(target, set(scores))
        echo(f"wrote {target}: nbgrader's grades ({len(scores)} graded)")
    else:
        target = Path(out or course_dir / f"{assignment}-{to}{since}.csv")
        if to == "canvas":
            table = canvas_table(entries, scores, assignment, assignment_id, missing_as_zero, roster)
        elif to == "moodle":
            table = moodle_table(entries, scores, assignment, moodle_id, missing_as_zero, roster)
        else:
            raise ValueError(f"unknown export target {to!r} (csv, canvas or moodle)")
        write_table(table, target)
        missing = [e.student_id for e in entries if e.student_id not in scores]
        echo(f"wrote {target}: {len(entries) - len(missing)} graded student(s) of {len(entries)} in the roster")
        if missing:
            what = "0" if missing_as_zero else "an empty cell"
            echo(f"{len(missing)} roster student(s) without a graded submission get {what}: {', '.join(missing)}")
    if entries is not None:
        strays = outside_roster(entries, scores)
        if strays:
            echo(f"WARNING: {len(strays)} graded student(s) are not in the roster {roster} "
                 f"and are not in {target.name}:")
            for student, score in strays.items():
                echo(f"  {student}: {score:g}")
    if feedback:
        packed = feedback_zip(course_dir, assignment, Path(feedback))
        echo(f"wrote {packed.path}: {len(packed.files)} feedback file(s) named as in the LMS download")
        if packed.unnamed:
            echo(f"{len(packed.unnamed)} student(s) were not collected from an LMS download, so their feedback "
                 f"is filed under their student id: {', '.join(packed.unnamed)}")
    return target
