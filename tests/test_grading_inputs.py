"""A grade is a function of the submission and every grading input: change one, and exactly the students it
affects are graded again, without --force; change nothing (or something that is not an input), and nobody is.

One class of two who handed in lesson 3 (ada the reference, ben a stub), graded once, then changed one input at a
time (each case starts from the state the one before left): each grading input of
``autograder/classroom/history/inputs.py`` is a case.  The course's options are one run, whose line must name each
option changed; the settings that are not inputs are one run too (any of them an input would regrade everyone), and
the two versions one more: nine runs where there were sixteen.  A point change and its revert, each regrading the class with
grades.csv, the per-test CSV and the Canvas file agreeing on each total, are tests/test_point_change.py's (made as
the README says: the authoring source, then ``build``).  Real nbgrader, real kernels; ``grade`` runs in this process
so that the kit's digest and the versions can be changed under it, by one worker (a second would cost its start-up,
about 1.5 s of CPU, in each of the runs, for two notebooks).
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.classroom.history import inputs
from autograder.classroom.history.history import History
from autograder.config import MiB, NotebookLimits, read_course_config
from autograder.course import ASSIGNMENT, Course
from autograder.devtools.demo import persona_notebooks

from .conftest import make_class

LESSON = "03_sinusoidal"
CLASS = {"ada": "reference", "ben": "stub"}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs") / "course"
    db_url = make_class(root, {s: {LESSON: persona_notebooks(p)[LESSON]} for s, p in CLASS.items()})
    return root, db_url


def grade(course, capsys, *flags: str) -> tuple[set[str], str]:
    """``grade`` once; the students that run graded, and what it printed."""
    root, db_url = course
    capsys.readouterr()
    status = cli.main(["grade", ASSIGNMENT, "--course-dir", str(root), "--db-url", db_url, "--jobs", "1", *flags])
    captured = capsys.readouterr()
    out = captured.out
    assert status == 0, out + captured.err
    with History(db_url) as history:
        last = history.runs(ASSIGNMENT)[-1].id
        grades = history.grades_as_of(ASSIGNMENT, last)
    return {s for s, g in grades.items() if g.run_id == last}, out


def source_notebook(root: Path) -> Path:
    return Course(root).folder("source", ASSIGNMENT) / f"{LESSON}.ipynb"


def edit_source(root: Path, change) -> None:
    path = source_notebook(root)
    nb = nbformat.read(str(path), as_version=4)
    change(nb)
    nbformat.write(nb, str(path))


def cell(nb, grade_id: str):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def set_points(points: int):
    def change(nb):
        cell(nb, "test-table-even").metadata["nbgrader"]["points"] = points

    return change


def first(nb, kind: str):
    """The first cell that is locked and not graded (``locked``), or a solution cell (``solution``)."""
    for c in nb.cells:
        meta = c.metadata.get("nbgrader", {})
        if kind == "locked" and meta.get("locked") and not meta.get("grade"):
            return c
        if kind == "solution" and meta.get("solution") and not meta.get("grade"):
            return c
    raise AssertionError(f"no {kind} cell in {LESSON}")


def append_config(root: Path, line: str) -> None:
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text() + f"\n{line}\n")


def memory_limit_raised(root: Path) -> tuple[str, str]:
    """The line that raises the course's memory limit (its nbgrader_config.py's, else the kit's default) by 1 GiB,
    written as a size, and the words ``grade`` says of that change (in bytes)."""
    before = NotebookLimits.from_config(read_course_config(root), warn=False).memory_limit
    after = before + 1024 * MiB
    return f'c.ResourceLimits.memory_limit = "{after // MiB}MiB"', f"grade.limits.memory_limit {before} -> {after}"


def test_every_grading_input_regrades_exactly_whom_it_affects(course, capsys, monkeypatch):
    root, _ = course
    everyone = set(CLASS)
    graded, _ = grade(course, capsys)
    assert graded == everyone

    real_versions, real_kit = inputs.versions(), inputs.kit_digest()
    memory_line, memory_words = memory_limit_raised(root)
    cases = [
        # (what is changed, how, who is graded again, the words `grade` says)
        ("nothing", lambda: None, set(), ()),
        (
            "a solution cell of the source",
            lambda: edit_source(
                root,
                lambda nb: first(nb, "solution").__setitem__(
                    "source", first(nb, "solution").source + "\n# another reference\n"
                ),
            ),
            set(),
            (),
        ),
        ("ada's submission", lambda: _touch_submission(root, "ada"), {"ada"}, ()),
        (
            "a locked cell of the source",
            lambda: edit_source(
                root,
                lambda nb: first(nb, "locked").__setitem__("source", first(nb, "locked").source + "\n# said again\n"),
            ),
            everyone,
            (f"source: {LESSON}.ipynb",),
        ),
        (
            "the kit's files",
            lambda: monkeypatch.setattr(inputs, "kit_digest", lambda: real_kit + "-changed"),
            everyone,
            ("kit ",),
        ),
        (
            # the course's options, changed together in one run: its one line must name each of them (the line and
            # the decision to regrade compare the same recorded options, so an option the line names is an input)
            "the notebook budget, the memory limit, the cell timeout, a feedback option and a resource limit",
            lambda: [
                append_config(root, line)
                for line in (
                    "c.KitConfig.notebook_budget = 110",
                    memory_line,
                    "c.Execute.timeout = 50",
                    "c.GenerateFeedback.preprocessors = c.GenerateFeedback.preprocessors[:-1]",
                    "c.ResourceLimits.max_processes = 48",
                )
            ],
            everyone,
            (
                "notebook_budget",
                memory_words,
                "cell_timeout",
                "GenerateFeedback.preprocessors",
                "ResourceLimits.max_processes",
            ),
        ),
        (
            "the workers, how soon a silent grading is presumed hung, the similarity report (none is an input)",
            lambda: [
                append_config(root, line)
                for line in (
                    "c.KitConfig.jobs = 3",
                    "c.KitConfig.hung_grace = 12",
                    "c.SimilarityConfig.threshold = 0.6",
                )
            ],
            set(),
            (),
        ),
    ]
    bumped = dict(real_versions, **{package: real_versions[package] + ".post1" for package in ("nbgrader", "numpy")})
    cases.append(
        (
            "the nbgrader and numpy versions",
            lambda: monkeypatch.setattr(inputs, "versions", lambda: bumped),
            everyone,
            ("nbgrader ", "numpy "),
        )
    )
    for what, change, affected, words in cases:
        change()
        graded, out = grade(course, capsys)
        assert graded == affected, f"{what}: graded {sorted(graded)}, expected {sorted(affected)}\n{out}"
        said = [line for line in out.splitlines() if line.startswith("regrading ")]
        if words and affected:
            assert len(said) == 1 and all(w in said[0] for w in words), f"{what}: {said}\n{out}"


def _touch_submission(root: Path, student: str) -> None:
    path = root / "submitted" / student / ASSIGNMENT / f"{LESSON}.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "my notes"})
    path.write_text(json.dumps(nb))


def test_no_export_carries_a_score_off_the_assignments_current_total(tmp_path):
    """A point change not yet graded (the source says 102, the gradebook's grades are out of 100): grades.csv, the
    Canvas and the Moodle file are refused in one line naming the student and what to run, the old files kept."""
    from .conftest import kit

    root = tmp_path / "course"
    make_class(root, {"ada": {LESSON: persona_notebooks("reference")[LESSON]}})
    kit("grade", ASSIGNMENT, "--course-dir", str(root), "--jobs", "1")
    before = Course(root).grades_csv.read_text()
    edit_source(root, set_points(7))
    (root / "roster.csv").write_text("student_id,canvas_id,name,email\nada,101,Ada,ada@example.org\n")
    for to in ("csv", "canvas", "moodle"):
        told = kit(
            "export",
            ASSIGNMENT,
            "--course-dir",
            str(root),
            "--to",
            to,
            "--roster",
            str(root / "roster.csv"),
            check=False,
        )
        assert told.returncode == 2 and told.stderr.count("\n") == 1, (to, told.stderr)
        assert "not on the assignment's current total of 102 (ada 20/100); run `autograder grade`" in told.stderr
    assert Course(root).grades_csv.read_text() == before
    assert not (root / f"{ASSIGNMENT}-canvas.csv").exists() and not (root / f"{ASSIGNMENT}-moodle.csv").exists()
