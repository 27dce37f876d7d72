"""Grades back to the LMS: the ``export`` command, which writes the file of one export target (:mod:`.targets`:
each target of ``TARGETS``, nbgrader's grades.csv among them), and feedback for bulk re-upload.

Each row's identifiers come from the class roster (:mod:`.roster`), which is checked first for the
column the chosen LMS matches students by.  Every roster row needs that identifier; a graded student
missing from the roster is named on the terminal, never dropped silently.

``collect`` remembers the LMS file name of every notebook it placed (``.kit/lms/<assignment>.json``),
so that ``export --feedback-zip`` can name each feedback file the way the LMS named the submission.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from ...course import Assignment, Course
from ..history.scale import check_scale, current_total
from .canvas_names import CANVAS
from .roster import Roster, RosterEntry, read_roster
from .targets import ExportOptions, Target, target_named

# --- what was graded -------------------------------------------------------------------------------


def graded_scores(db_url: str, assignment: str, total: float | None = None) -> dict[str, float]:
    """student id -> final score (nbgrader's ``score``: raw score minus late penalty, at least 0)
    for every student with a graded submission of ``assignment``; with ``total``, OffScale unless every
    submission is out of that total and within it (:func:`~..history.scale.check_scale`)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise ValueError(f"assignment {assignment!r} is not in the gradebook {db_url}") from None
        submitted = list(gb.assignment_submissions(assignment))
        if total is not None:
            check_scale(
                [(s.student.id, float(s.score or 0.0), float(s.max_score or 0.0)) for s in submitted],
                total,
                f"the {assignment} export",
            )
        return {
            s.student.id: max(0.0, float(s.score or 0.0) - float(s.late_submission_penalty or 0.0)) for s in submitted
        }


def outside_roster(roster: Roster, scores: dict[str, float]) -> dict[str, float]:
    known = {e.student_id for e in roster.entries}
    return {s: v for s, v in sorted(scores.items()) if s not in known}


# --- LMS file names and feedback for re-upload ------------------------------------------------------


def remember_lms_names(assignment: Assignment, placed: list[tuple[str, str, str]]) -> None:
    """Record ``(student, notebook, LMS file name)`` of placed notebooks; a later collect updates them."""
    if not placed:
        return
    path = assignment.lms_names
    names = load_lms_names(assignment)
    for student, notebook, origin in placed:
        names.setdefault(student, {})[notebook] = Path(origin).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(names, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")


def remember_roster(course_dir: Path, entries: list[RosterEntry]) -> None:
    """Record each student's name and email from the roster ``collect`` was given, for grades.csv; a later
    roster updates the students it names."""
    path = Course(course_dir).roster_record
    known = load_roster(course_dir)
    known.update({e.student_id: {"name": e.name, "email": e.email} for e in entries})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")


def load_roster(course_dir: Path) -> dict[str, dict[str, str]]:
    """student id -> {name, email} recorded by :func:`remember_roster` (empty when collect had no roster)."""
    try:
        return json.loads(Course(course_dir).roster_record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def load_lms_names(assignment: Assignment) -> dict[str, dict[str, str]]:
    try:
        return json.loads(assignment.lms_names.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@dataclass
class FeedbackZip:
    path: Path
    files: dict[str, str]  # name in the zip -> student
    unnamed: list[str]  # students whose LMS file names are unknown (filed under their id)
    unsent: dict[str, list[str]]  # student -> notebooks not sent, whose pages carry that student's LMS name


def _lms_prefix(known: dict[str, str]) -> str | None:
    """``login_[LATE_]userid_submissionid_`` of a student's first LMS file name, which names the student to
    the LMS's Re-Upload; None when none is Canvas-style."""
    for _, name in sorted(known.items()):
        match = CANVAS.match(name)
        if match:
            return name[: match.start("file")]
    return None


def feedback_zip(assignment: Assignment, target: Path) -> FeedbackZip:
    """Every student's feedback HTML, each named after the LMS file of the same notebook
    (``login_userid_submissionid_notebook.html``), for the LMS's bulk re-upload.  The page of a notebook a
    student did not send carries the LMS name of another notebook of the same student, so it reaches him."""
    names = load_lms_names(assignment)
    files, unnamed, unsent = {}, [], {}
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for student, folder in assignment.students("feedback").items():
            known = names.get(student, {})
            prefix = _lms_prefix(known)
            for html in sorted(folder.glob("*.html")):
                lms_name = known.get(html.stem)
                if lms_name:
                    arcname = f"{Path(lms_name).stem}.html"
                elif prefix:
                    arcname = f"{prefix}{html.name}"
                    unsent.setdefault(student, []).append(html.stem)
                else:
                    arcname = f"{student}/{html.name}"
                    if student not in unnamed:
                        unnamed.append(student)
                z.write(html, arcname)
                files[arcname] = student
    return FeedbackZip(Path(target), files, unnamed, unsent)


# --- the export command: its steps, in order ----------------------------------------------------------


def export_to_lms(
    course_dir: Path,
    assignment: str,
    *,
    to: str,
    roster: Path | None,
    out: Path | None = None,
    db_url: str | None = None,
    assignment_id: str | None = None,
    missing_as_zero: bool = False,
    moodle_id: str = "email",
    feedback: Path | None = None,
    changed_since: int | None = None,
    echo=print,
) -> Path:
    """``python -m autograder export``: the file of the target ``to`` (:data:`~.targets.TARGETS`: nbgrader's
    grades.csv or another target's file of ``TARGETS``); ``changed_since``: only the students whose score
    changed since that recorded grade run."""
    from ..history.regrade import gradebook_url

    target = target_named(to)
    options = ExportOptions(assignment, assignment_id, missing_as_zero, moodle_id)
    listed = read_roster(roster) if roster else None
    target.require(to, listed, options)  # before anything is read or written
    if listed is not None and listed.unknown_note():
        echo(listed.unknown_note())
    course_dir = Path(course_dir).resolve()
    db_url = gradebook_url(course_dir, db_url)
    exported = Assignment(Course(course_dir), assignment)
    total = current_total(exported)
    options = replace(options, total=total)
    scores = graded_scores(db_url, assignment, total)
    since = ""
    if changed_since is not None:
        scores, listed = _changed_only(db_url, assignment, changed_since, scores, listed, echo)
        since = f"-changed-since-run{changed_since}"
    if target.rows is None:
        written = _write_grades_csv(exported, db_url, out, since, scores, total, echo)
    else:
        written = Path(out or exported.export_file(f"{to}{since}"))
        _write_roster_file(target, listed, scores, options, written, echo)
    if listed is not None:
        _warn_outside_roster(listed, scores, roster, written, echo)
    if feedback:
        _pack_feedback(exported, Path(feedback), echo)
    return written


def _changed_only(db_url, assignment, run, scores, listed, echo):
    """The scores and the roster cut down to the students whose score changed since grade run ``run``."""
    from ..history.history import History
    from ..history.regrade import changed_since

    with History(db_url) as history:
        changed = set(changed_since(history, assignment, run))
    echo(f"{len(changed)} student(s) whose score changed since run {run}: {', '.join(sorted(changed)) or 'none'}")
    scores = {s: v for s, v in scores.items() if s in changed}
    if listed is not None:
        listed = replace(listed, entries=[e for e in listed.entries if e.student_id in changed])
    return scores, listed


def _write_grades_csv(
    exported: Assignment, db_url: str, out, since: str, scores: dict[str, float], total: float, echo
) -> Path:
    from .export import export_grades

    grades_csv = exported.course.grades_csv
    target = export_grades(
        db_url,
        exported.name,
        Path(out or grades_csv.with_name(f"{grades_csv.stem}{since}.csv")),
        roster=load_roster(exported.course.root),
        students=set(scores) if since else None,
        total=total,
    )
    echo(f"wrote {target}: nbgrader's grades ({len(scores)} graded)")
    return target


def _write_roster_file(target: Target, listed: Roster, scores, options: ExportOptions, path: Path, echo) -> None:
    target.write(target.rows(listed, scores, options), path)
    missing = [e.student_id for e in listed.entries if e.student_id not in scores]
    echo(f"wrote {path}: {len(listed.entries) - len(missing)} graded student(s) of {len(listed.entries)} in the roster")
    if missing:
        what = "0" if options.missing_as_zero else "an empty cell"
        echo(f"{len(missing)} roster student(s) without a graded submission get {what}: {', '.join(missing)}")


def _warn_outside_roster(listed: Roster, scores, roster_path, written: Path, echo) -> None:
    strays = outside_roster(listed, scores)
    if strays:
        echo(
            f"WARNING: {len(strays)} graded student(s) are not in the roster {roster_path} and are not in {written.name}:"
        )
        for student, score in strays.items():
            echo(f"  {student}: {score:g}")


def _pack_feedback(exported: Assignment, path: Path, echo) -> None:
    packed = feedback_zip(exported, path)
    echo(f"wrote {packed.path}: {len(packed.files)} feedback file(s) named as in the LMS download")
    if packed.unnamed:
        echo(
            f"{len(packed.unnamed)} student(s) were not collected from an LMS download, so their feedback "
            f"is filed under their student id: {', '.join(packed.unnamed)}"
        )
    for student, notebooks in sorted(packed.unsent.items()):
        echo(
            f"{student} did not send {len(notebooks)} notebook(s) ({', '.join(notebooks)}); their feedback "
            "pages carry the LMS name of the notebooks sent, so Re-Upload attaches them to the same student"
        )
