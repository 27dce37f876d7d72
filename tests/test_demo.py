"""`make demo`: the whole kit on the built-in class, in a scratch course."""

from __future__ import annotations

import csv
import re

from autograder.course import ASSIGNMENT
from autograder.devtools.demo import CLASS

from .conftest import kit


def test_demo_collects_grades_and_reports_the_built_in_class(tmp_path):
    result = kit("demo", "--workdir", str(tmp_path), timeout=1200)
    out = result.stdout
    course = tmp_path / "course"
    assert "collected " in out and "readme_from_lms.txt: not a notebook (.ipynb)" in out
    for student in CLASS:
        assert f"\n{student} " in out, f"{student} missing from the class table"
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert set(scores) == set(CLASS)
    assert scores["s01-ada"] == 100 and scores["s03-cleo"] == 100 and scores["s02-ben"] == 0
    assert 0 < scores["s05-eli"] < 100 and 0 < scores["s13-max"] < 100 and 0 < scores["s14-nia"] < 100
    assert "timed out in cell" in out and "kernel died in cell" in out and "invalid JSON" in out
    assert "scatter-overwrite" in out and "What the class got wrong" in out
    assert (course / "reports" / ASSIGNMENT / "index.html").exists()
    assert "\r" not in out  # no progress bar when the output is not a terminal
    assert not (tmp_path.parent / "gradebook.db").exists()
    # the export it announces is written: Canvas's gradebook file and the feedback zip, one row per student
    with open(course / f"{ASSIGNMENT}-canvas.csv", newline="") as f:
        canvas = list(csv.DictReader(f))
    assert [row["Student"] for row in canvas] == list(CLASS)
    assert float(next(row for row in canvas if row["Student"] == "s01-ada")[ASSIGNMENT]) == 100
    assert (course / "feedback-upload.zip").stat().st_size > 0 and "feedback file(s) named as in the LMS" in out
    # and it says where the scratch course stays and how large it is
    assert re.search(rf"The demo course stays for you to look at: {re.escape(str(tmp_path))} \(\d+ MiB\)", out), out[
        -500:
    ]
