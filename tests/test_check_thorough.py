"""`python -m autograder check --thorough`: a self-learner grades their own notebook with the hidden checks.

Real nbgrader, real kernels: one command grades two notebooks in one scratch course.
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.config import CONFIG_FILE, SANDBOX_SWITCH, grading_options
from autograder.course import ASSIGNMENT, KIT_RELEASE, NOTEBOOKS, Assignment, Course, sqlite_url
from autograder.devtools.personas import filled_notebook
from autograder.grading.canary import CACHE_ENV, CANARY, CanaryFailed, run_canary
from autograder.student.thorough import (
    ThoroughError,
    choose_sandbox,
    course_key,
    kit_source,
    registered_course,
    scratch_course,
)

from .audit import digest, digests_in, probe_notebook, reference
from .conftest import REPO, kit

SCATTER = "np.add.at(self.dE, idx, dout)"


def points_line(stdout: str, path) -> str:
    """The "N/M graded tests pass: S/T points" line of the block that grades ``path``."""
    block = stdout.split(str(path), 1)[1]
    return re.search(r"\d+/\d+ graded tests pass: .*", block).group(0)


def test_thorough_grades_with_the_hidden_checks_and_names_the_misconception(tmp_path):
    scatter = filled_notebook(REPO, "02_token_embeddings")
    for cell in scatter.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
            assert SCATTER in cell.source
            cell.source = cell.source.replace(SCATTER, "self.dE[idx] += dout")
    (tmp_path / "mine").mkdir()
    wrong = tmp_path / "mine" / "02_token_embeddings.ipynb"
    nbformat.write(scatter, str(wrong))
    right = tmp_path / "copy of lesson 2.ipynb"  # renamed: recognised by its cells
    nbformat.write(filled_notebook(REPO, "02_token_embeddings"), str(right))
    before = wrong.read_bytes(), right.read_bytes()
    probe = tmp_path / "sandbox probe.ipynb"  # the sandbox audit (tests/audit.py), graded in the same run
    nbformat.write(probe_notebook(), str(probe))

    result = kit("check", "--thorough", str(wrong), str(right), str(probe), check=False)

    assert result.returncode == 1, result.stdout + result.stderr  # one notebook short of full marks
    assert "sandboxed with bubblewrap" in result.stdout or "UNSANDBOXED" in result.stdout
    # the canary speaks to whoever checks a notebook: no class is graded here
    assert "kit self-test (" in result.stdout and "the class" not in result.stdout, result.stdout
    assert "canary" not in result.stdout  # a word the student is not told the meaning of
    mine = result.stdout.split(str(right))[0]
    assert "Diagnosis [scatter-overwrite]: Row" in mine and "is used twice so its gradient should be" in mine
    assert "np.add.at(dE, idx, dout)" in mine  # the fix, on the line under it
    assert re.search(r"test-embedding-backward\s+0/\d+\s+FAIL", mine), mine
    assert re.search(r"test-embedding-forward\s+(\d+)/\1\s+pass", mine), mine
    score, full = map(float, re.search(r"pass: ([\d.]+)/([\d.]+) points", points_line(result.stdout, wrong)).groups())
    assert 0 < score < full == 25
    assert (
        "25/25 points" in points_line(result.stdout, right) and "graded as 02_token_embeddings.ipynb" in result.stdout
    )
    assert (wrong.read_bytes(), right.read_bytes()) == before  # the student's files are never written
    if "sandboxed with bubblewrap" in result.stdout:  # the sandbox audit: the report every kernel path gives
        assert digests_in(result.stdout.split(str(probe), 1)[1]) == {digest(reference())}


def test_thorough_says_what_it_cannot_grade(tmp_path):
    text = tmp_path / "notes.ipynb"
    text.write_text("my notes, not a notebook")
    stranger = tmp_path / "mine.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), str(stranger))
    result = kit("check", "--thorough", str(text), str(stranger), str(tmp_path / "gone.ipynb"), check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert f"{text}: not a notebook" in result.stderr
    assert f"{stranger}: not one of the five lesson notebooks" in result.stderr
    assert all(f"{name}.ipynb" in result.stderr for name in NOTEBOOKS)
    assert f"{tmp_path / 'gone.ipynb'}: no such file" in result.stderr

    empty_kit = tmp_path / "kit"
    empty_kit.mkdir()
    lesson = tmp_path / "02_token_embeddings.ipynb"
    nbformat.write(filled_notebook(REPO, "02_token_embeddings"), str(lesson))
    result = kit("check", "--thorough", "--kit", str(empty_kit), str(lesson), check=False)
    assert result.returncode == 2
    assert "is missing nbgrader_config.py" in result.stderr and "--kit" in result.stderr


def test_without_bubblewrap_it_says_plainly_that_it_runs_unsandboxed(monkeypatch):
    """In-process: a PATH without bwrap (as on macOS) falls back to no sandbox and says so; asked for by name, refuses."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    monkeypatch.delenv(SANDBOX_SWITCH, raising=False)
    sandboxed, words = choose_sandbox()
    assert not sandboxed and words.startswith("UNSANDBOXED: bubblewrap cannot run here") and "not installed" in words
    monkeypatch.setenv(SANDBOX_SWITCH, "on")
    with pytest.raises(ThoroughError, match="AUTOGRADER_SANDBOX=on, but bubblewrap"):
        choose_sandbox()


def test_the_scratch_course_is_registered_once_per_kit_and_copied_after(tmp_path):
    """nbgrader's generate_assignment runs the first time only: the next check copies the registered course,
    gradebook included; a changed source notebook is another course."""
    own_kit = tmp_path / "kit"  # a kit of its own, so that the course is made here and not found made
    (own_kit / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(REPO / CONFIG_FILE, own_kit / CONFIG_FILE)
    lesson = "02_token_embeddings"
    source = own_kit / "source" / ASSIGNMENT / f"{lesson}.ipynb"
    shutil.copy(kit_source(REPO, lesson), source)

    made = registered_course(own_kit, [lesson])
    gradebook = made / "gradebook.db"
    with Gradebook(sqlite_url(gradebook)) as gb:
        assert [nb.name for nb in gb.find_assignment(ASSIGNMENT).notebooks] == [lesson]
    stamp = gradebook.stat().st_mtime_ns

    first, second = tmp_path / "one", tmp_path / "two"
    urls = [scratch_course(target, own_kit, [lesson]) for target in (first, second)]
    assert urls == [sqlite_url(first / "gradebook.db"), sqlite_url(second / "gradebook.db")]
    assert registered_course(own_kit, [lesson]) == made and gradebook.stat().st_mtime_ns == stamp  # not made again
    assert (first / "gradebook.db").read_bytes() == gradebook.read_bytes()
    assert (second / KIT_RELEASE / ASSIGNMENT / f"{lesson}.ipynb").exists()  # the student copy the canary fills

    source.write_text(source.read_text().replace("Embedding", "Embedding ", 1))
    assert course_key(own_kit, [lesson]) != made.name  # another source notebook: registered anew


def test_the_canary_grades_in_the_checks_own_course_while_the_notebook_is_graded(tmp_path, monkeypatch):
    """run_canary(registered=, meanwhile=): the reference is graded in the course given (no second course is
    registered) while ``meanwhile`` runs; its value comes back once the canary passed, its error is raised only
    then, and a failing canary throws the value away and says why."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "records"))  # graded here, not remembered from another test
    lesson = "02_token_embeddings"
    db_url = scratch_course(tmp_path / "course", REPO, [lesson])
    scratch = Assignment(Course(tmp_path / "course"), ASSIGNMENT)
    options = grading_options(scratch.course.config, sandbox=choose_sandbox()[0], feedback=False)
    seen = []

    def fails():
        seen.append(scratch.submitted(CANARY).is_dir())  # the reference is in this course already
        raise OSError("the student's grading failed on the kit's side")

    # its error is its own (not the canary's), raised once the canary passed
    with pytest.raises(OSError, match="the student's grading failed"):
        run_canary(scratch, options, notebooks=[lesson], registered=(scratch, db_url), meanwhile=fails)
    assert seen == [True]
    with Gradebook(db_url) as gb:  # graded in the course it was given
        assert gb.find_submission(ASSIGNMENT, CANARY).score == gb.find_submission(ASSIGNMENT, CANARY).max_score > 0
    remembered = run_canary(
        scratch, options, notebooks=[lesson], registered=(scratch, db_url), meanwhile=lambda: "the grades"
    )
    assert remembered == "the grades"
    starved = replace(options, notebook_budget=0.5)  # the reference cannot score full marks in half a second
    with pytest.raises(CanaryFailed, match="not full marks"):
        run_canary(scratch, starved, notebooks=[lesson], registered=(scratch, db_url), meanwhile=fails)
