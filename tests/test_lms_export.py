"""Grades back to the LMS: each export target's file (Canvas's, Moodle's) read back against the roster and grades.csv,
feedback packed under the LMS's file names, and rosters that cannot be trusted refused with file and row.

The graded course is the session's ``plain_course`` (reference, stub, independent, overwriter),
so nothing here grades a notebook again.
"""

from __future__ import annotations

import csv
import re
import shutil
import zipfile
from pathlib import Path

import pytest

from autograder.classroom.lms import targets
from autograder.classroom.lms.lms import export_to_lms
from autograder.classroom.lms.roster import RosterError, read_roster
from autograder.classroom.lms.targets import ExportOptions, rows_for
from autograder.course import ASSIGNMENT, NOTEBOOKS

from .conftest import REPO, kit

# the roster: names with commas and non-ASCII letters, a student who never submitted ("absent");
# "independent" was graded but is not in it
ROSTER = [
    ["student_id", "name", "login", "canvas_id", "sis_user_id", "sis_login_id", "section", "email", "idnumber"],
    [
        "reference",
        "Lovelace, Ada",
        "lovelace",
        "101",
        "S-001",
        "ada@uni.example",
        "Section A, Mon",
        "ada@uni.example",
        "1001",
    ],
    ["stub", "Núñez, José", "nunez", "102", "S-002", "jose@uni.example", "Section B", "jose@uni.example", "1002"],
    [
        "overwriter",
        "Ørsted, Hans Christian",
        "orsted",
        "103",
        "S-003",
        "hans@uni.example",
        "Section B",
        "hans@uni.example",
        "1003",
    ],
    ["absent", "Zoë Ng", "ng", "104", "S-004", "zoe@uni.example", "Section A, Mon", "zoe@uni.example", "1004"],
]
OUTSIDE = ("independent",)


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def read_back(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def nbgrader_scores(course: Path) -> dict[str, str]:
    """student -> score as nbgrader's own `export` wrote it to grades.csv."""
    with open(course / "grades.csv", newline="") as f:
        return {r["student_id"]: r["score"] for r in csv.DictReader(f) if r["assignment"] == ASSIGNMENT}


def expected_cell(scores: dict[str, str], student: str, missing: str) -> str:
    return f"{float(scores[student]):g}" if student in scores else missing


@pytest.fixture()
def roster(tmp_path) -> Path:
    return write_csv(tmp_path / "roster.csv", ROSTER)


def test_canvas_file_matches_roster_and_grades(plain_course, roster, tmp_path):
    out = tmp_path / "canvas.csv"
    result = kit(
        "export",
        ASSIGNMENT,
        "--to",
        "canvas",
        "--roster",
        str(roster),
        "--assignment-id",
        "4242",
        "--out",
        str(out),
        "--course-dir",
        str(plain_course),
    )
    table = read_back(out)
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{ASSIGNMENT} (4242)"]
    scores = nbgrader_scores(plain_course)
    assert set(scores) == {"reference", "stub", "independent", "overwriter"}
    assert len(table) == len(ROSTER)  # one row per roster student, nobody else
    for row, r in zip(table[1:], ROSTER[1:]):
        sid, name, _, canvas_id, sis_user, sis_login, section = r[:7]
        assert row == [name, canvas_id, sis_user, sis_login, section, expected_cell(scores, sid, "")]
    by_name = {row[0]: row[-1] for row in table[1:]}
    assert by_name["Lovelace, Ada"] == "100" and by_name["Núñez, José"] == "0"
    assert 0 < float(by_name["Ørsted, Hans Christian"]) < 100
    assert by_name["Zoë Ng"] == ""  # no submission: an empty cell, not a 0
    # graded students outside the roster are named on the terminal with their scores
    assert f"{len(OUTSIDE)} graded student(s) are not in the roster" in result.stdout
    for student in OUTSIDE:
        assert f"  {student}: {float(scores[student]):g}" in result.stdout
    assert "without a graded submission get an empty cell: absent" in result.stdout


def test_canvas_missing_as_zero_and_no_assignment_id(plain_course, roster, tmp_path):
    out = tmp_path / "canvas0.csv"
    kit(
        "export",
        ASSIGNMENT,
        "--to",
        "canvas",
        "--roster",
        str(roster),
        "--missing-as-zero",
        "--out",
        str(out),
        "--course-dir",
        str(plain_course),
    )
    table = read_back(out)
    assert table[0][-1] == ASSIGNMENT
    scores = nbgrader_scores(plain_course)
    assert [row[-1] for row in table[1:]] == [expected_cell(scores, r[0], "0") for r in ROSTER[1:]]
    assert table[-1][-1] == "0"


def test_a_new_target_is_one_entry_in_the_table(plain_course, roster, tmp_path, monkeypatch):
    """A made-up LMS (a Blackboard-like file, matched by login, every cell quoted) added as one entry of TARGETS: the
    export command writes its file with the entry's writer, docs/lms.md's generated table lists it, the command
    refuses a roster without its column, and an unknown target is an error. Its name is one no real target will
    have, so a real Blackboard entry added later is never overwritten here."""

    def made_up_rows(listed, scores, options):  # a Blackboard-style header: the column carries the maximum points
        return [["Username", f"{options.assignment} [Total Pts: {options.total:g}]"]] + [
            [e.login, targets.score_cell(e, scores, options.missing_as_zero)] for e in listed.entries
        ]

    def every_cell_quoted(table, path):  # the made-up LMS reads only a file whose every cell is quoted
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f, quoting=csv.QUOTE_ALL).writerows(table)
        return path

    made_up = targets.Target(
        help="a made-up LMS's grade upload",
        needs=lambda options: ("login",),
        needs_why=lambda options: "login, which the made-up LMS matches users by",
        rows=made_up_rows,
        write=every_cell_quoted,
    )
    assert "made-up-lms" not in targets.TARGETS, "the made-up target's name is a real one: rename it"
    monkeypatch.setitem(targets.TARGETS, "made-up-lms", made_up)
    said = []
    out = export_to_lms(
        plain_course, ASSIGNMENT, to="made-up-lms", roster=roster, out=tmp_path / "made-up.csv", echo=said.append
    )
    scores = nbgrader_scores(plain_course)
    with open(plain_course / "grades.csv", newline="") as f:  # nbgrader's own word for the assignment's maximum
        (total,) = {float(r["max_score"]) for r in csv.DictReader(f) if r["assignment"] == ASSIGNMENT}
    header = ["Username", f"{ASSIGNMENT} [Total Pts: {total:g}]"]
    assert read_back(out) == [header] + [[r[2], expected_cell(scores, r[0], "")] for r in ROSTER[1:]]
    assert out.read_text(encoding="utf-8").splitlines()[0] == ",".join(f'"{cell}"' for cell in header)
    assert f"wrote {out}: 3 graded student(s) of 4 in the roster" in said
    assert "| `made-up-lms` | a made-up LMS's grade upload | `login` | refused |" in targets.table()
    no_login = write_csv(tmp_path / "no-login.csv", [["student_id", "email"], ["reference", "ada@uni.example"]])
    with pytest.raises(
        RosterError, match=r"no-login.csv: --to made-up-lms needs a column login, which the made-up LMS"
    ):
        export_to_lms(plain_course, ASSIGNMENT, to="made-up-lms", roster=no_login, out=tmp_path / "x.csv")
    assert not (tmp_path / "x.csv").exists()
    monkeypatch.delitem(targets.TARGETS, "made-up-lms")
    told = f"unknown export target 'made-up-lms': the kit exports to {', '.join(targets.TARGETS)}"
    with pytest.raises(ValueError, match=re.escape(told)):
        export_to_lms(plain_course, ASSIGNMENT, to="made-up-lms", roster=roster, out=tmp_path / "y.csv")


@pytest.mark.parametrize("id_column", ["email", "idnumber"])
def test_moodle_file_matches_roster_and_grades(plain_course, roster, tmp_path, id_column):
    out = tmp_path / f"moodle-{id_column}.csv"
    result = kit(
        "export",
        ASSIGNMENT,
        "--to",
        "moodle",
        "--moodle-id",
        id_column,
        "--roster",
        str(roster),
        "--out",
        str(out),
        "--course-dir",
        str(plain_course),
    )
    table = read_back(out)
    column = ROSTER[0].index(id_column)
    scores = nbgrader_scores(plain_course)
    assert table == [[id_column, ASSIGNMENT]] + [[r[column], expected_cell(scores, r[0], "")] for r in ROSTER[1:]]
    for student in OUTSIDE:
        assert f"  {student}: " in result.stdout


def test_csv_keeps_nbgrader_format(plain_course, tmp_path):
    """nbgrader's columns and values (its own `export` wrote the course's grades.csv), rows sorted by student id."""
    out = tmp_path / "grades.csv"
    kit("export", ASSIGNMENT, "--out", str(out), "--course-dir", str(plain_course))
    (header, *rows), (nb_header, *nb_rows) = read_back(out), read_back(plain_course / "grades.csv")
    assert header == nb_header and sorted(rows) == sorted(nb_rows)
    ids = [row[header.index("student_id")] for row in rows]
    assert ids == sorted(ids) and len(ids) > 2


def test_feedback_zip_names_each_file_after_the_lms_download(plain_course, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(plain_course, course)  # the shared course stays as it is
    submitted = course / "submitted"
    download = tmp_path / "canvas-download.zip"
    lms_names = {}
    with zipfile.ZipFile(download, "w") as z:
        # "stub" sent two of the five notebooks: the pages of the other three carry his LMS name too
        sent = {"reference": NOTEBOOKS, "overwriter": NOTEBOOKS, "stub": NOTEBOOKS[1:3]}
        for student, prefix in (
            ("reference", "lovelace_101_9001"),
            ("overwriter", "orsted_LATE_103_9003"),
            ("stub", "nunez_102_9002"),
        ):
            for nb in sent[student]:
                name = f"{prefix}_{nb}{'-1' if nb == '02_token_embeddings' else ''}.ipynb"
                z.writestr(f"submissions/{name}", (submitted / student / ASSIGNMENT / f"{nb}.ipynb").read_bytes())
                lms_names[(student, nb)] = name
    shutil.rmtree(submitted)
    roster = write_csv(tmp_path / "roster.csv", ROSTER)
    kit("collect", ASSIGNMENT, str(download), "--roster", str(roster), "--course-dir", str(course))
    packed = tmp_path / "feedback-upload.zip"
    result = kit(
        "export",
        ASSIGNMENT,
        "--to",
        "canvas",
        "--roster",
        str(roster),
        "--out",
        str(tmp_path / "c.csv"),
        "--feedback-zip",
        str(packed),
        "--course-dir",
        str(course),
    )
    with zipfile.ZipFile(packed) as z:
        names = set(z.namelist())
        for (student, nb), lms_name in lms_names.items():
            arcname = lms_name[: -len(".ipynb")] + ".html"
            assert z.read(arcname) == (course / "feedback" / student / ASSIGNMENT / f"{nb}.html").read_bytes()
        html = z.read("orsted_LATE_103_9003_02_token_embeddings-1.html").decode()
        assert "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]" in html
        unsent = [nb for nb in NOTEBOOKS if nb not in sent["stub"]]
        for nb in unsent:
            page = (course / "feedback" / "stub" / ASSIGNMENT / f"{nb}.html").read_bytes()
            assert z.read(f"nunez_102_9002_{nb}.html") == page
        # students who did not come from the LMS download are filed under their id and named on the terminal
        for student in OUTSIDE:
            assert {f"{student}/{nb}.html" for nb in NOTEBOOKS} <= names
        assert not any(name.startswith("stub/") for name in names)
        assert len(names) == 4 * len(NOTEBOOKS)
    assert "filed under their student id: independent\n" in result.stdout
    assert f"stub did not send 3 notebook(s) ({', '.join(unsent)})" in result.stdout


def test_bad_rosters_are_refused_with_file_and_row(tmp_path):
    header = "student_id,name,canvas_id,email\n"
    cases = {
        "no-id.csv": ("name,email\nAda,ada@x\n", "a roster needs a 'student_id' column"),
        "empty.csv": (header + "ada,Ada,1,ada@x\n,Ben,2,ben@x\n", "row 3: the student_id is empty"),
        "twice.csv": (
            header + "ada,Ada,1,ada@x\nben,Ben,2,ben@x\nada,Ada B,3,adab@x\n",
            "row 4: student_id 'ada' is already on row 2",
        ),
        "shared-id.csv": (
            header + "ada,Ada,1,ada@x\nben,Ben,1,ben@x\n",
            "row 3: canvas_id '1' also identifies 'ada' (row 2)",
        ),
        "folder.csv": (header + "../ada,Ada,1,ada@x\n", "row 2: student_id '../ada' cannot name a folder"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(RosterError) as e:
            read_roster(path)
        assert str(e.value).startswith(str(path)) and message in str(e.value), name
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes(header.encode() + "ada,Núñez,1,ada@x\n".encode("latin-1"))
    with pytest.raises(RosterError, match="latin1.csv: not UTF-8"):
        read_roster(latin1)
    # each LMS needs the column it matches students by, and a value in it on every row
    thin = tmp_path / "thin.csv"
    thin.write_text("student_id,name,sis_user_id\nada,Ada,S1\n", encoding="utf-8")
    with pytest.raises(
        RosterError,
        match=r"thin.csv: --to canvas needs a column canvas_id .*the roster has name, "
        r"sis_user_id, student_id",
    ):
        rows_for("canvas", read_roster(thin), {"ada": 100.0}, ExportOptions(ASSIGNMENT))
    with pytest.raises(RosterError, match=r"thin.csv: --to moodle needs a column email"):
        rows_for("moodle", read_roster(thin), {"ada": 100.0}, ExportOptions(ASSIGNMENT))
    gap = tmp_path / "gap.csv"
    gap.write_text("student_id,canvas_id,sis_user_id,email\nada,7,S7,ada@x\nben,,S8,\n", encoding="utf-8")
    with pytest.raises(RosterError, match=r"gap.csv, row 3: student 'ben' has no canvas_id"):
        rows_for("canvas", read_roster(gap), {"ada": 100.0}, ExportOptions(ASSIGNMENT))
    with pytest.raises(RosterError, match=r"gap.csv, row 3: student 'ben' has no email"):
        rows_for("moodle", read_roster(gap), {"ada": 100.0}, ExportOptions(ASSIGNMENT))
    # Canvas's own column headers work as roster columns
    canvas_style = tmp_path / "canvas-style.csv"
    canvas_style.write_text(
        'student_id,Student,ID,SIS User ID,SIS Login ID,Section\nada,"Lovelace, Ada",7,S7,ada,A\n', encoding="utf-8"
    )
    (entry,) = read_roster(canvas_style).entries
    assert (entry.name, entry.canvas_id, entry.sis_user_id, entry.sis_login_id, entry.section) == (
        "Lovelace, Ada",
        "7",
        "S7",
        "ada",
        "A",
    )


def test_roster_headers_are_checked_by_name(tmp_path):
    """A misspelt column is refused with the column it was meant to be; other headers are named, not used."""
    typo = tmp_path / "typo.csv"
    typo.write_text("student_id,name,canvasid\nada,Ada,7\n", encoding="utf-8")
    with pytest.raises(
        RosterError,
        match=r"typo.csv: the header 'canvasid' is not a roster column; did you mean "
        r"'canvas_id'\?",
    ):
        read_roster(typo)
    extra = tmp_path / "extra.csv"
    extra.write_text("student_id,canvas_id,Current Score,Integration ID\nada,7,88,x\n", encoding="utf-8")
    roster = read_roster(extra)
    assert roster.unknown == ["Current Score", "Integration ID"] and roster.columns == {"student_id", "canvas_id"}
    assert "column(s) not used: Current Score, Integration ID" in roster.unknown_note()
    assert roster.lookup() == {"ada": "ada", "7": "ada"}


def test_a_roster_column_is_one_field_of_the_entry(tmp_path, monkeypatch):
    """A column is one field of RosterEntry: the roster module with one made-up field added there (and nowhere
    else) reads that column into it and counts it as used; a table naming a column that is no field fails at
    import, not as a silent "not used"."""
    import sys
    import types

    from autograder.classroom.lms import roster as real

    source = Path(real.__file__).read_text(encoding="utf-8")
    field_line = '    idnumber: str = ""\n'
    assert source.count(field_line) == 1 and "made_up_id" not in real.COLUMNS
    made = types.ModuleType("made_up_roster")
    monkeypatch.setitem(sys.modules, "made_up_roster", made)
    added = source.replace(field_line, field_line + '    made_up_id: str = ""\n')
    exec(compile(added, real.__file__, "exec"), made.__dict__)
    assert set(made.COLUMNS) == {*real.COLUMNS, "made_up_id"}
    listed = made.read_roster(write_csv(tmp_path / "r.csv", [["student_id", "Made-Up ID"], ["ada", "bb-7"]]))
    assert listed.entries[0].made_up_id == "bb-7" and not listed.unknown and "made_up_id" in listed.columns
    assert "| `made_up_id` |" in made.table()  # docs/lms.md's generated table lists it (python -m autograder build)
    # a new LMS's id columns are one list, named *_IDS, checked at import with no entry elsewhere
    ids_line = 'MOODLE_IDS = ("email", "idnumber")\n'
    assert source.count(ids_line) == 1
    with_ids = added.replace(ids_line, ids_line + 'MADE_UP_IDS = ("made_up_id",)\n')
    exec(compile(with_ids, real.__file__, "exec"), made.__dict__)
    assert made.MADE_UP_IDS == ("made_up_id",)
    misspelt = source.replace(ids_line, ids_line + 'MADE_UP_IDS = ("made_up_id",)\n')  # no such field
    with pytest.raises(RuntimeError, match=r"MADE_UP_IDS names made_up_id, which is no field of RosterEntry"):
        exec(compile(misspelt, real.__file__, "exec"), made.__dict__)
    monkeypatch.setattr(real, "ALIASES", {**real.ALIASES, "made_up": "made_up_idd"})
    with pytest.raises(RuntimeError, match=r"ALIASES names made_up_idd, which is no field of RosterEntry"):
        real._check_columns()


def test_export_and_collect_refuse_a_bad_roster_on_the_command_line(tmp_path):
    shutil.copytree(REPO / "source" / ASSIGNMENT, tmp_path / "source" / ASSIGNMENT)  # a course to collect into
    bad = tmp_path / "roster.csv"
    bad.write_text("student_id,login\nada,lovelace\nada,ada2\n", encoding="utf-8")
    for args in (["export", ASSIGNMENT, "--to", "canvas"], ["collect", ASSIGNMENT, str(tmp_path)]):
        result = kit(*args, "--roster", str(bad), "--course-dir", str(tmp_path), check=False)
        assert result.returncode == 2, result.stderr
        assert f"{bad}, row 3: student_id 'ada' is already on row 2" in result.stderr
    result = kit("export", ASSIGNMENT, "--to", "moodle", "--course-dir", str(tmp_path), check=False)
    assert result.returncode == 2 and "--to moodle needs --roster" in result.stderr
    no_canvas_ids = write_csv(tmp_path / "sis-only.csv", [["student_id", "sis_user_id"], ["ada", "S1"]])
    result = kit(
        "export",
        ASSIGNMENT,
        "--to",
        "canvas",
        "--roster",
        str(no_canvas_ids),
        "--course-dir",
        str(tmp_path),
        check=False,
    )
    assert result.returncode == 2 and f"{no_canvas_ids}: --to canvas needs a column canvas_id" in result.stderr
    assert not (tmp_path / f"{ASSIGNMENT}-canvas.csv").exists()
