"""The README's regrade example, run as written: a test's points changed the documented way, then regraded.

In a copy of the course, lesson 3's ``test-table-even`` gets 7 points instead of 5 in the ``# %%`` header of
``assignments/embeddings/03_sinusoidal.py`` (README "For instructors", docs/authors.md), ``autograder
build`` writes source/ and release/ again, and plain ``grade`` (no flag: the points are a grading input)
regrades a class that was handed the notebooks before the change; the revert, built and graded the same way,
regrades it again, and grades.csv, the Canvas file and the report agree on each total (102, then 100).
The grade run, the class report and ``diff`` give each side's total, say the point change once for the class
(not once per student row), and the new points are applied.
A class of two who handed in lesson 3 only (the reference, which the new points change, and a stub, which earns
nothing either way: each row and the class mean are still checked), kept short to grade, by one worker (a second
would cost its start-up, about 5 s of CPU a run, for two notebooks).
"""

from __future__ import annotations

import csv
import html
import re
import shutil

from autograder.course import ASSIGNMENT
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import REPO, kit, scratch_course

HEADER = '"grade_id": "test-table-even", "locked": true, "points": 5,'
CLASS = {"s01-ada": "reference", "s02-ben": "stub"}
CLASS_NOTE = (
    "03_sinusoidal: test-table-even: 5 -> 7 points in the assignment; the 2 submissions handed out before "
    "the change carry 5 points, graded on 7"
)


def files_agree(course, db_url) -> dict[str, str]:
    """student -> score/max, the same in grades.csv, the Canvas file and the class report (asserted here), and the
    per-test CSV's maxima of lesson 3 on the same total (its 20 points, and the change)."""
    with open(course / "grades.csv", newline="") as f:
        grades = {r["student_id"]: f"{float(r['score']):g}/{float(r['max_score']):g}" for r in csv.DictReader(f)}
    with open(course / "reports" / ASSIGNMENT / "tests.csv", newline="") as f:
        tests = list(csv.DictReader(f))
    for student, shown in grades.items():
        lesson_max = sum(float(t["max"]) for t in tests if t["student"] == student and t["notebook"] == "03_sinusoidal")
        assert lesson_max == 20 + float(shown.split("/")[1]) - 100, (student, shown, lesson_max)
    (course / "roster.csv").write_text(
        "student_id,canvas_id,name\n" + "".join(f"{s},{100 + i},{s}\n" for i, s in enumerate(CLASS))
    )
    kit(
        "export",
        ASSIGNMENT,
        "--course-dir",
        str(course),
        "--db-url",
        db_url,
        "--to",
        "canvas",
        "--roster",
        str(course / "roster.csv"),
    )
    with open(course / f"{ASSIGNMENT}-canvas.csv", newline="") as f:
        canvas = {row[0]: row[-1] for row in list(csv.reader(f))[1:]}
    report = html.unescape((course / "reports" / ASSIGNMENT / "index.html").read_text())
    for student, shown in grades.items():
        assert canvas[student] == shown.split("/")[0], (canvas, grades)
        assert f"<td>{student}</td><td>graded</td><td>{shown}</td>" in report, (student, shown)
        score, total = (float(x) for x in shown.split("/"))
        assert score <= total
    return grades


def test_a_point_change_made_as_the_readme_says_is_built_regraded_and_said_once(tmp_path):
    course = tmp_path / "course"
    db_url = scratch_course(course)
    shutil.copytree(REPO / "assignments", course / "assignments")
    shutil.copytree(REPO / "release", course / "release")
    for student, persona in CLASS.items():  # handed out before the change: the notebooks carry 5 points
        write_submission(course, student, {"03_sinusoidal": persona_notebooks(persona)["03_sinusoidal"]})
    grade = ("grade", ASSIGNMENT, "--course-dir", str(course), "--db-url", db_url, "--jobs", "1")
    kit(*grade)

    authored = course / "assignments" / ASSIGNMENT / "03_sinusoidal.py"
    assert authored.read_text().count(HEADER) == 1
    authored.write_text(authored.read_text().replace(HEADER, HEADER.replace('"points": 5', '"points": 7')))
    built = kit("build", "--repo", str(course))
    assert "note: the points add up to 102 (the usual total is 100); scores are out of 102" in built.stdout

    out = kit(*grade).stdout
    said = [line for line in out.splitlines() if line.startswith("regrading ")]
    assert said == [
        "regrading 2 unchanged submission(s): changed since their last grading: source: 03_sinusoidal.ipynb "
        "(graded cells)"
    ], out
    assert "class mean " in out and re.search(r"class mean [\d.]+/100 -> [\d.]+/102", out), out
    assert out.count("test-table-even") and out.count(CLASS_NOTE) == 1, out  # said once, for the class
    rows = [line for line in out.splitlines() if line.startswith(tuple(CLASS)) and "/102" in line]
    assert len(rows) == len(CLASS) and not any("test-table-even" in r or "handed out" in r for r in rows), rows
    assert "s01-ada: 20/100 -> 22/102 (+2)" in out  # the new points are applied
    report = html.unescape((course / "reports" / ASSIGNMENT / "index.html").read_text())
    assert report.count(CLASS_NOTE) == 1, "the class report repeats the point change per student"

    diff = kit("diff", ASSIGNMENT, "--from", "1", "--to", "2", "--course-dir", str(course), "--db-url", db_url).stdout
    assert re.search(r"class mean [\d.]+/100 -> [\d.]+/102", diff) and CLASS_NOTE in diff, diff
    ada = diff.split("s01-ada:", 1)[1]
    assert re.search(r"03_sinusoidal/test-table-even\s+5 -> 7", ada), diff

    runs = kit("runs", ASSIGNMENT, "--course-dir", str(course), "--db-url", db_url).stdout
    assert re.search(r"^\s+1 .* [\d.]+/100 ", runs, re.M) and re.search(r"^\s+2 .* [\d.]+/102 ", runs, re.M), runs

    assert files_agree(course, db_url) == {"s01-ada": "22/102", "s02-ben": "0/102"}

    # the revert, made the same way: every student regraded again, every file back on 100
    authored.write_text(authored.read_text().replace(HEADER.replace('"points": 5', '"points": 7'), HEADER))
    kit("build", "--repo", str(course))
    out = kit(*grade).stdout
    assert "regrading 2 unchanged submission(s)" in out and "s01-ada: 22/102 -> 20/100 (-2)" in out, out
    assert files_agree(course, db_url) == {"s01-ada": "20/100", "s02-ben": "0/100"}
    report = html.unescape((course / "reports" / ASSIGNMENT / "index.html").read_text())
    assert "5 -> 7 points" not in report and "7 -> 5 points" not in report, "the report still tells of a point change"
    runs = kit("runs", ASSIGNMENT, "--course-dir", str(course), "--db-url", db_url).stdout
    assert re.search(r"^\s+3 .* 10\.00/100 ", runs, re.M) and "/100/102" not in runs, runs

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    # what the README tells the instructor to do, and the note it shows for the class
    assert "`test-table-even` 7 points instead of 5" in readme
    assert '`"points"` in the `# %%` header of `assignments/embeddings/03_sinusoidal.py`' in readme
    shown = re.search(r"^  03_sinusoidal: test-table-even: 5 -> 7 points in the assignment; .*$", readme, re.M)
    assert shown, "the README's regrade example shows no class-level line for the point change"
    assert re.sub(r"the \d+ submissions", "the 2 submissions", shown.group(0).strip()).startswith(CLASS_NOTE)
