"""The single source of truth: assignments/ builds source/ and release/ exactly, and bad authoring fails clearly."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.build import build, build_source
from autograder.authoring.rules import AuthoringError
from autograder.course import ASSIGNMENT, NOTEBOOKS

from .conftest import REPO


def copy_authoring(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "assignments", tmp_path / "assignments")
    shutil.copy(REPO / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    return tmp_path


@pytest.mark.smoke
def test_rebuild_changes_nothing(tmp_path):
    repo = copy_authoring(tmp_path)
    written = build(repo)
    assert len(written) == 2 * len(NOTEBOOKS)
    for folder in ("source", "release"):
        for name in NOTEBOOKS:
            rebuilt = (repo / folder / ASSIGNMENT / f"{name}.ipynb").read_bytes()
            committed = (REPO / folder / ASSIGNMENT / f"{name}.ipynb").read_bytes()
            assert rebuilt == committed, f"{folder}/{name}.ipynb differs from a fresh build: run `make build`"


LESSON = "02_token_embeddings"


def break_lesson(repo: Path, old: str, new: str, count: int = 1) -> None:
    path = repo / "assignments" / ASSIGNMENT / f"{LESSON}.py"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, count))


@pytest.mark.parametrize(
    "old, new, expected",
    [
        (
            '"grade_id": "test-rel-error"',
            '"grade_id": "test-embedding-forward"',
            "grade_id 'test-embedding-forward' is used again",
        ),
        (
            '"grade_id": "test-rel-error", "locked": true, "points": 3,',
            '"grade_id": "test-rel-error", "locked": true,',
            "a graded cell needs positive points",
        ),
        (
            '"grade_id": "test-rel-error", "locked": true',
            '"grade_id": "test-rel-error", "locked": false',
            "a test cell must be locked",
        ),
        ("        ### END SOLUTION\n\n    def backward", "\n    def backward", "nested '### BEGIN SOLUTION'"),
        ('then the largest of them.")\n', 'then the largest of them.")\nrel_error(1.0, 0.5)\n', "ends in a bare value"),
        (
            "def rel_error(a, b):",
            "def numerical_gradient(a, b):",
            "'numerical_gradient' must be defined in exactly one solution cell",
        ),
        (
            "_hidden.rel_error_values(rel_error)",
            "_hidden.no_such_check(rel_error)",
            "has no check named 'no_such_check'",
        ),
        (
            "# Self-check: relative, entry by entry",
            "import autograder  # Self-check",
            "student-visible code mentions the autograder",
        ),
        (
            "### BEGIN HIDDEN TESTS\nimport autograder.hidden.lesson02 as _hidden\n_hidden.rel_error_values(rel_error)\n"
            "### END HIDDEN TESTS\n",
            "",
            "a test cell needs a hidden check",
        ),
    ],
)
def test_bad_authoring_fails_naming_file_and_cell(tmp_path, old, new, expected):
    repo = copy_authoring(tmp_path)
    break_lesson(repo, old, new)
    with pytest.raises(AuthoringError) as err:
        build(repo)
    message = str(err.value)
    assert f"{LESSON}.py" in message and expected in message, message
    assert not (repo / "source").exists(), "nothing is written when validation fails"


def test_an_include_that_includes_itself_fails_naming_the_lesson(tmp_path):
    repo = copy_authoring(tmp_path)
    shared = repo / "assignments" / ASSIGNMENT / "_shared" / "verdict.py"
    shared.write_text(
        shared.read_text() + "\n# kit-include: _shared/gradcheck.py\n"
    )  # gradcheck.py includes verdict.py
    with pytest.raises(AuthoringError) as err:
        build(repo)
    assert f"{LESSON}.py" in str(err.value) and "includes itself" in str(err.value), str(err.value)


def test_a_changed_point_value_is_built_with_its_new_total(tmp_path):
    """The documented way (docs/authors.md): the test cell's "points" in its ``# %%`` header, then build."""
    repo = copy_authoring(tmp_path)
    path = repo / "assignments" / ASSIGNMENT / "03_sinusoidal.py"
    old = '"grade_id": "test-table-even", "locked": true, "points": 5,'
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, old.replace('"points": 5', '"points": 7')))
    said = []
    build_source(repo, echo=said.append)
    cell = next(
        c
        for c in nbformat.read(repo / "source" / ASSIGNMENT / "03_sinusoidal.ipynb", 4).cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "test-table-even"
    )
    assert cell.metadata["nbgrader"]["points"] == 7
    assert said == ["note: the points add up to 102 (the usual total is 100); scores are out of 102"]


def test_build_command_reports_failure(tmp_path):
    from .conftest import kit

    repo = copy_authoring(tmp_path)
    break_lesson(repo, '"grade_id": "test-rel-error", "locked": true', '"grade_id": "test-rel-error", "locked": false')
    result = kit("build", "--repo", str(repo), check=False)
    assert result.returncode == 1
    assert "02_token_embeddings.py: cell" in result.stderr and "(test-rel-error)" in result.stderr


def test_a_point_change_is_said_as_applied_to_the_old_submissions():
    """A notebook handed out before a point change carries the old points: the note says the assignment's
    new points are applied (not that the change was ignored)."""
    from autograder.grading.intake import locked_cells, repair_cells

    source = REPO / "source" / ASSIGNMENT / "03_sinusoidal.ipynb"
    expected = locked_cells(nbformat.read(source, 4))
    expected["test-table-even"]["meta"]["points"] = 7
    submitted = nbformat.read(REPO / "release" / ASSIGNMENT / "03_sinusoidal.ipynb", 4)  # as handed out
    notes = repair_cells("03_sinusoidal", submitted, expected)
    assert notes == [
        "03_sinusoidal: test-table-even: 5 -> 7 points in the assignment "
        "(this copy, handed out before the change, says 5, and is graded on 7)"
    ]
    cell = next(c for c in submitted.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test-table-even")
    assert cell.metadata["nbgrader"]["points"] == 7
