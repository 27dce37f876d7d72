"""The canary graded beside the first students (issue 45): nothing of a student is recorded before it passed, and
a failed canary leaves exactly what grading the canary alone, before any student, leaves."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from autograder.course import ASSIGNMENT, Assignment, Course
from autograder.devtools.personas import write_submission

from .conftest import ENV, REPO, make_class, new_course, per_test, reference_submission, scores, stub_submission


def run_grade(course: Path, *, alone: bool, jobs: int = 2, check: bool = True, timings: Path | None = None, seed=None):
    """`grade` of ``course`` as a user runs it, its canary never remembered; ``alone``: graded before any student
    (the course sets ``c.KitConfig.canary_beside = False``; beside the first students is the default);
    ``seed``: the hidden checks' (AUTOGRADER_SEED: else fresh at every grading, and so are the inputs they name)."""
    env = {k: v for k, v in ENV.items() if k not in ("AUTOGRADER_TIMINGS", "AUTOGRADER_SEED")}
    if seed is not None:
        env["AUTOGRADER_SEED"] = str(seed)
    env["AUTOGRADER_CANARY_CACHE"] = str(course.parent / f"canary-{course.name}")
    if alone:
        with open(course / "nbgrader_config.py", "a") as f:
            f.write("\nc.KitConfig.canary_beside = False\n")
    if timings is not None:
        env["AUTOGRADER_TIMINGS"] = str(timings)
    cmd = [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", str(jobs)]
    result = subprocess.run(cmd, cwd=course, env=env, capture_output=True, text=True, timeout=900)
    if check and result.returncode != 0:
        raise AssertionError(f"grade failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def files(course: Path) -> dict[str, str]:
    """Every file and folder of the course (the gradebook's backups and the kit's logs by name only, since they
    carry times, and the course's config, which says whether the canary goes beside), with a hash of the others'
    bytes."""
    import hashlib

    found = {}
    for path in sorted(course.rglob("*")):
        name = re.sub(r"\d{8}T\d{6}-\d+", "<time>", str(path.relative_to(course)))  # a backup's name
        if path.is_dir():
            found[name + "/"] = ""
        elif path.name in ("gradebook.db", "nbgrader_config.py") or ".kit" in path.parts or path.suffix == ".log":
            found[name] = "(present)"
        else:
            found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def gradebook_rows(course: Path) -> dict[str, list]:
    """Every row of every table of the course's gradebook (ids and times left out, the run history's start and end
    too: they differ between runs)."""
    with closing(sqlite3.connect(course / "gradebook.db")) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        dump = {}
        for table in tables:
            cursor = db.execute(f"select * from {table}")  # noqa: S608 - the gradebook's own table names
            columns = [c[0] for c in cursor.description]
            keep = [
                i
                for i, c in enumerate(columns)
                if c not in ("id", "started", "finished") and not c.endswith(("_id", "timestamp", "time"))
            ]
            dump[table] = sorted(repr([row[i] for i in keep]) for row in cursor)
    return dump


def shadowed_course(root: Path) -> Path:
    """A course holding its own copy of the kit, which `python -m autograder` run there imports, while the kernels'
    Python does not find it: the canary fails (tests/test_canary.py's first test)."""
    course = new_course(root)
    shutil.copytree(REPO / "autograder", course / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    write_submission(course, "ref", reference_submission())
    write_submission(course, "stub", stub_submission())
    return course


def test_a_shadowed_kit_records_nothing_of_the_students_graded_beside_its_canary(tmp_path):
    """The students graded beside a canary that fails are taken back exactly: the course holds what the same run
    leaves when the canary is graded alone, before any student (no gradebook row of theirs, no folder, no record),
    and the run says whose grading it took back, so the test knows a student was graded beside it."""
    beside = shadowed_course(tmp_path / "beside")
    alone = shadowed_course(tmp_path / "alone")
    before_files, before_rows = files(beside), gradebook_rows(beside)
    graded = run_grade(beside, alone=False, check=False)
    reference = run_grade(alone, alone=True, check=False)
    for result in (graded, reference):
        assert result.returncode != 0, result.stdout[-2000:]
        assert "no student was graded: the canary failed" in result.stderr, result.stderr[-2000:]
        assert "graded ref" not in result.stdout and "graded stub" not in result.stdout, result.stdout[-3000:]
    assert "taken back: the grading of ref, stub, begun beside the canary" in graded.stdout, graded.stdout[-3000:]
    assert "taken back" not in reference.stdout
    # the students' grading wrote, and was undone: nothing of it is left, and nothing else was removed
    assert gradebook_rows(beside) == gradebook_rows(alone)
    assert gradebook_rows(beside)["student"] == before_rows["student"] == []
    assert files(beside) == files(alone)
    assert set(before_files) <= set(files(beside))
    assert not Course(beside).step_root("autograded").exists()
    assert not Course(beside).step_root("feedback").exists()
    assert not (beside / "grades.csv").exists()
    assert not list((beside / ".kit").glob(f"{ASSIGNMENT}/*.json"))


def test_a_passing_canary_leaves_the_same_grades_as_the_canary_graded_alone(tmp_path):
    """The same class graded with the canary beside the first student and with it alone, before any: the same
    scores, test by test, the same gradebook rows, the same files; and in the first run the student's grading did
    begin before the canary's ended (the timings say so)."""
    students = {"ref": "reference", "stub": "stub"}
    beside, alone = tmp_path / "beside", tmp_path / "alone"
    make_class(beside, students)
    make_class(alone, students)
    timings = tmp_path / "timings.jsonl"
    run_grade(beside, alone=False, timings=timings, seed=7)
    run_grade(alone, alone=True, seed=7)
    assert scores(beside) == scores(alone) == {"ref": 100.0, "stub": 0.0}
    assert per_test(beside) == per_test(alone)
    assert gradebook_rows(beside) == gradebook_rows(alone)
    assert {k for k in files(beside) if "feedback" in k or "autograded" in k} == {
        k for k in files(alone) if "feedback" in k or "autograded" in k
    }
    phases = [json.loads(line) for line in timings.read_text().splitlines()]
    canary_end = max(p["end"] for p in phases if p["name"].startswith("kit-canary: "))
    first_student = min(p["start"] for p in phases if p["name"] in ("ref: autograde", "stub: autograde"))
    assert first_student < canary_end, "no student was graded beside the canary"


def test_only_students_nothing_was_recorded_of_are_graded_beside_the_canary_and_undone_exactly(tmp_path):
    """In-process, with real nbgrader and a real kernel: a student with an earlier grade is not graded beside the
    canary (undoing their grading could not give back what it replaced); a new one is, and undoing their grading
    removes exactly what it wrote: the other student's grade, rows and files stay, the gradebook is as before."""
    from autograder.classroom.run.beside import undo, untouched
    from autograder.grading.grade import grade_student

    db_url = make_class(tmp_path / "course", {"old": "stub", "new": "reference"})
    course = tmp_path / "course"
    assignment = Assignment(Course(course), ASSIGNMENT)
    assert grade_student(assignment, "old", db_url).score == 0.0
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        gb.add_student("roster-only")  # on the roster, never graded: their row stays
    write_submission(course, "roster-only", stub_submission())
    before_files, before_rows = files(course), gradebook_rows(course)
    found = untouched(assignment, ["old", "new", "roster-only"], db_url)
    assert set(found) == {"new", "roster-only"}
    assert found["roster-only"].in_gradebook and not found["new"].in_gradebook
    assert grade_student(assignment, "new", db_url).score == 100.0
    assert gradebook_rows(course) != before_rows and files(course) != before_files
    undo(assignment, db_url, found["new"])
    assert gradebook_rows(course) == before_rows
    assert files(course) == before_files
