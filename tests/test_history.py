"""Every grade run kept: a regrade previewed with --dry-run, recorded, compared, exported by what changed.

A class of three, kept short to grade: ada (lesson 1 only, the reference), ben (lesson 3 only, sines and
cosines swapped) and cy (no notebook at all: graded 0 without a kernel), by one worker: a second would
cost its start-up (about 5 s of CPU a run) for two notebooks, and the run's history is written by the
grading process itself (two workers writing one gradebook at once is test_postgres_gradebook's and
test_bulk_grading's).  The commands that only read the history run in this process; grading runs as the
user runs it.
The instructor then gives lesson 1's test-softmax-values 5 points instead of 3 (only ada passes it)
and ben resubmits lesson 3 fixed; cy changes in nothing.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import nbformat
import pytest

from autograder.classroom.history.changes import compare_grades, diff_rows
from autograder.classroom.history.history import Grade, History
from autograder.course import ASSIGNMENT, sqlite_url
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import grade_until_killed, kit, scratch_course

CHANGED_TEST = ("01_why_position", "test-softmax-values")


def small_class(course: Path) -> str:
    db_url = scratch_course(course)
    write_submission(course, "ada", {"01_why_position": persona_notebooks("reference")["01_why_position"]})
    write_submission(course, "ben", {"03_sinusoidal": persona_notebooks(["sin-cos-swap"])["03_sinusoidal"]})
    write_submission(course, "cy", {})
    return db_url


def change_points_and_ben(course: Path, points: int = 5) -> None:
    path = course / "source" / ASSIGNMENT / f"{CHANGED_TEST[0]}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == CHANGED_TEST[1]]
    assert len(cells) == 1 and cells[0].metadata.nbgrader.points == 3
    cells[0].metadata.nbgrader.points = points
    nbformat.write(nb, str(path))
    write_submission(course, "ben", {"03_sinusoidal": persona_notebooks("reference")["03_sinusoidal"]})


def files(course: Path) -> dict[str, bytes]:
    return {str(p.relative_to(course)): p.read_bytes() for p in sorted(course.rglob("*")) if p.is_file()}


def tables(db_url: str) -> dict[str, list[tuple]]:
    """Every row of every table of the gradebook (nbgrader's and the kit's), in a fixed order."""
    from sqlalchemy import MetaData, create_engine, select

    engine = create_engine(db_url)
    try:
        meta = MetaData()
        meta.reflect(engine)
        with engine.connect() as db:
            return {
                name: sorted(tuple(map(str, row)) for row in db.execute(select(table)))
                for name, table in meta.tables.items()
            }
    finally:
        engine.dispose()


def run_cli(capsys, *args: str, code: int = 0) -> str:
    """``python -m autograder ARGS`` in this process; its stdout (its stderr when it fails)."""
    from autograder.cli import main

    capsys.readouterr()
    assert main(list(args)) == code
    captured = capsys.readouterr()
    return captured.out if code == 0 else captured.err


def csv_rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def change_block(stdout: str) -> list[str]:
    """The per-student lines of a diff table (after its header line), up to the next blank line."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if " student(s) changed; class mean " in line)
    block = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        block.append(line)
    return block


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_regrade_previewed_recorded_compared_and_exported(tmp_path, request, capsys, backend):
    course = tmp_path / "course"
    db_url = small_class(course)
    if backend == "postgresql":
        db_url = request.getfixturevalue("postgres")
    grade_cmd = ("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "1", "--db-url", db_url)
    where = ("--course-dir", str(course), "--db-url", db_url)

    first = kit(*grade_cmd)
    assert "Changed since the last run" not in first.stdout  # nobody was graded before

    change_points_and_ben(course)
    files_before, tables_before = files(course), tables(db_url)
    dry = kit(*grade_cmd, "--dry-run", "--force")
    assert files(course) == files_before, "a dry run wrote into the course"
    assert tables(db_url) == tables_before, "a dry run wrote into the gradebook"
    predicted = change_block(dry.stdout)
    assert [line.split(":")[0] for line in predicted if not line.startswith(" ")] == ["ada", "ben"]
    assert any(line.split() == ["01_why_position/test-softmax-values", "3", "->", "5"] for line in predicted)

    second = kit(*grade_cmd, "--force")
    assert "3 student(s) regraded: 2 score(s) up, 0 down, 1 the same" in second.stdout
    assert "Changed since the last run" in (course / "reports" / ASSIGNMENT / "index.html").read_text()

    runs = csv_rows(run_cli(capsys, "runs", ASSIGNMENT, "--csv", *where))
    assert [(r["run"], r["students"]) for r in runs] == [("1", "3"), ("2", "3")]
    assert all(r["finished"] != "unfinished" for r in runs) and runs[0]["started"] <= runs[1]["started"]
    assert float(runs[1]["mean"]) > float(runs[0]["mean"])
    assert "source: 01_why_position.ipynb" in run_cli(capsys, "runs", ASSIGNMENT, *where)

    # the dry run said exactly what the run then did
    assert change_block(run_cli(capsys, "diff", ASSIGNMENT, *where)) == predicted
    rows = csv_rows(run_cli(capsys, "diff", ASSIGNMENT, "--csv", *where))
    assert {r["student"] for r in rows} == {"ada", "ben"}
    assert [r for r in rows if r["student"] == "ada"] == [
        {"student": "ada", "notebook": "01_why_position", "test": "test-softmax-values", "before": "3", "after": "5"}
    ]
    ben = [r for r in rows if r["student"] == "ben"]
    assert ben and all(r["notebook"] == "03_sinusoidal" and float(r["before"]) < float(r["after"]) for r in ben)

    run_cli(
        capsys,
        "export",
        ASSIGNMENT,
        "--to",
        "csv",
        "--changed-since",
        "1",
        "--out",
        str(tmp_path / "changed.csv"),
        *where,
    )
    with open(tmp_path / "changed.csv", newline="") as f:
        assert sorted(r["student_id"] for r in csv.DictReader(f)) == ["ada", "ben"]
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,canvas_id\nada,101\nben,102\ncy,103\n")
    run_cli(
        capsys,
        "export",
        ASSIGNMENT,
        "--to",
        "canvas",
        "--roster",
        str(roster),
        "--changed-since",
        "1",
        "--out",
        str(tmp_path / "canvas.csv"),
        *where,
    )
    with open(tmp_path / "canvas.csv", newline="") as f:
        assert [row[1] for row in list(csv.reader(f))[1:]] == ["101", "102"]
    assert run_cli(
        capsys, "export", ASSIGNMENT, "--changed-since", "2", "--out", str(tmp_path / "none.csv"), *where
    ).startswith("0 student(s) whose score changed since run 2")

    # the first run's grades are still there, though nbgrader's tables hold the new ones
    with History(db_url) as history:
        assert history.grades_as_of(ASSIGNMENT, 1)["ada"].tests[CHANGED_TEST][0] == 3
        assert history.grades_as_of(ASSIGNMENT, 2)["ada"].tests[CHANGED_TEST][0] == 5
    back = csv_rows(
        run_cli(capsys, "diff", ASSIGNMENT, "--from", "1", "--to", "2", "--student", "ada", "--csv", *where)
    )
    assert [(r["before"], r["after"]) for r in back] == [("3", "5")]
    missing = run_cli(capsys, "diff", ASSIGNMENT, "--from", "7", *where, code=2)
    assert "no run 7" in missing and "recorded runs: 1, 2" in missing


def test_killed_run_is_unfinished_and_the_next_completes_it(tmp_path, capsys):
    """On SQLite only. What the kill exercises is the kit's side: a run row written before any student and
    finished only at the end, each student's record written in one transaction, and the next run reading
    which students are recorded. That is the same SQLAlchemy code on both backends, and each backend's
    transaction keeps a killed writer's half out; what differs between the backends (their dialects, a
    server reached over a socket, the dry run leaving their tables alone) the regrade test above shows on both."""
    course = tmp_path / "course"
    db_url = small_class(course)
    graded = grade_until_killed(course, 1)  # killed mid-class, one student in
    assert len(graded) == 1 and graded[0] in ("ada", "ben", "cy")
    runs = csv_rows(run_cli(capsys, "runs", ASSIGNMENT, "--csv", "--course-dir", str(course)))
    assert [(r["run"], r["finished"], r["students"]) for r in runs] == [("1", "unfinished", "1")]

    again = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "1")
    assert "skipping 1 submission(s)" in again.stdout
    runs = csv_rows(run_cli(capsys, "runs", ASSIGNMENT, "--csv", "--course-dir", str(course)))
    assert [(r["run"], r["finished"] == "unfinished", r["students"]) for r in runs] == [
        ("1", True, "1"),
        ("2", False, "2"),
    ]
    from nbgrader.api import Gradebook

    recorded = tables(db_url)
    students = [row[1] for row in recorded["kit_run_students"]]
    assert sorted(students) == ["ada", "ben", "cy"]  # each student once: no duplicate, none lost
    with Gradebook(db_url) as gb:
        for s in gb.assignment_submissions(ASSIGNMENT):  # each student whole: every test of their grade
            tests = [row for row in recorded["kit_run_tests"] if row[1] == s.student.id]
            assert len(tests) == sum(len(nb.grades) for nb in s.notebooks) > 0
    with History(db_url) as history:
        assert history.grades_as_of(ASSIGNMENT, 2).keys() == {"ada", "ben", "cy"}


def grade(student: str, run_id: int, score: float, tests: dict, status: str = "graded") -> Grade:
    return Grade(student, run_id, status, score, 10.0, "", {k: (v, 5.0, None) for k, v in tests.items()})


def test_comparison_names_changed_tests_newcomers_and_failures_only():
    before = {
        "ann": grade("ann", 1, 10, {("nb", "a"): 5, ("nb", "b"): 5}),
        "bob": grade("bob", 1, 5, {("nb", "a"): 5, ("nb", "b"): 0}),
        "cat": grade("cat", 1, 5, {("nb", "a"): 5}),
    }
    after = {
        "ann": grade("ann", 2, 10, {("nb", "a"): 5, ("nb", "b"): 5}),
        "bob": grade("bob", 2, 10, {("nb", "a"): 5, ("nb", "b"): 5}),
        "cat": grade("cat", 2, 0, {}, status="failed"),
        "dan": grade("dan", 2, 5, {("nb", "a"): 5}),
    }
    comparison = compare_grades(before, after)
    assert comparison.changed == ["bob", "cat", "dan"]
    assert diff_rows(comparison) == [
        ["bob", "nb", "b", "0", "5"],
        ["cat", "nb", "a", "5", ""],
        ["dan", "nb", "a", "", "5"],
    ]
    assert [c.delta for c in comparison.students] == [5, -5, 5]
    assert [c.student for c in comparison.changed_grades] == ["bob", "cat"]  # dan is new, not changed


def test_runs_of_a_gradebook_without_history_say_how_to_get_one(tmp_path, capsys):
    course = tmp_path / "course"
    scratch_course(course)
    assert "no recorded grade runs of 'embeddings'" in run_cli(
        capsys, "runs", ASSIGNMENT, "--course-dir", str(course), code=2
    )
    with History(sqlite_url(course / "gradebook.db")) as history:
        assert not history.exists()  # reading never creates the kit's tables


def test_a_class_mean_out_of_a_new_total_says_both_totals():
    """After a point change (100 -> 102) the summary's means are not read as one scale."""
    from autograder.classroom.history.changes import class_mean, format_diff, format_summary, off_total, out_of

    def grade(student, score, total, run=1):
        return Grade(student, run, "graded", score, total, tests={("03_sinusoidal", "test-table-even"): (5, 5, None)})

    before = {"ada": grade("ada", 100, 100), "eli": grade("eli", 44, 100)}
    after = {"ada": grade("ada", 102, 102, 2), "eli": grade("eli", 46, 102, 2)}
    comparison = compare_grades(before, after)
    assert "class mean 72.0/100 -> 74.0/102" in format_summary(comparison)
    assert "class mean 72.0/100 -> 74.0/102" in format_diff(comparison)
    assert "class mean 72.0 -> 73.0" in format_summary(compare_grades(before, {**before, "eli": grade("eli", 46, 100)}))
    # a class on two totals (one student regraded on the new points) is on its latest total, never a mixed scale:
    # its mean is taken over the students on that total only, the other counted apart
    mixed = {**before, **{"eli": after["eli"]}}
    assert (out_of(before), out_of(after), out_of(mixed)) == ("100", "102", "102")
    assert class_mean(mixed) == 46 and off_total(mixed) == 1
