"""`make demo`: the whole kit on the built-in class, in a scratch course.

The demo grades here the students of its class that this test reads (full marks, an untouched stub, an
independent solution, a half-finished one, a misconception, a hang, a kernel death, a broken file): the
class's other students each hand in a catalogued mistake or two, which test_mutants and test_bulk_grading
grade, and `.ci/run` runs `make demo` on the whole class. That whole class's LMS download is still built here.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
import zipfile

from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.devtools.demo import CLASS, build_class_zip

from .conftest import ENV, REPO

GRADED = ("s01-ada", "s02-ben", "s03-cleo", "s04-dev", "s05-eli", "s13-max", "s14-nia", "s15-oz")


def demo(workdir, students) -> subprocess.CompletedProcess:
    """`python -m autograder demo --workdir WORKDIR`, its class cut to ``students`` (in the class's order)."""
    program = (
        "import sys\n"
        "from autograder.devtools import demo\n"
        f"demo.CLASS = {{s: p for s, p in demo.CLASS.items() if s in {list(students)!r}}}\n"
        "from autograder.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program, "demo", "--workdir", str(workdir)],
        cwd=REPO,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0, f"demo failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def test_the_whole_class_download_is_built(tmp_path):
    zip_path, roster = build_class_zip(tmp_path / "class-download.zip")
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
    assert len(names) == len(CLASS) * len(NOTEBOOKS) + 1 and "submissions/readme_from_lms.txt" in names
    for login, _ in CLASS.values():
        assert sum(name.startswith(f"submissions/{login}_") for name in names) == len(NOTEBOOKS), login
    with open(roster, newline="") as f:
        assert [row["student_id"] for row in csv.DictReader(f)] == list(CLASS)


def test_demo_collects_grades_and_reports_the_built_in_class(tmp_path):
    assert set(GRADED) <= set(CLASS)
    result = demo(tmp_path, GRADED)
    out = result.stdout
    course = tmp_path / "course"
    assert "collected " in out and "readme_from_lms.txt: not a notebook (.ipynb)" in out
    for student in GRADED:
        assert f"\n{student} " in out, f"{student} missing from the class table"
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert set(scores) == set(GRADED)
    assert scores["s01-ada"] == 100 and scores["s03-cleo"] == 100 and scores["s02-ben"] == 0
    assert 0 < scores["s04-dev"] < 100
    assert 0 < scores["s05-eli"] < 100 and 0 < scores["s13-max"] < 100 and 0 < scores["s14-nia"] < 100
    assert "timed out in cell" in out and "kernel died in cell" in out and "invalid JSON" in out
    assert "scatter-overwrite" in out and "What the class got wrong" in out
    assert (course / "reports" / ASSIGNMENT / "index.html").exists()
    assert "\r" not in out  # no progress bar when the output is not a terminal
    assert not (tmp_path.parent / "gradebook.db").exists()
    # the export it announces is written: Canvas's gradebook file and the feedback zip, one row per student
    with open(course / f"{ASSIGNMENT}-canvas.csv", newline="") as f:
        canvas = list(csv.DictReader(f))
    assert [row["Student"] for row in canvas] == list(GRADED)
    assert float(next(row for row in canvas if row["Student"] == "s01-ada")[ASSIGNMENT]) == 100
    assert (course / "feedback-upload.zip").stat().st_size > 0 and "feedback file(s) named as in the LMS" in out
    # and it says where the scratch course stays and how large it is
    assert re.search(rf"The demo course stays for you to look at: {re.escape(str(tmp_path))} \(\d+ MiB\)", out), out[
        -500:
    ]
