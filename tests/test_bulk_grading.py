"""Bulk grading with the kit's `grade` and `collect` commands, as an instructor runs them."""

from __future__ import annotations

import zipfile

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.classroom import report as report_module
from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import ENV, grade_until_killed, graded_test_cells, kit, make_class, per_test, scores, scratch_course

CLASS = {
    "ada": "reference",
    "ben": "stub",
    "eli": ["scatter-overwrite"],
    "fay": ["sin-cos-swap", "freeze-ignored"],
    "oz": "broken-file",
    "pia": ["positions-by-token"],
}


@pytest.fixture(scope="module")
def graded_two_ways(tmp_path_factory):
    """The class graded serially and by two workers. The serial run is killed once, mid-class, and run
    again (test_killed_run_resumes_and_grades_everyone_once reads it): what it resumes must still be
    what the parallel run gives."""
    one, two = tmp_path_factory.mktemp("jobs1") / "course", tmp_path_factory.mktemp("jobs2") / "course"
    make_class(one, CLASS)
    make_class(two, CLASS)
    killed = grade_until_killed(one, 1)  # killed mid-batch, one student in, the next in flight
    r1 = kit("grade", ASSIGNMENT, "--course-dir", str(one), "--jobs", "1")
    r2 = kit("grade", ASSIGNMENT, "--course-dir", str(two), "--jobs", "2")
    return one, two, r1, r2, killed


def test_parallel_grading_gives_the_same_scores_as_serial(graded_two_ways):
    one, two, _, _, _ = graded_two_ways
    assert scores(one) == scores(two)
    s = scores(two)
    assert s["ada"] == 100 and s["ben"] == 0 and 0 < s["eli"] < 100 and 0 < s["fay"] < 100
    t1 = {(r["student"], r["notebook"], r["test"]): (r["points"], r["diagnostic"]) for r in per_test(one)}
    t2 = {(r["student"], r["notebook"], r["test"]): (r["points"], r["diagnostic"]) for r in per_test(two)}
    assert t1 == t2


def test_per_test_csv_names_the_misconceptions(graded_two_ways):
    _, course, _, _, _ = graded_two_ways
    rows = per_test(course)
    hit = {(r["student"], r["diagnostic"]) for r in rows if r["diagnostic"]}
    assert ("eli", "scatter-overwrite") in hit
    assert ("fay", "sin-cos-swap") in hit and ("fay", "freeze-ignored") in hit
    assert ("pia", "positions-by-token") in hit
    assert {r["diagnostic"] for r in rows if r["student"] == "ada"} == {""}
    assert len([r for r in rows if r["student"] == "ada"]) == graded_test_cells()  # every test cell, once


def test_broken_notebook_is_recorded_with_its_reason_and_the_rest_graded(graded_two_ways):
    _, course, _, result, _ = graded_two_ways
    assert "04_learned_positions.ipynb: not a notebook: invalid JSON at line" in result.stdout
    rows = [r for r in per_test(course) if r["student"] == "oz"]
    lost = {r["notebook"] for r in rows if float(r["points"]) < float(r["max"])}
    assert lost == {"04_learned_positions"}
    assert scores(course)["oz"] == 85


def test_report_and_feedback_hold_the_real_counts(graded_two_ways):
    _, course, _, result, _ = graded_two_ways
    report = course / "reports" / ASSIGNMENT
    page = (report / "index.html").read_text()
    for chart in report_module.CHARTS:  # every chart the report draws (this class has something for each)
        assert (report / chart).stat().st_size > 1000
        assert f'<img src="{chart}"' in page
    # 2 of 6 students made the scatter-overwrite mistake (eli, and nobody else in this class: 1/6)
    assert "17%" in page and "scatter-overwrite" in page
    assert " 17%    1  scatter-overwrite" in result.stdout
    html = (course / "feedback" / "eli" / ASSIGNMENT / "02_token_embeddings.html").read_text()
    assert "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]" in html
    assert "HIDDEN TESTS" not in html and "_hidden" not in html


def test_second_run_skips_unchanged_and_regrades_a_resubmission(graded_two_ways, tmp_path):
    _, course, _, _, _ = graded_two_ways
    write_submission(course, "ben", persona_notebooks("reference"))  # ben resubmits a finished notebook
    # each run below with a canary cache of its own (AUTOGRADER_CANARY_CACHE): the session's remembers the reference passed
    result = kit(
        "grade",
        ASSIGNMENT,
        "--course-dir",
        str(course),
        "--jobs",
        "2",
        env=dict(ENV, AUTOGRADER_CANARY_CACHE=str(tmp_path / "1")),
    )
    assert "skipping 5 submission(s) already graded and unchanged, with every grading input" in result.stdout
    assert "graded ben: 100/100" in result.stdout
    assert scores(course)["ben"] == 100
    assert "canary: the reference solution scored 100/100" in result.stdout, "one student to grade: the canary first"
    # nobody left to grade: nothing for the canary to guard, so no canary
    idle = kit(
        "grade",
        ASSIGNMENT,
        "--course-dir",
        str(course),
        "--jobs",
        "2",
        env=dict(ENV, AUTOGRADER_CANARY_CACHE=str(tmp_path / "2")),
    )
    assert f"skipping {len(CLASS)} submission(s)" in idle.stdout, idle.stdout[-2000:]
    assert "canary" not in idle.stdout, idle.stdout[-2000:]
    assert scores(course)["ben"] == 100


# The killed run needs three students: one graded before the kill, one killed mid-grading, one not started
# (the class has six); oz's unreadable notebook shows that a resumed student is still recorded with every notebook.


def test_killed_run_resumes_and_grades_everyone_once(graded_two_ways):
    course, _, result, _, killed = graded_two_ways
    assert len(killed) == 1, killed
    assert "skipping 1 submission(s)" in result.stdout
    graded_now = [line for line in result.stdout.splitlines() if line.startswith(("  graded ", "  FAILED "))]
    assert len(graded_now) == len(CLASS) - 1
    assert killed[0] not in {line.split()[1].rstrip(":") for line in graded_now}, "the one graded is skipped"
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        subs = gb.assignment_submissions(ASSIGNMENT)
        assert sorted(s.student.id for s in subs) == sorted(CLASS)
        for s in subs:
            assert len(s.notebooks) == len(NOTEBOOKS)
            assert sum(len(nb.grades) for nb in s.notebooks) == graded_test_cells()
    assert scores(course)["ada"] == 100


def test_grade_refuses_an_unknown_assignment_clearly(tmp_path):
    course = tmp_path / "course"
    scratch_course(course)
    result = kit("grade", "nope", "--course-dir", str(course), check=False)
    assert result.returncode == 2
    assert "unknown assignment 'nope'" in result.stderr
    assert "Traceback" not in result.stderr  # one line, as every refusal of a run


def test_collect_places_canvas_zip_and_reports_unmatched(tmp_path):
    course = tmp_path / "course"
    scratch_course(course)
    ref = nbformat.writes(persona_notebooks("reference")["02_token_embeddings"])
    old = persona_notebooks("stub")["02_token_embeddings"]  # the release text, as handed out
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(zipfile.ZipInfo("subs/doejane_12345_67890_02_token_embeddings.ipynb", (2026, 11, 2, 10, 0, 0)), ref)
        z.writestr(zipfile.ZipInfo("subs/doejane_12345_67001_02_token_embeddings-1.ipynb", (2026, 11, 1, 9, 0, 0)), old)
        z.writestr(
            zipfile.ZipInfo("subs/nested/roe_LATE_555_777_05_embedding_layer.ipynb", (2026, 11, 3, 9, 0, 0)), ref
        )
        # a resubmission of the same time: Canvas's -1 suffix and later submission id say which is newer
        same = (2026, 11, 4, 9, 0, 0)
        z.writestr(zipfile.ZipInfo("subs/roe_555_700_03_sinusoidal.ipynb", same), old)
        z.writestr(zipfile.ZipInfo("subs/roe_555_701_03_sinusoidal-1.ipynb", same), ref)
        z.writestr(zipfile.ZipInfo("subs/smith_999_111_my_notes.ipynb", (2026, 11, 3, 9, 0, 0)), ref)
        z.writestr(zipfile.ZipInfo("subs/stranger_4242_1_01_why_position.ipynb", (2026, 11, 3, 9, 0, 0)), ref)
        z.writestr(zipfile.ZipInfo("subs/photo.png", (2026, 11, 3, 9, 0, 0)), b"\x89PNG")
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,login,lms_id\njane,doejane,12345\nrichard,roe,555\nsmith,smith,999\n")
    result = kit("collect", ASSIGNMENT, str(archive), "--roster", str(roster), "--course-dir", str(course))
    out = result.stdout
    assert (course / "submitted" / "jane" / ASSIGNMENT / "02_token_embeddings.ipynb").read_text() == ref  # newest wins
    assert (course / "submitted" / "richard" / ASSIGNMENT / "05_embedding_layer.ipynb").exists()
    assert (
        "ignored subs/doejane_12345_67001_02_token_embeddings-1.ipynb: older than "
        "subs/doejane_12345_67890_02_token_embeddings.ipynb, which was collected" in out
    )
    assert (course / "submitted" / "richard" / ASSIGNMENT / "03_sinusoidal.ipynb").read_text() == ref
    assert (
        "ignored subs/roe_555_700_03_sinusoidal.ipynb: same time, the LMS numbers it an earlier submission than "
        "subs/roe_555_701_03_sinusoidal-1.ipynb, which was collected" in out
    )
    assert "already in place" not in out and "older subs/roe" not in out
    assert "smith_999_111_my_notes.ipynb: not a notebook of 'embeddings'" in out
    assert "stranger_4242_1_01_why_position.ipynb: LMS user stranger (4242) is not in the roster" in out
    assert "photo.png: not a notebook (.ipynb)" in out
    # collecting an older download again never replaces the newer submission
    with zipfile.ZipFile(tmp_path / "older.zip", "w") as z:
        z.writestr(zipfile.ZipInfo("doejane_12345_60000_02_token_embeddings.ipynb", (2026, 10, 1, 9, 0, 0)), old)
    result = kit(
        "collect", ASSIGNMENT, str(tmp_path / "older.zip"), "--roster", str(roster), "--course-dir", str(course)
    )
    assert (course / "submitted" / "jane" / ASSIGNMENT / "02_token_embeddings.ipynb").read_text() == ref
    assert "kept the newer submission already in place" in result.stdout
