"""`python -m autograder check`: the student's own self-check table."""
from __future__ import annotations

import nbformat

from autograder.course import ASSIGNMENT

from .conftest import REPO, kit
from autograder.devtools.personas import filled_notebook


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
    assert "Row 0 is used twice so its gradient should be [2, 2], got [1. 1.]" in result.stdout
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
    assert "broken.ipynb" in result.stderr and "not a readable notebook" in result.stderr
