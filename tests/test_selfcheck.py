"""`python -m autograder check`: the student's own self-check table."""

from __future__ import annotations

import json

import nbformat

from autograder.cells import grade_id, is_practice_check_cell, is_solution_cell
from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.devtools.personas import filled_notebook
from autograder.student.selfcheck import run_self_checks

from .conftest import REPO, kit


def test_stub_fails_with_not_implemented(tmp_path):
    result = kit("check", str(REPO / "release" / ASSIGNMENT / "02_token_embeddings.ipynb"), check=False)
    assert result.returncode == 1
    assert "test-embedding-backward" in result.stdout and "not implemented yet" in result.stdout
    assert "0/7 self-checks pass" in result.stdout


def test_misconception_is_reported_and_hidden_tests_never_run(tmp_path):
    nb = filled_notebook(REPO, "02_token_embeddings")
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
            cell.source = cell.source.replace("np.add.at(self.dE, idx, dout)", "self.dE[idx] += dout")
    # a copy of the source notebook still holds hidden tests: check must strip them
    source = nbformat.read(str(REPO / "source" / ASSIGNMENT / "02_token_embeddings.ipynb"), as_version=4)
    for mine, theirs in zip(nb.cells, source.cells):
        if theirs.metadata.get("nbgrader", {}).get("grade") and not theirs.metadata["nbgrader"].get("solution"):
            mine.source = theirs.source
    (tmp_path / "autograder").mkdir()  # a poisoned kit next to the notebook: must never be imported
    (tmp_path / "autograder" / "__init__.py").write_text("raise SystemExit('hidden tests were run')\n")
    path = tmp_path / "mine.ipynb"
    nbformat.write(nb, str(path))
    result = kit("check", str(path), check=False)
    assert result.returncode == 1
    assert "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]" in result.stdout
    assert "hidden tests were run" not in result.stdout + result.stderr
    assert "6/7 self-checks pass" in result.stdout


def test_completed_notebook_exits_zero(tmp_path):
    path = tmp_path / "done.ipynb"
    nbformat.write(filled_notebook(REPO, "02_token_embeddings"), str(path))
    result = kit("check", str(path))
    assert "7/7 self-checks pass" in result.stdout


def test_unreadable_notebook_is_named(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text("{ not json")
    result = kit("check", str(path), check=False)
    assert result.returncode == 2
    assert "broken.ipynb: not a notebook: invalid JSON at line 1, column 3" in result.stderr  # grading's words


def test_cells_answers_nbgrader_rules_as_nbgrader_does():
    """cells.py answers nbgrader's three questions itself (importing nbgrader costs seconds, and a student's
    Python may not have it): the same answers as nbgrader.utils on every cell of every committed notebook,
    read as plain JSON and as nbformat's nodes, and on the edge cases of the metadata."""
    from nbgrader import utils

    from autograder import cells
    from autograder.notebooks import PlainNode, plain_node

    def both(mine, theirs) -> None:
        assert (cells.is_grade(mine), cells.is_solution(mine), cells.is_locked(mine)) == (
            bool(utils.is_grade(theirs)),
            bool(utils.is_solution(theirs)),
            bool(utils.is_locked(theirs)),
        ), theirs.metadata

    compared = 0
    for step in ("source", "release"):
        for name in NOTEBOOKS:
            path = REPO / step / ASSIGNMENT / f"{name}.ipynb"
            plain = plain_node(json.loads(path.read_text(encoding="utf-8")))
            real = nbformat.read(str(path), as_version=4)
            assert isinstance(plain, PlainNode) and len(plain.cells) == len(real.cells)
            for mine, theirs in zip(plain.cells, real.cells):
                assert mine.source == theirs.source
                both(mine, theirs)
                both(theirs, theirs)
                compared += 1
    assert compared > 100
    flags = ({}, {"grade": True}, {"solution": True}, {"locked": True}, {"grade": True, "solution": True})
    for meta in ({}, *({"nbgrader": f} for f in flags), {"nbgrader": {"grade": 1, "locked": 0}}):
        cell = nbformat.v4.new_code_cell("x = 1", metadata=meta)
        both(cell, cell)


def write_cells(path, *sources):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    for k, cell in enumerate(nb.cells):
        cell.metadata["nbgrader"] = {
            "grade": True,
            "solution": False,
            "locked": True,
            "points": 1,
            "grade_id": f"t{k}",
            "schema_version": 3,
        }
    nbformat.write(nb, str(path))
    return path


def test_a_cell_that_runs_too_long_fails_and_the_rest_are_not_run(tmp_path):
    path = write_cells(tmp_path / "slow.ipynb", "x = 1", "while True:\n    pass", "assert x == 1")
    rows = run_self_checks(path, timeout=2)
    assert [r.passed for r in rows] == [True, False, False]
    assert "ran longer than 2 s" in rows[1].message and "not run" in rows[2].message


def test_a_cell_that_ends_the_python_fails_and_a_warning_fails_its_cell(tmp_path):
    path = write_cells(
        tmp_path / "exits.ipynb",
        "import warnings; warnings.warn('careful')",
        "print('fine')",
        "import os; os._exit(3)",
        "pass",
    )
    rows = run_self_checks(path)
    assert [r.passed for r in rows] == [False, True, False, False]
    assert "careful" in rows[0].message and "stderr" in rows[0].message  # nbgrader's rule: stderr fails a cell
    assert "exit code 3" in rows[2].message and "not run" in rows[3].message


def test_cells_run_in_the_notebook_folder_with_its_modules_importable(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    (tmp_path / "data.txt").write_text("1")
    path = write_cells(
        tmp_path / "here.ipynb", "import helper", "assert helper.VALUE + int(open('data.txt').read()) == 42"
    )
    assert [r.passed for r in run_self_checks(path)] == [True, True]


def test_practice_check_cells_are_the_three_exercises_of_lesson_5():
    """The rule of cells.is_practice_check_cell, over every committed notebook: lesson 5's three
    practice self-checks, each a `with self_check(...)` block after its exercise's solution cell."""
    found = {}
    for step in ("source", "release"):
        for name in NOTEBOOKS:
            cells = nbformat.read(str(REPO / step / ASSIGNMENT / f"{name}.ipynb"), as_version=4).cells
            for k, cell in enumerate(cells):
                if is_practice_check_cell(cell):
                    assert "with self_check(" in cell.source and is_solution_cell(cells[k - 1]), grade_id(cell)
                    found.setdefault((step, name), []).append(grade_id(cell))
    assert found == {
        (step, "05_embedding_layer"): ["ex1-check", "ex2-check", "ex3-check"] for step in ("source", "release")
    }


def test_practice_exercises_are_0_point_rows_pass_fail_or_not_done(tmp_path):
    """Lesson 5 with the graded units solved: exercise 1 solved, exercise 2 wrong, exercise 3 left as released."""
    release = nbformat.read(str(REPO / "release" / ASSIGNMENT / "05_embedding_layer.ipynb"), as_version=4)
    stub = next(cell.source for cell in release.cells if grade_id(cell) == "ex3-full-length")
    wrong = "def freeze_effect(idx, G, seed=7):\n    return 0.0, 0.25, 0.0\n"
    nb = filled_notebook(REPO, "05_embedding_layer", {"ex2-freeze": wrong, "ex3-full-length": stub})
    path = tmp_path / "05_embedding_layer.ipynb"
    nbformat.write(nb, str(path))
    result = kit("check", str(path))  # exit 0: practice does not count against you
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if "(practice)" in line}
    assert set(rows) == {"ex1-check", "ex2-check", "ex3-check"}, result.stdout
    assert all(line.split()[2] == "0" for line in rows.values()), rows
    assert rows["ex1-check"].split()[3] == "pass" and "naive scatter: gap of dE" in rows["ex1-check"]
    # the layer freezes correctly, so the message points at the exercise's own code, not at backward
    assert rows["ex2-check"].split()[3] == "FAIL" and "the difference is in freeze_effect" in result.stdout
    assert "Read self.freeze_positions in backward" not in result.stdout
    assert " not done " in rows["ex3-check"] and "Exercise 3: not implemented yet" in rows["ex3-check"]
    assert "Traceback" not in result.stdout
    assert "7/7 self-checks pass (25 points at stake)" in result.stdout
    assert "points if the hidden" not in result.stdout  # no promise of marks the hidden tests may take away
    assert "cannot promise points" in result.stdout and "`check --thorough`" in result.stdout
    assert "practice exercises (not graded, 0 points): 1/3 pass, 1 not done" in result.stdout


def test_checks_default_timeout_is_gradings():
    """selfcheck writes the number itself (config imports traitlets, which a NumPy-only check lacks)."""
    from autograder.config import CELL_TIMEOUT
    from autograder.student.selfcheck import DEFAULT_TIMEOUT

    assert DEFAULT_TIMEOUT == CELL_TIMEOUT
